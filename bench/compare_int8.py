#!/usr/bin/env python3
"""int8 against f32 on Strata's compiled CPU path, in one run: builds the
bench models (scripts/build-bench-models.py), calibrates on one set of
samples (`strata calibrate`), compiles each model twice with
`strata compile --target cpu` (f32, `--quantize int8 --calibration` and `--quantize bf16`),
times `strata run --repeat N --threads T` of the three, alternating, and
measures the int8 and bf16 models' output cosines against the f32 model's
on another set of samples. Next to them, ONNX Runtime's CPU time on the f32 model and on
its own int8 model (quantize_static, QDQ, uint8 activations and per-channel
int8 weights, calibrated on the same samples), 1 thread each.

    .venv/bin/python bench/compare_int8.py [--models resnet50,mobilenetv2]
        [--threads 1] [--repeat 10] [--rounds 2] [--calibrate 8] [--evaluate 3]
        [--method percentile] [--work build/bench-cpu] [--bin build/bin]
        [--isa avx512|avx2|portable] [--no-ort] [--check-ref]

Samples: smooth random colour fields (a 7x7 grid of random colours,
bilinearly upsampled to 224x224) plus pixel noise, ImageNet-normalized;
seeded, so the run repeats exactly. On a shared machine read the CPU time
columns (the process's CPU time per run), not the wall-clock medians.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_cpu import ROOT, ensure_models, time_ort, time_strata  # noqa: E402


def colour_field(rng, size=224, grid=7):
    """A smooth random image in [0, 1], 3 x size x size."""
    g = rng.random((3, grid, grid))
    t = np.linspace(0, grid - 1, size)
    i0 = np.floor(t).astype(int).clip(0, grid - 2)
    f = t - i0
    rows = g[:, i0, :] * (1 - f)[None, :, None] + g[:, i0 + 1, :] * f[None, :, None]
    img = rows[:, :, i0] * (1 - f)[None, None, :] + rows[:, :, i0 + 1] * f[None, None, :]
    img += rng.normal(0, 0.05, img.shape)
    return img.clip(0, 1)


def write_samples(folder, count, seed, input_name="input"):
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    mean = np.array([0.485, 0.456, 0.406])[:, None, None]
    std = np.array([0.229, 0.224, 0.225])[:, None, None]
    paths = []
    for i in range(count):
        x = ((colour_field(rng) - mean) / std)[None].astype(np.float32)
        p = os.path.join(folder, f"s{i}.npz")
        np.savez(p, **{input_name: x})
        paths.append(p)
    return paths


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {r.stderr}")
    return r.stdout + r.stderr


def ort_qdq(onnx_path, samples, out):
    """ONNX Runtime's int8 model of the network: quantize_static in QDQ
    format (uint8 activations, per-channel int8 weights: its fast x86
    form), calibrated (min/max) on the same samples; None without
    onnxruntime."""
    try:
        from onnxruntime import quantization as q
    except ImportError:
        return None
    if os.path.exists(out):
        return out

    class Reader(q.CalibrationDataReader):
        def __init__(self):
            self.it = iter(samples)

        def get_next(self):
            p = next(self.it, None)
            return None if p is None else dict(np.load(p))

    q.quantize_static(onnx_path, out, Reader(), quant_format=q.QuantFormat.QDQ,
                      per_channel=True, activation_type=q.QuantType.QUInt8,
                      weight_type=q.QuantType.QInt8)
    return out


def kernel_counts(report):
    kernels = sum(int(n) for n in re.findall(r"kernel '[^']+': (\d+) dispatch", report))
    total = int(re.search(r"dispatches: (\d+)", report).group(1))
    return kernels, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="resnet50,mobilenetv2")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--calibrate", type=int, default=8)
    ap.add_argument("--evaluate", type=int, default=3)
    ap.add_argument("--method", default="percentile")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench-cpu"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--isa", default="", help="STRATA_CPU_ISA for strata run")
    ap.add_argument("--check-ref", action="store_true",
                    help="also check the compiled int8 outputs against `strata run-ref` on "
                         "the quantized model, bit for bit (minutes for ResNet-50)")
    ap.add_argument("--no-ort", action="store_true",
                    help="skip ONNX Runtime (f32, and int8: its quantize_static QDQ model)")
    args = ap.parse_args()
    strata = os.path.join(args.bin, "strata")
    models = args.models.split(",")
    ensure_models(args.work, models)
    env = dict(os.environ)
    if args.isa:
        env["STRATA_CPU_ISA"] = args.isa
    cal = write_samples(os.path.join(args.work, "int8_cal"), args.calibrate, seed=1)
    evals = write_samples(os.path.join(args.work, "int8_eval"), args.evaluate, seed=2)
    rows = []
    for m in models:
        onnx_path = os.path.join(args.work, m + ".onnx")
        table = os.path.join(args.work, m + "_table.txt")
        run([strata, "calibrate", onnx_path, "--data", os.path.dirname(cal[0]),
             "--method", args.method, "-o", table])
        arts = {}
        counts = {}
        for mode in ("f32", "int8", "bf16"):
            art = os.path.join(args.work, f"{m}_{mode}.strata")
            extra = (["--quantize", "int8", "--calibration", table] if mode == "int8"
                     else ["--quantize", "bf16"] if mode == "bf16" else [])
            counts[mode] = kernel_counts(run([strata, "compile", onnx_path, "--target", "cpu",
                                              "-o", art, "--report", *extra]))
            arts[mode] = art
        if args.check_ref:
            qdir = os.path.join(args.work, m + "_int8_top")
            run([strata, "quantize", onnx_path, "--quantize", "int8", "--calibration", table,
                 "-o", qdir, "--name", m])
            ref = os.path.join(args.work, m + "_ref.npz")
            got = os.path.join(args.work, m + "_int8_cpu.npz")
            run([strata, "run-ref", os.path.join(qdir, m + ".mlir"), "--input", evals[0],
                 "--output", ref])
            run([strata, "run", arts["int8"], "--input", evals[0], "--output", got])
            a, b = np.load(ref), np.load(got)
            same = all(np.array_equal(a[k], b[k]) for k in a.files)
            print(f"{m}: compiled int8 {'equals' if same else 'DIFFERS FROM'} run-ref",
                  file=sys.stderr)
            if not same:
                sys.exit(1)
        # Accuracy: the int8 and bf16 models' outputs against the f32 model's.
        cosines, top1, bf16_cos = [], 0, []
        for p in evals:
            outs = {}
            for mode, art in arts.items():
                o = os.path.join(args.work, f"{m}_{mode}_out.npz")
                run([strata, "run", art, "--input", p, "--output", o])
                z = np.load(o)
                outs[mode] = np.concatenate([z[k].ravel() for k in sorted(z.files)])
            a, b = outs["f32"].astype(np.float64), outs["int8"].astype(np.float64)
            cosines.append(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))
            h = outs["bf16"].astype(np.float64)
            bf16_cos.append(float(a @ h / (np.linalg.norm(a) * np.linalg.norm(h))))
            top1 += int(np.argmax(a) == np.argmax(b))
        ort_model = None
        if not args.no_ort:
            ort_model = ort_qdq(onnx_path, cal, os.path.join(args.work, m + "_ort_qdq.onnx"))
        for t in (int(x) for x in args.threads.split(",")):
            times = {"f32": [], "int8": [], "bf16": []}
            for _ in range(args.rounds):
                for mode in ("f32", "int8", "bf16"):
                    times[mode].append(time_strata(strata, arts[mode], evals[0],
                                                   os.path.join(args.work, "bench_out.npz"),
                                                   t, args.repeat, env))
            fw, fc = min(times["f32"], key=lambda x: x[1])
            iw, ic = min(times["int8"], key=lambda x: x[1])
            bw, bc = min(times["bf16"], key=lambda x: x[1])
            of = oi = float("nan")
            if ort_model:
                feeds = dict(np.load(evals[0]))
                of = min(time_ort(onnx_path, feeds, t, args.repeat)[1]
                         for _ in range(args.rounds))
                oi = min(time_ort(ort_model, feeds, t, args.repeat)[1]
                         for _ in range(args.rounds))
            rows.append((m, t, fw, iw, fc, ic, min(cosines), top1, len(evals),
                         counts["int8"], of, oi, bc, min(bf16_cos)))
            print(f"{m} {t}T: f32 {fw:.1f} ms ({fc:.1f} CPU), int8 {iw:.1f} ms "
                  f"({ic:.1f} CPU), cosine {min(cosines):.5f}, bf16 {bw:.1f} ms ({bc:.1f} CPU), "
                  f"cosine {min(bf16_cos):.6f}", file=sys.stderr)
    print("wall: median ms per run; cpu: CPU ms per run; cosine: minimum over the "
          "evaluation samples of int8 (bf16) vs f32 outputs")
    print(f"{'model':<12} {'thr':>3} {'f32':>8} {'int8':>8} {'f32 cpu':>8} {'int8 cpu':>8} "
          f"{'speedup':>7} {'cosine':>8} {'top-1':>6} {'int8 kernel/all':>15} "
          f"{'ort f32 cpu':>11} {'ort int8 cpu':>12} {'bf16 cpu':>8} {'bf16 cos':>8}")
    for m, t, fw, iw, fc, ic, cos, top1, n, (k, total), of, oi, bc, bcos in rows:
        print(f"{m:<12} {t:>3} {fw:>8.1f} {iw:>8.1f} {fc:>8.1f} {ic:>8.1f} "
              f"{fc / ic:>6.2f}x {cos:>8.5f} {top1:>3}/{n:<2} {k:>8}/{total} "
              f"{of:>11.1f} {oi:>12.1f} {bc:>8.1f} {bcos:>8.6f}")


if __name__ == "__main__":
    main()
