#!/usr/bin/env python3
"""Writes the hand-made TOSA test models (TOSA 1.0 as MLIR 22 prints it).

No TFLite -> TOSA converter runs here (docs/tosa.md, "Converters"), so these
models are written by hand in the shape TFLite's converter gives: NHWC,
int8 with explicit zero points and per-channel rescales, weights as
tosa.const. Weights come from a fixed seed; rerun to regenerate:

    .venv/bin/python test/tosa/models/gen_models.py   # writes *.mlir, *.mlirbc

qcnn.mlir   int8 CNN: conv2d -> per-channel rescale -> clamp -> depthwise
            conv2d -> rescale -> avg_pool2d -> reshape -> matmul -> rescale
            -> table (a quantized sigmoid).
mlp.mlir    float MLP: matmul, bias add, relu (clamp), matmul, softmax
            (reduce_max, sub, exp, reduce_sum, reciprocal, mul); also
            written as MLIR bytecode (mlp.mlirbc) to test that path.
cnn.mlir    float CNN: conv2d, depthwise_conv2d, max_pool2d, the NHWC ->
            NCHW transpose TFLite writes before flattening, matmul.
"""
import os
import subprocess

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ELEM = {np.dtype("float32"): "f32", np.dtype("int8"): "i8", np.dtype("int32"): "i32",
        np.dtype("int16"): "i16"}


def ttype(shape, elem):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


class Writer:
    def __init__(self):
        self.lines = []
        self.n = 0

    def const(self, a, name=None):
        self.n += 1
        v = f"%{name or 'c'}{self.n}"
        t = ttype(a.shape, ELEM[a.dtype])
        raw = np.ascontiguousarray(a).tobytes().hex().upper()
        body = f'"0x{raw}"' if a.size > 1 else str(a.flat[0])
        self.lines.append(f'    {v} = "tosa.const"() {{values = dense<{body}> : {t}}} : () -> {t}')
        return v

    def shape(self, values):
        self.n += 1
        v = f"%s{self.n}"
        self.lines.append(f"    {v} = tosa.const_shape {{values = dense<[{', '.join(map(str, values))}]>"
                          f" : tensor<{len(values)}xindex>}} : () -> !tosa.shape<{len(values)}>")
        return v

    def op(self, text):
        self.n += 1
        v = f"%v{self.n}"
        self.lines.append(f"    {v} = {text}")
        return v


def zp(w, v, dt):
    return w.const(np.array([v], dt))


def rescale(w, x, tin, tout, mult, shift, izp, ozp, shape, per_channel):
    m = w.const(np.array(mult, np.int32))
    s = w.const(np.array(shift, np.int8))
    iz = zp(w, izp, {"i32": np.int32, "i8": np.int8}[tin])
    oz = zp(w, ozp, {"i32": np.int32, "i8": np.int8}[tout])
    n = len(mult)
    return w.op(f"tosa.rescale {x}, {m}, {s}, {iz}, {oz} {{scale32 = true, rounding_mode = DOUBLE_ROUND, "
                f"per_channel = {str(per_channel).lower()}, input_unsigned = false, output_unsigned = false}} : "
                f"({ttype(shape, tin)}, tensor<{n}xi32>, tensor<{n}xi8>, tensor<1x{tin}>, tensor<1x{tout}>) "
                f"-> {ttype(shape, tout)}")


