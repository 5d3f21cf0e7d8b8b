"""TOSA convolutions, matmul and pools through convert-tosa-to-top against
MLIR's own TOSA lowering (tosa_harness.py): exact for integers, rtol 1e-5 for
floats. Zero points, strides, dilations, asymmetric pads and the integer
average pool's reciprocal scale are exercised."""
import numpy as np
import pytest

from tosa_harness import check, dense, ttype


def const(name, a):
    """A tosa.const line holding `a`."""
    d = dense(a)
    return f'  %{name} = "tosa.const"() {{values = {d}}} : () -> {d.split(" : ")[1]}\n'


def zp(name, v, elem):
    dt = {"i8": np.int8, "i16": np.int16, "f32": np.float32}[elem]
    return const(name, np.array([v], dtype=dt))


def rand(rng, shape, elem):
    if elem == "f32":
        return rng.standard_normal(shape).astype(np.float32)
    if elem == "i8":
        return rng.integers(-128, 128, shape).astype(np.int8)
    return rng.integers(-1000, 1000, shape).astype(np.int32)


CONV_CASES = [
    # elem, input shape, weight shape, pad, stride, dilation, zps
    ("f32", (1, 7, 6, 3), (4, 3, 3, 3), (1, 1, 1, 1), (1, 1), (1, 1), (0, 0)),
    ("f32", (2, 9, 8, 2), (5, 3, 2, 2), (0, 2, 1, 0), (2, 1), (1, 2), (0, 0)),
    ("i8", (1, 6, 6, 3), (4, 3, 3, 3), (1, 0, 0, 1), (1, 2), (1, 1), (-7, 3)),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_conv2d(case, rng):
    elem, ishape, wshape, pad, stride, dil, (izp, wzp) = case
    acc = "f32" if elem == "f32" else "i32"
    n, h, w, _ = ishape
    oc, kh, kw, _ = wshape
    oh = (h + pad[0] + pad[1] - (kh - 1) * dil[0] - 1) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - (kw - 1) * dil[1] - 1) // stride[1] + 1
    ti, to = ttype(ishape, elem), ttype((n, oh, ow, oc), acc)
    wt, bias = rand(rng, wshape, elem), rand(rng, (oc,), acc)
    func = (f"func.func @main(%x: {ti}) -> {to} {{\n" + const("w", wt) + const("b", bias)
            + zp("iz", izp, elem) + zp("wz", wzp, elem)
            + f"  %0 = tosa.conv2d %x, %w, %b, %iz, %wz {{acc_type = {acc}, "
            f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {stride[0]}, {stride[1]}>, "
            f"dilation = array<i64: {dil[0]}, {dil[1]}>}} : ({ti}, {ttype(wshape, elem)}, "
            f"{ttype((oc,), acc)}, {ttype((1,), elem)}, {ttype((1,), elem)}) -> {to}\n"
            f"  return %0 : {to}\n}}")
    text = check(func, [rand(rng, ishape, elem)])
    assert "top.Conv" in text and "NHWC" in text


def test_conv2d_one_value_bias(rng):
    ti, to = ttype((1, 5, 5, 2), "f32"), ttype((1, 5, 5, 3), "f32")
    func = (f"func.func @main(%x: {ti}) -> {to} {{\n"
            + const("w", rand(rng, (3, 1, 1, 2), "f32"))
            + const("b", np.array([0.25], np.float32)) + zp("z", 0, "f32")
            + f"  %0 = tosa.conv2d %x, %w, %b, %z, %z {{acc_type = f32, pad = array<i64: 0, 0, 0, 0>, "
            f"stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>}} : ({ti}, tensor<3x1x1x2xf32>, "
            f"tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> {to}\n  return %0 : {to}\n}}")
    check(func, [rand(rng, (1, 5, 5, 2), "f32")])


def test_conv3d(rng):
    ti, to = ttype((1, 4, 5, 5, 2), "f32"), ttype((1, 4, 3, 5, 3), "f32")
    wt = ttype((3, 2, 3, 3, 2), "f32")
    func = (f"func.func @main(%x: {ti}) -> {to} {{\n"
            + const("w", rand(rng, (3, 2, 3, 3, 2), "f32"))
            + const("b", rand(rng, (3,), "f32")) + zp("z", 0, "f32")
            + f"  %0 = tosa.conv3d %x, %w, %b, %z, %z {{acc_type = f32, pad = array<i64: 1, 0, 0, 0, 1, 1>, "
            f"stride = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>}} : ({ti}, {wt}, "
            f"tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> {to}\n  return %0 : {to}\n}}")
    check(func, [rand(rng, (1, 4, 5, 5, 2), "f32")])


