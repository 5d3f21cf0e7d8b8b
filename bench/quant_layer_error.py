#!/usr/bin/env python3
"""Per-layer int8 error of a model on one input: which tensors lose most.

Writes the optimized f32 Top model (`strata compile MODEL -o DIR`) and the
int8 one (`strata quantize MODEL --quantize int8 --calibration TABLE`),
runs both through the reference interpreter with every intermediate tensor
dumped (`strata run-ref --dump-all`) and compares the float tensors of the
same name (the quantized model's float values: Dequant results, float ops
between int8 ones, fused-activation outputs), in program order:

- cosine: of the flattened tensors;
- rel-rms: RMS of the difference over RMS of the f32 tensor;
- chan-bias: the share of the squared error that is a constant per channel
  (dim 1), which bias correction addresses;
- range: the f32 tensor's min and max.

    python bench/quant_layer_error.py MODEL --calibration table.txt --input x.npz
        [--input-shapes name:DxD...] [--keep-float NAMES] [--worst N]
        [--options="QUANTIZE OPTIONS"]  (more `strata quantize` options, e.g.
                                         "--table-input int16")
        [--work build/quant-layer-error] [--bin build/bin]

docs/quantization.md "Accuracy" quotes its findings for PP-OCRv4 det and
YOLOX. Needs only numpy.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{r.stderr}")


def program_order(mlir_text):
    """Tensor names in the order their NameLoc definitions appear."""
    order = {}
    for name in re.findall(r'^#loc\d+ = loc\("([^"]+)"', mlir_text, re.M):
        order.setdefault(name, len(order))
    return order


def compare(f, q):
    a = f.astype(np.float64)
    b = q.astype(np.float64).reshape(a.shape)
    d = b - a
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    cos = float(a.ravel() @ b.ravel() / (na * nb)) if na > 0 and nb > 0 else float(na == nb)
    rms = np.sqrt((a ** 2).mean())
    rel = float(np.sqrt((d ** 2).mean()) / rms) if rms > 0 else 0.0
    chan = 0.0
    if a.ndim >= 2 and (d ** 2).sum() > 0:
        axes = tuple(i for i in range(a.ndim) if i != 1)
        chan = float((d.mean(axis=axes) ** 2).sum() * (a.size / a.shape[1]) / (d ** 2).sum())
    return cos, rel, chan, float(a.min()), float(a.max())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--calibration", required=True)
    ap.add_argument("--input", required=True, help="npz with the model's inputs")
    ap.add_argument("--input-shapes", default="")
    ap.add_argument("--keep-float", default="")
    ap.add_argument("--options", default="",
                    help="more strata quantize options, one string")
    ap.add_argument("--worst", type=int, default=0,
                    help="also list the N tensors of lowest cosine")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "quant-layer-error"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = ap.parse_args()
    strata = os.path.join(args.bin, "strata")
    shapes = ["--input-shapes", args.input_shapes] if args.input_shapes else []
    keep = ["--keep-float", args.keep_float] if args.keep_float else []
    fdir, qdir = os.path.join(args.work, "f32"), os.path.join(args.work, "int8")
    run([strata, "compile", args.model, *shapes, "-o", fdir, "--name", "m"])
    run([strata, "quantize", args.model, *shapes, "--quantize", "int8",
         "--calibration", args.calibration, *keep, *args.options.split(), "-o", qdir, "--name", "m"])
    fd, qd = os.path.join(args.work, "f32.npz"), os.path.join(args.work, "int8.npz")
    run([strata, "run-ref", os.path.join(fdir, "m.mlir"), "--input", args.input,
         "--output", fd, "--dump-all"])
    run([strata, "run-ref", os.path.join(qdir, "m.mlir"), "--input", args.input,
         "--output", qd, "--dump-all"])
    f, q = np.load(fd), np.load(qd)
    order = program_order(open(os.path.join(fdir, "m.mlir")).read())
    rows = []
    for k in f.files:
        if k not in q.files or f[k].dtype.kind != "f" or q[k].dtype.kind != "f" or \
                f[k].size != q[k].size:
            continue
        rows.append((order.get(k, len(order)), k, *compare(f[k], q[k])))
    rows.sort()
    print("| tensor | cosine | rel-rms | chan-bias | range |")
    print("|---|---|---|---|---|")
    for _, k, cos, rel, chan, lo, hi in rows:
        print(f"| {k} | {cos:.5f} | {rel:.4f} | {chan:.2f} | [{lo:.4g}, {hi:.4g}] |")
    if args.worst:
        print(f"\nlowest cosine: " + ", ".join(
            f"{k} {cos:.5f}" for _, k, cos, *_ in sorted(rows, key=lambda r: r[2])[:args.worst]))


if __name__ == "__main__":
    main()