def qcnn(rng):
    w = Writer()
    x = "%arg0"
    # conv2d 3x3, 3 -> 8, pad 1: i8 x i8 -> i32, input zero point -128.
    wt = w.const(rng.integers(-127, 128, (8, 3, 3, 3)).astype(np.int8))
    b = w.const(rng.integers(-2000, 2000, 8).astype(np.int32))
    c = w.op(f"tosa.conv2d {x}, {wt}, {b}, {zp(w, -128, np.int8)}, {zp(w, 0, np.int8)} {{acc_type = i32, "
             "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : "
             "(tensor<1x8x8x3xi8>, tensor<8x3x3x3xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>")
    mult = rng.integers(1 << 30, (1 << 31) - 1, 8)
    shift = rng.integers(39, 42, 8)
    r = rescale(w, c, "i32", "i8", mult, shift, 0, -128, (1, 8, 8, 8), True)
    r = w.op(f"tosa.clamp {r} {{min_val = -128 : i8, max_val = 100 : i8}} : "
             "(tensor<1x8x8x8xi8>) -> tensor<1x8x8x8xi8>")
    # depthwise 3x3 stride 2, multiplier 1.
    dw = w.const(rng.integers(-127, 128, (3, 3, 8, 1)).astype(np.int8))
    db = w.const(rng.integers(-500, 500, 8).astype(np.int32))
    d = w.op(f"tosa.depthwise_conv2d {r}, {dw}, {db}, {zp(w, -128, np.int8)}, {zp(w, 0, np.int8)} {{acc_type = i32, "
             "pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : "
             "(tensor<1x8x8x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>")
    r = rescale(w, d, "i32", "i8", rng.integers(1 << 30, (1 << 31) - 1, 8),
                rng.integers(37, 40, 8), 0, -10, (1, 4, 4, 8), True)
    p = w.op(f"tosa.avg_pool2d {r}, {zp(w, -10, np.int8)}, {zp(w, -10, np.int8)} {{acc_type = i32, "
             "kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : "
             "(tensor<1x4x4x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x8xi8>")
    f = w.op(f"tosa.reshape {p}, {w.shape([1, 1, 32])} : (tensor<1x2x2x8xi8>, !tosa.shape<3>) -> tensor<1x1x32xi8>")
    fw = w.const(rng.integers(-127, 128, (1, 32, 10)).astype(np.int8))
    mm = w.op(f"tosa.matmul {f}, {fw}, {zp(w, -10, np.int8)}, {zp(w, 0, np.int8)} : "
              "(tensor<1x1x32xi8>, tensor<1x32x10xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x10xi32>")
    fb = w.const(rng.integers(-3000, 3000, (1, 1, 10)).astype(np.int32))
    mm = w.op(f"tosa.add {mm}, {fb} : (tensor<1x1x10xi32>, tensor<1x1x10xi32>) -> tensor<1x1x10xi32>")
    r = rescale(w, mm, "i32", "i8", [1518500250], [44], 0, 5, (1, 1, 10), False)
    table = np.round(255 / (1 + np.exp(-(np.arange(-128, 128) - 5) / 16.0)) - 128)
    t = w.op(f"tosa.table {r}, {w.const(table.astype(np.int8))} : (tensor<1x1x10xi8>, tensor<256xi8>) -> tensor<1x1x10xi8>")
    out = w.op(f"tosa.reshape {t}, {w.shape([1, 10])} : (tensor<1x1x10xi8>, !tosa.shape<2>) -> tensor<1x10xi8>")
    return ("func.func @main(%arg0: tensor<1x8x8x3xi8>) -> tensor<1x10xi8> {\n"
            + "\n".join(w.lines) + f"\n    return {out} : tensor<1x10xi8>\n}}\n")


def mlp(rng):
    w = Writer()
    x = w.op(f"tosa.reshape %arg0, {w.shape([1, 1, 16])} : (tensor<1x16xf32>, !tosa.shape<3>) -> tensor<1x1x16xf32>")
    z = w.const(np.array([0.0], np.float32))
    h = w.op(f"tosa.matmul {x}, {w.const((rng.standard_normal((1, 16, 32)) / 4).astype(np.float32))}, {z}, {z} : "
             "(tensor<1x1x16xf32>, tensor<1x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x32xf32>")
    h = w.op(f"tosa.add {h}, {w.const((rng.standard_normal((1, 1, 32)) / 4).astype(np.float32))} : "
             "(tensor<1x1x32xf32>, tensor<1x1x32xf32>) -> tensor<1x1x32xf32>")
    h = w.op(f"tosa.clamp {h} {{min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32}} : "
             "(tensor<1x1x32xf32>) -> tensor<1x1x32xf32>")
    o = w.op(f"tosa.matmul {h}, {w.const((rng.standard_normal((1, 32, 8)) / 4).astype(np.float32))}, {z}, {z} : "
             "(tensor<1x1x32xf32>, tensor<1x32x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x8xf32>")
    o = w.op(f"tosa.add {o}, {w.const((rng.standard_normal((1, 1, 8)) / 4).astype(np.float32))} : "
             "(tensor<1x1x8xf32>, tensor<1x1x8xf32>) -> tensor<1x1x8xf32>")
    m = w.op(f"tosa.reduce_max {o} {{axis = 2 : i32}} : (tensor<1x1x8xf32>) -> tensor<1x1x1xf32>")
    e = w.op(f"tosa.sub {o}, {m} : (tensor<1x1x8xf32>, tensor<1x1x1xf32>) -> tensor<1x1x8xf32>")
    e = w.op(f"tosa.exp {e} : (tensor<1x1x8xf32>) -> tensor<1x1x8xf32>")
    s = w.op(f"tosa.reduce_sum {e} {{axis = 2 : i32}} : (tensor<1x1x8xf32>) -> tensor<1x1x1xf32>")
    s = w.op(f"tosa.reciprocal {s} : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>")
    y = w.op(f"tosa.mul {e}, {s}, {w.const(np.array([0], np.int8))} : "
             "(tensor<1x1x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x8xf32>")
    y = w.op(f"tosa.reshape {y}, {w.shape([1, 8])} : (tensor<1x1x8xf32>, !tosa.shape<2>) -> tensor<1x8xf32>")
    return ("func.func @main(%arg0: tensor<1x16xf32>) -> tensor<1x8xf32> {\n"
            + "\n".join(w.lines) + f"\n    return {y} : tensor<1x8xf32>\n}}\n")


