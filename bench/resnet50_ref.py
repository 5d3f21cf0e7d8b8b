#!/usr/bin/env python3
"""Times the reference interpreter on a ResNet-50 written directly as Top IR
(seeded random weights, batch 1, 224x224), the size the issue asks
`strata run-ref` to handle in seconds.

    .venv/bin/python bench/resnet50_ref.py [--bin build/bin] [--repeat 3]
"""
import argparse
import os
import subprocess
import tempfile
import time

import numpy as np


class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.weights = {}
        self.n = 0

    def t(self, shape):
        return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"

    def weight(self, name, shape, scale):
        self.weights[name] = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.lines.append(f'%{name} = top.Weight() {{name = "{name}"}} : () -> {self.t(shape)}')
        return f"%{name}"

    def conv(self, x, xs, oc, k, s, relu):
        self.n += 1
        ic = xs[1]
        w = self.weight(f"w{self.n}", (oc, ic, k, k), np.sqrt(2.0 / (ic * k * k)))
        b = self.weight(f"b{self.n}", (oc,), 0.01)
        p = k // 2
        oh = (xs[2] + 2 * p - k) // s + 1
        os_ = (xs[0], oc, oh, oh)
        v = f"%c{self.n}"
        self.lines.append(
            f"{v} = top.Conv({x}, {w}, {b}) {{kernel_shape = array<i64: {k}, {k}>, "
            f"strides = array<i64: {s}, {s}>, pads = array<i64: {p}, {p}, {p}, {p}>, "
            f"do_relu = {'true' if relu else 'false'}}} : ({self.t(xs)}, {self.t((oc, ic, k, k))}, "
            f"{self.t((oc,))}) -> {self.t(os_)}")
        return v, os_

    def add_relu(self, a, b, s):
        self.n += 1
        v = f"%a{self.n}"
        self.lines.append(f"{v} = top.Add({a}, {b}) {{do_relu = true}} : ({self.t(s)}, {self.t(s)}) -> {self.t(s)}")
        return v


def resnet50(rng):
    b = Builder(rng)
    xs = (1, 3, 224, 224)
    x, s = b.conv("%x", xs, 64, 7, 2, True)
    b.lines.append(f"%pool = top.MaxPool({x}) {{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, "
                   f"pads = array<i64: 1, 1, 1, 1>}} : ({b.t(s)}) -> {b.t((1, 64, 56, 56))}")
    x, s = "%pool", (1, 64, 56, 56)
    for stage, (mid, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]):
        for i in range(blocks):
            st = stride if i == 0 else 1
            y, ys = b.conv(x, s, mid, 1, 1, True)
            y, ys = b.conv(y, ys, mid, 3, st, True)
            y, ys = b.conv(y, ys, mid * 4, 1, 1, False)
            if i == 0:
                sc, _ = b.conv(x, s, mid * 4, 1, st, False)
            else:
                sc = x
            x, s = b.add_relu(y, sc, ys), ys
    b.lines.append(f"%gap = top.GlobalAvgPool({x}) : ({b.t(s)}) -> {b.t((1, 2048, 1, 1))}")
    b.lines.append(f"%flat = top.Reshape(%gap) {{shape = array<i64: 1, 2048>}} : ({b.t((1, 2048, 1, 1))}) -> {b.t((1, 2048))}")
    fw = b.weight("fc_w", (2048, 1000), 0.02)
    fb = b.weight("fc_b", (1000,), 0.01)
    b.lines.append(f"%logits = top.MatMul(%flat, {fw}, {fb}) : ({b.t((1, 2048))}, {b.t((2048, 1000))}, "
                   f"{b.t((1000,))}) -> {b.t((1, 1000))}")
    body = "\n    ".join([f"%x = top.Input(%arg0) : ({b.t(xs)}) -> {b.t(xs)}"] + b.lines +
                         [f"return %logits : {b.t((1, 1000))}"])
    text = (f'module attributes {{top.weight_file = "w.npz", top.name = "resnet50"}} {{\n'
            f'  func.func @main(%arg0: {b.t(xs)} {{top.name = "x"}}) -> ({b.t((1, 1000))} {{top.name = "logits"}}) {{\n'
            f"    {body}\n  }}\n}}\n")
    return text, b.weights


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    text, weights = resnet50(rng)
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "m.mlir"), "w").write(text)
        np.savez(os.path.join(d, "w.npz"), **weights)
        np.savez(os.path.join(d, "in.npz"), x=rng.standard_normal((1, 3, 224, 224)).astype(np.float32))
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            subprocess.run([os.path.join(args.bin, "strata"), "run-ref", os.path.join(d, "m.mlir"),
                            "--input", os.path.join(d, "in.npz"), "--output", os.path.join(d, "out.npz")],
                           check=True)
            times.append(time.perf_counter() - t0)
        out = np.load(os.path.join(d, "out.npz"))["logits"]
    gflop = 2 * 4.1  # ~4.1 GMAC for ResNet-50 at 224x224
    best = min(times)
    print(f"resnet50 run-ref: best {best:.2f} s of {args.repeat} "
          f"(~{gflop / best:.1f} GFLOP/s), output finite: {bool(np.isfinite(out).all())}")


if __name__ == "__main__":
    main()
