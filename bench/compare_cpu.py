#!/usr/bin/env python3
"""Strata's compiled CPU path against ONNX Runtime on the script-built bench
models, in one run: builds the models (scripts/build-bench-models.py),
compiles each with `strata compile --target cpu`, then per model and thread
count times `strata run --repeat N --threads T` and an ONNX Runtime session
with the same thread count (CPU provider, all graph optimizations),
alternating, and prints a table of medians with the Strata/ORT ratio.

    .venv/bin/python bench/compare_cpu.py [--models resnet50,mobilenetv2,bert4]
        [--threads 1,2] [--repeat 20] [--rounds 2] [--work build/bench-cpu]
        [--bin build/bin] [--isa avx512|avx2|portable]

On a machine shared with other jobs the wall-clock medians move together;
the ratio (both measured in the same minute) is the number to read.
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model_inputs(path):
    """Inputs for every graph input: seeded normals, token ids, a full mask."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    init = {i.name for i in m.graph.initializer}
    rng = np.random.default_rng(0)
    feeds = {}
    for i in m.graph.input:
        if i.name in init:
            continue
        t = i.type.tensor_type
        shape = [d.dim_value if d.dim_value > 0 else 1 for d in t.shape.dim]
        if t.elem_type == onnx.TensorProto.INT64:
            feeds[i.name] = (np.ones(shape, np.int64) if "mask" in i.name
                             else rng.integers(0, 1000, shape).astype(np.int64))
        else:
            feeds[i.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def ensure_models(work, models):
    """Builds the bench models `work` lacks (scripts/build-bench-models.py)."""
    os.makedirs(work, exist_ok=True)
    missing = [m for m in models if not os.path.exists(os.path.join(work, m + ".onnx"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "build-bench-models.py"),
                        work, "--models", ",".join(missing)], check=True)


def children_cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def run_strata(strata, art, npz, out, threads, repeat, env):
    """(median wall ms, CPU seconds of the whole process)."""
    c0 = children_cpu()
    r = subprocess.run([strata, "run", art, "--input", npz, "--output", out,
                        "--repeat", str(repeat), "--threads", str(threads)],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"strata run {art}: {r.stderr}")
    m = re.search(r"median ([0-9.]+) ms", r.stdout + r.stderr)
    return float(m.group(1)), children_cpu() - c0


def time_strata(strata, art, npz, out, threads, repeat, env):
    """Median wall ms and CPU ms per run (the process's CPU time over
    `repeat` runs minus that over one, so loading is not counted)."""
    wall, cpu_n = run_strata(strata, art, npz, out, threads, repeat, env)
    _, cpu_1 = run_strata(strata, art, npz, out, threads, 1, env)
    return wall, max(cpu_n - cpu_1, 0.0) / (repeat - 1) * 1e3


def time_ort(path, feeds, threads, repeat):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    s.run(None, feeds)
    ts = []
    c0 = time.process_time()
    for _ in range(repeat):
        t = time.perf_counter()
        s.run(None, feeds)
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)) * 1e3, (time.process_time() - c0) / repeat * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="resnet50,mobilenetv2,bert4")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2,
                    help="alternations of Strata and ORT per cell (best median kept)")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench-cpu"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--isa", default="", help="STRATA_CPU_ISA for strata run")
    args = ap.parse_args()
    strata = os.path.join(args.bin, "strata")
    models = args.models.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    ensure_models(args.work, models)
    env = dict(os.environ)
    if args.isa:
        env["STRATA_CPU_ISA"] = args.isa
    rows = []
    for m in models:
        onnx_path = os.path.join(args.work, m + ".onnx")
        art = os.path.join(args.work, m + ".strata")
        t0 = time.perf_counter()
        r = subprocess.run([strata, "compile", onnx_path, "--target", "cpu", "-o", art,
                            "--report"], capture_output=True, text=True)
        compile_s = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"strata compile {m}: {r.stderr}")
        kernels = sum(int(n) for n in re.findall(r"kernel '[^']+': (\d+) dispatch", r.stdout))
        total = int(re.search(r"dispatches: (\d+)", r.stdout).group(1))
        feeds = model_inputs(onnx_path)
        npz = os.path.join(args.work, m + "_in.npz")
        np.savez(npz, **feeds)
        out = os.path.join(args.work, m + "_out.npz")
        for t in threads:
            s_ms, o_ms = [], []
            for _ in range(args.rounds):
                s_ms.append(time_strata(strata, art, npz, out, t, args.repeat, env))
                o_ms.append(time_ort(onnx_path, feeds, t, args.repeat))
            sw, sc = min(s_ms)
            ow, oc = min(o_ms)
            rows.append((m, t, sw, ow, sc, oc, compile_s, kernels, total))
            print(f"{m} {t}T: strata {sw:.1f} ms ({sc:.1f} CPU), ort {ow:.1f} ms "
                  f"({oc:.1f} CPU)", file=sys.stderr)
    print("wall: median ms per run; cpu: CPU ms per run (all threads)")
    print(f"{'model':<12} {'thr':>3} {'strata':>8} {'ort':>8} {'ratio':>6} "
          f"{'strata cpu':>10} {'ort cpu':>8} {'ratio':>6} {'compile s':>9} "
          f"{'kernel/all':>10}")
    for m, t, sw, ow, sc, oc, c, k, n in rows:
        print(f"{m:<12} {t:>3} {sw:>8.1f} {ow:>8.1f} {sw / ow:>6.2f} {sc:>10.1f} "
              f"{oc:>8.1f} {sc / oc:>6.2f} {c:>9.1f} {k:>6}/{n}")


if __name__ == "__main__":
    main()