def cnn(rng):
    w = Writer()
    z = w.const(np.array([0.0], np.float32))
    c = w.op(f"tosa.conv2d %arg0, {w.const((rng.standard_normal((6, 3, 3, 3)) / 3).astype(np.float32))}, "
             f"{w.const((rng.standard_normal(6) / 4).astype(np.float32))}, {z}, {z} {{acc_type = f32, "
             "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : "
             "(tensor<1x8x8x3xf32>, tensor<6x3x3x3xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x6xf32>")
    c = w.op(f"tosa.clamp {c} {{min_val = 0.0 : f32, max_val = 6.0 : f32}} : (tensor<1x8x8x6xf32>) -> tensor<1x8x8x6xf32>")
    d = w.op(f"tosa.depthwise_conv2d {c}, {w.const((rng.standard_normal((3, 3, 6, 2)) / 3).astype(np.float32))}, "
             f"{w.const((rng.standard_normal(12) / 4).astype(np.float32))}, {z}, {z} {{acc_type = f32, "
             "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : "
             "(tensor<1x8x8x6xf32>, tensor<3x3x6x2xf32>, tensor<12xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x12xf32>")
    p = w.op(f"tosa.max_pool2d {d} {{kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>}} : "
             "(tensor<1x8x8x12xf32>) -> tensor<1x4x4x12xf32>")
    t = w.op(f"tosa.transpose {p} {{perms = array<i32: 0, 3, 1, 2>}} : (tensor<1x4x4x12xf32>) -> tensor<1x12x4x4xf32>")
    f = w.op(f"tosa.reshape {t}, {w.shape([1, 1, 192])} : (tensor<1x12x4x4xf32>, !tosa.shape<3>) -> tensor<1x1x192xf32>")
    o = w.op(f"tosa.matmul {f}, {w.const((rng.standard_normal((1, 192, 5)) / 10).astype(np.float32))}, {z}, {z} : "
             "(tensor<1x1x192xf32>, tensor<1x192x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x5xf32>")
    o = w.op(f"tosa.reshape {o}, {w.shape([1, 5])} : (tensor<1x1x5xf32>, !tosa.shape<2>) -> tensor<1x5xf32>")
    return ("func.func @main(%arg0: tensor<1x8x8x3xf32>) -> tensor<1x5xf32> {\n"
            + "\n".join(w.lines) + f"\n    return {o} : tensor<1x5xf32>\n}}\n")


def main():
    rng = np.random.default_rng(20261128)
    for name, fn in (("qcnn", qcnn), ("mlp", mlp), ("cnn", cnn)):
        path = os.path.join(HERE, name + ".mlir")
        with open(path, "w") as f:
            f.write(f"// Generated by gen_models.py (hand-written TOSA; see its docstring).\n{fn(rng)}")
        subprocess.run(["/usr/lib/llvm-22/bin/mlir-opt", path, "-o", os.devnull], check=True)
    subprocess.run(["/usr/lib/llvm-22/bin/mlir-opt", os.path.join(HERE, "mlp.mlir"), "--emit-bytecode",
                    "-o", os.path.join(HERE, "mlp.mlirbc")], check=True)


if __name__ == "__main__":
    main()