@pytest.mark.parametrize("elem", ["f32", "i8"])
def test_depthwise_conv2d(elem, rng):
    acc = "f32" if elem == "f32" else "i32"
    c, m = 3, 2
    ti, to = ttype((1, 6, 7, c), elem), ttype((1, 3, 7, c * m), acc)
    wt = ttype((3, 3, c, m), elem)
    izp, wzp = (0, 0) if elem == "f32" else (5, -2)
    func = (f"func.func @main(%x: {ti}) -> {to} {{\n"
            + const("w", rand(rng, (3, 3, c, m), elem)) + const("b", rand(rng, (c * m,), acc))
            + zp("iz", izp, elem) + zp("wz", wzp, elem)
            + f"  %0 = tosa.depthwise_conv2d %x, %w, %b, %iz, %wz {{acc_type = {acc}, "
            f"pad = array<i64: 1, 0, 1, 1>, stride = array<i64: 2, 1>, dilation = array<i64: 1, 1>}} : "
            f"({ti}, {wt}, {ttype((c * m,), acc)}, {ttype((1,), elem)}, {ttype((1,), elem)}) -> {to}\n"
            f"  return %0 : {to}\n}}")
    check(func, [rand(rng, (1, 6, 7, c), elem)])


@pytest.mark.parametrize("out_pad", [(0, 0, 0, 0), (-1, 0, 0, -1), (1, 2, 0, 1)])
def test_transpose_conv2d(out_pad, rng):
    ih, iw, kh, kw, s = 4, 3, 3, 2, (2, 2)
    oh = (ih - 1) * s[0] + out_pad[0] + out_pad[1] + kh
    ow = (iw - 1) * s[1] + out_pad[2] + out_pad[3] + kw
    ti, to = ttype((1, ih, iw, 2), "f32"), ttype((1, oh, ow, 3), "f32")
    func = (f"func.func @main(%x: {ti}) -> {to} {{\n"
            + const("w", rand(rng, (3, kh, kw, 2), "f32")) + const("b", rand(rng, (3,), "f32"))
            + zp("z", 0, "f32")
            + f"  %0 = tosa.transpose_conv2d %x, %w, %b, %z, %z {{acc_type = f32, "
            f"out_pad = array<i64: {', '.join(map(str, out_pad))}>, stride = array<i64: 2, 2>}} : "
            f"({ti}, {ttype((3, kh, kw, 2), 'f32')}, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> {to}\n"
            f"  return %0 : {to}\n}}")
    check(func, [rand(rng, (1, ih, iw, 2), "f32")])


@pytest.mark.parametrize("elem", ["f32", "i8"])
def test_matmul(elem, rng):
    acc = "f32" if elem == "f32" else "i32"
    ta, tb, to = ttype((2, 3, 5), elem), ttype((2, 5, 4), elem), ttype((2, 3, 4), acc)
    azp, bzp = (0, 0) if elem == "f32" else (3, -9)
    func = (f"func.func @main(%a: {ta}, %b: {tb}) -> {to} {{\n" + zp("az", azp, elem)
            + zp("bz", bzp, elem)
            + f"  %0 = tosa.matmul %a, %b, %az, %bz : ({ta}, {tb}, {ttype((1,), elem)}, "
            f"{ttype((1,), elem)}) -> {to}\n  return %0 : {to}\n}}")
    check(func, [rand(rng, (2, 3, 5), elem), rand(rng, (2, 5, 4), elem)])


@pytest.mark.parametrize("elem", ["f32", "i8"])
def test_max_pool2d(elem, rng):
    ti, to = ttype((1, 7, 6, 3), elem), ttype((1, 4, 3, 3), elem)
    func = (f"func.func @main(%x: {ti}) -> {to} {{\n"
            f"  %0 = tosa.max_pool2d %x {{kernel = array<i64: 3, 2>, stride = array<i64: 2, 2>, "
            f"pad = array<i64: 1, 1, 0, 0>}} : ({ti}) -> {to}\n  return %0 : {to}\n}}")
    check(func, [rand(rng, (1, 7, 6, 3), elem)])


@pytest.mark.parametrize("elem,zps", [("f32", (0, 0)), ("i8", (0, 0)), ("i8", (-3, 7))])
def test_avg_pool2d(elem, zps, rng):
    acc = "f32" if elem == "f32" else "i32"
    ti, to = ttype((1, 7, 7, 2), elem), ttype((1, 4, 4, 2), elem)
    func = (f"func.func @main(%x: {ti}) -> {to} {{\n" + zp("iz", zps[0], elem)
            + zp("oz", zps[1], elem)
            + f"  %0 = tosa.avg_pool2d %x, %iz, %oz {{acc_type = {acc}, kernel = array<i64: 3, 3>, "
            f"stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>}} : ({ti}, "
            f"{ttype((1,), elem)}, {ttype((1,), elem)}) -> {to}\n  return %0 : {to}\n}}")
    check(func, [rand(rng, (1, 7, 7, 2), elem)])
