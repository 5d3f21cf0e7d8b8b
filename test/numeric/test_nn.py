"""top.Deconv, Softmax/LogSoftmax, BatchNorm/LayerNorm/GroupNorm, Resize,
DepthToSpace/SpaceToDepth (and gemmF32's blocked path through Conv/MatMul)
against the numpy references in reference.py, on randomized data.

Tolerances: f32 results rtol 1e-4 / atol 1e-4 for accumulations (Deconv,
Conv, MatMul: summation order differs), rtol 1e-5 / atol 1e-5 for softmax,
norms and linear resize (f64 statistics, one f32 rounding); f64 rtol 1e-10;
nearest resize, DepthToSpace/SpaceToDepth and integer results exact."""
import numpy as np
import pytest

from numeric_harness import Model, mlir_type, run_ok
from reference import (batch_norm, conv_nd, deconv_nd, depth_to_space,
                       group_norm, layer_norm, resize, softmax, space_to_depth)


def arr(a):
    return ", ".join(str(int(v)) for v in a)


def farr(a):
    return ", ".join(repr(float(v)) for v in a)


def single_op(inputs, weights, line, out_dtype=np.float32):
    """Runs one op `%y = ...` whose result type is left unranked."""
    m = Model(inputs, weights)
    t = "tensor<*x" + mlir_type((), out_dtype)[7:]
    m.op(line.replace("RESULT", t))
    return run_ok(m, [("%y", "y", t)])["y"]


# ---------------------------------------------------------------------------
# Deconv
# ---------------------------------------------------------------------------

DECONV_CASES = [
    # (N, C, spatial, O, kernel, strides, pads, dilations, output_padding, group, bias, relu)
    (1, 3, (4, 4), 2, (3, 3), (1, 1), (0, 0, 0, 0), (1, 1), (0, 0), 1, True, False),
    (2, 4, (5, 3), 6, (3, 2), (2, 1), (1, 0, 0, 1), (1, 2), (1, 0), 2, True, True),
    (1, 4, (5, 5), 4, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), (1, 1), 4, False, False),  # depthwise
    (3, 2, (6,), 4, (4,), (3,), (1, 2), (2,), (2,), 1, True, False),                    # 1-d
    (1, 2, (3, 2, 3), 2, (2, 2, 1), (2, 1, 1), (0, 1, 0, 1, 0, 0), (1, 1, 1), (1, 0, 0), 1, False, True),  # 3-d
    (0, 3, (4, 4), 2, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (0, 0), 1, True, False),   # zero batch
    (1, 1, (1, 1), 1, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), (0, 0), 1, False, False),  # size-1
    (1, 16, (9, 7), 10, (4, 3), (2, 3), (1, 2, 0, 1), (1, 1), (1, 2), 2, True, False),  # tails
    (1, 64, (12, 11), 32, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), (1, 0), 1, True, False),  # blocked gemm
    (2, 6, (3, 4), 3, (2, 3), (1, 2), (2, 1, 1, 2), (3, 2), (2, 1), 3, True, False),   # dilation > stride
]


def deconv_line(x, w, has_bias, k, s, p, d, op_, g, relu, out="RESULT"):
    return (f"%y = top.Deconv(%x, %w, {'%b' if has_bias else '%none'}) {{kernel_shape = array<i64: {arr(k)}>, "
            f"strides = array<i64: {arr(s)}>, pads = array<i64: {arr(p)}>, dilations = array<i64: {arr(d)}>, "
            f"output_padding = array<i64: {arr(op_)}>, group = {g} : i64, do_relu = {'true' if relu else 'false'}}} : "
            f"({mlir_type(x.shape, x.dtype)}, {mlir_type(w.shape, w.dtype)}, "
            f"{mlir_type((w.shape[1] * g,), x.dtype) if has_bias else 'none'}) -> {out}")


@pytest.mark.parametrize("case", DECONV_CASES, ids=[str(i) for i in range(len(DECONV_CASES))])
def test_deconv_f32(case, rng):
    n, c, sp, o, k, s, p, d, op_, g, has_bias, relu = case
    x = rng.standard_normal((n, c) + sp).astype(np.float32)
    w = rng.standard_normal((c, o // g) + k).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    expect = deconv_nd(x, w, b if has_bias else None, list(s), list(p), list(d), list(op_), g)
    if relu:
        expect = np.maximum(expect, 0)
    out = single_op({"x": x}, {"w": w, "b": b} if has_bias else {"w": w},
                    deconv_line(x, w, has_bias, k, s, p, d, op_, g, relu))
    assert out.shape == expect.shape
    np.testing.assert_allclose(out, expect, rtol=1e-4, atol=1e-4)


def test_deconv_f64_relu_limit(rng):
    x = rng.standard_normal((2, 4, 3, 5)) * 3
    w = rng.standard_normal((4, 3, 2, 3))
    b = rng.standard_normal(6)
    expect = np.clip(deconv_nd(x, w, b, [2, 1], [0, 1, 1, 0], [1, 2], [1, 0], 2), 0, 2.5)
    m = Model({"x": x}, {"w": w, "b": b})
    t = mlir_type(expect.shape, np.float64)
    m.op("%y = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 2, 3>, strides = array<i64: 2, 1>, "
         "pads = array<i64: 0, 1, 1, 0>, dilations = array<i64: 1, 2>, output_padding = array<i64: 1, 0>, "
         "group = 2 : i64, do_relu = true, relu_limit = 2.5} : "
         f"(tensor<2x4x3x5xf64>, tensor<4x3x2x3xf64>, tensor<6xf64>) -> {t}")
    out = run_ok(m, [("%y", "y", t)])["y"]
    np.testing.assert_allclose(out, expect, rtol=1e-10, atol=1e-12)


def test_deconv_int(rng):
    """int8 operands accumulate exactly in int64 and are stored as int32."""
    x = rng.integers(-128, 128, (1, 2, 4, 3), dtype=np.int8)
    w = rng.integers(-128, 128, (2, 3, 3, 2), dtype=np.int8)
    expect = deconv_nd(x, w, None, [2, 2], [1, 0, 0, 1], [1, 1], [0, 1]).astype(np.int32)
    m = Model({"x": x}, {"w": w})
    t = mlir_type(expect.shape, np.int32)
    m.op("%y = top.Deconv(%x, %w, %none) {kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>, "
         "pads = array<i64: 1, 0, 0, 1>, output_padding = array<i64: 0, 1>} : "
         f"(tensor<1x2x4x3xi8>, tensor<2x3x3x2xi8>, none) -> {t}")
    out = run_ok(m, [("%y", "y", t)])["y"]
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expect)


def test_deconv_empty_spatial(rng):
    """An empty spatial input dim gives an empty output dim."""
    x = np.zeros((1, 2, 0, 3), np.float32)
    w = rng.standard_normal((2, 2, 2, 2)).astype(np.float32)
    out = single_op({"x": x}, {"w": w}, deconv_line(x, w, False, (2, 2), (1, 1), (0, 0, 0, 0),
                                                     (1, 1), (0, 0), 1, False))
    assert out.shape == (1, 2, 0, 4)


# ---------------------------------------------------------------------------
# gemmF32's packed path (M, N, K past every block size, with tails)
# ---------------------------------------------------------------------------

def test_matmul_blocked_gemm(rng):
    a = rng.standard_normal((101, 300)).astype(np.float32)
    b = rng.standard_normal((300, 1100)).astype(np.float32)
    expect = a.astype(np.float64) @ b.astype(np.float64)
    out = single_op({"a": a}, {"b": b}, "%y = top.MatMul(%a, %b, %none) : "
                    "(tensor<101x300xf32>, tensor<300x1100xf32>, none) -> RESULT")
    np.testing.assert_allclose(out, expect, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("k,s,p", [((1, 1), (1, 1), (0, 0, 0, 0)), ((3, 3), (1, 1), (1, 1, 1, 1)),
                                   ((1, 1), (2, 2), (0, 0, 0, 0))])
def test_conv_blocked_gemm(k, s, p, rng):
    """Pointwise (no im2col) and windowed convs large enough for packing."""
    x = rng.standard_normal((2, 70, 13, 15)).astype(np.float32)
    w = rng.standard_normal((37, 70) + k).astype(np.float32)
    expect = conv_nd(x, w, None, list(s), list(p))
    out = single_op({"x": x}, {"w": w},
                    f"%y = top.Conv(%x, %w, %none) {{kernel_shape = array<i64: {arr(k)}>, "
                    f"strides = array<i64: {arr(s)}>, pads = array<i64: {arr(p)}>}} : "
                    f"(tensor<2x70x13x15xf32>, {mlir_type(w.shape, np.float32)}, none) -> RESULT")
    np.testing.assert_allclose(out, expect, rtol=1e-4, atol=1e-3)


# ---------------------------------------------------------------------------
# Softmax, LogSoftmax
# ---------------------------------------------------------------------------

SOFTMAX_CASES = [((2, 3, 4), -1), ((2, 3, 4), 0), ((5,), 0), ((3, 1, 4), 1), ((2, 0, 3), 2),
                 ((4, 7), -2), ((2, 3, 5, 2), 2), ((1, 1000), 1)]


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("case", SOFTMAX_CASES, ids=[str(i) for i in range(len(SOFTMAX_CASES))])
def test_softmax(case, log, rng):
    shape, axis = case
    x = (rng.standard_normal(shape) * 30).astype(np.float32)  # large: needs max subtraction
    x.flat[::7] += 500
    expect = softmax(x, axis, log)
    op = "LogSoftmax" if log else "Softmax"
    out = single_op({"x": x}, {}, f"%y = top.{op}(%x) {{axis = {axis} : i64}} : "
                    f"({mlir_type(shape, np.float32)}) -> RESULT")
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


def test_softmax_f64_default_axis(rng):
    x = rng.standard_normal((3, 6))
    out = single_op({"x": x}, {}, "%y = top.Softmax(%x) : (tensor<3x6xf64>) -> RESULT", np.float64)
    np.testing.assert_allclose(out, softmax(x, -1), rtol=1e-12)
    np.testing.assert_allclose(out.sum(axis=-1), 1, rtol=1e-12)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_f16(log, rng):
    """f16 computes in f64 and rounds once: within f16's precision."""
    x = (rng.standard_normal((3, 9)) * 4).astype(np.float16)
    op = "LogSoftmax" if log else "Softmax"
    out = single_op({"x": x}, {}, f"%y = top.{op}(%x) {{axis = 1 : i64}} : (tensor<3x9xf16>) -> RESULT",
                    np.float16)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float64), softmax(x, 1, log), rtol=1e-3, atol=1e-3)


# ---------------------------------------------------------------------------
# BatchNorm, LayerNorm, GroupNorm
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape,with_scale,with_bias,eps", [
    ((2, 3, 4, 5), True, True, 1e-5), ((3, 4), True, False, 1e-3), ((1, 2, 3, 2, 2), False, True, 0.0),
    ((2, 5, 7), False, False, 1e-5), ((0, 3, 2), True, True, 1e-5), ((1, 1, 1), True, True, 0.1)])
def test_batch_norm(shape, with_scale, with_bias, eps, rng):
    c = shape[1]
    x = rng.standard_normal(shape).astype(np.float32) * 3 + 1
    mean = rng.standard_normal(c).astype(np.float32)
    var = rng.uniform(0.5, 2, c).astype(np.float32)
    scale = rng.standard_normal(c).astype(np.float32)
    bias = rng.standard_normal(c).astype(np.float32)
    expect = batch_norm(x, mean, var, scale if with_scale else None, bias if with_bias else None, eps)
    weights = {"mean": mean, "var": var, "scale": scale, "bias": bias}
    ct = mlir_type((c,), np.float32)
    out = single_op({"x": x}, weights,
                    f"%y = top.BatchNorm(%x, %mean, %var, {'%scale' if with_scale else '%none'}, "
                    f"{'%bias' if with_bias else '%none'}) {{epsilon = {eps:.6e}}} : ({mlir_type(shape, np.float32)}, "
                    f"{ct}, {ct}, {ct if with_scale else 'none'}, {ct if with_bias else 'none'}) -> RESULT")
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,axis,with_scale,with_bias", [
    ((2, 3, 8), -1, True, True), ((2, 3, 8), 1, True, True), ((4, 5), 0, False, True),
    ((2, 3, 2, 4), -2, True, False), ((6,), 0, False, False), ((0, 4), 1, True, True),
    ((3, 1), -1, True, True)])
def test_layer_norm(shape, axis, with_scale, with_bias, rng):
    x = rng.standard_normal(shape).astype(np.float32) * 2 - 1
    norm = shape[axis % len(shape):]
    scale = rng.standard_normal(norm).astype(np.float32)
    bias = rng.standard_normal(norm).astype(np.float32)
    expect = layer_norm(x, axis, scale if with_scale else None, bias if with_bias else None, 1e-5)
    nt = mlir_type(norm, np.float32)
    out = single_op({"x": x}, {"scale": scale, "bias": bias},
                    f"%y = top.LayerNorm(%x, {'%scale' if with_scale else '%none'}, {'%bias' if with_bias else '%none'}) "
                    f"{{axis = {axis} : i64}} : ({mlir_type(shape, np.float32)}, {nt if with_scale else 'none'}, "
                    f"{nt if with_bias else 'none'}) -> RESULT")
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


def test_layer_norm_f64_flat_params(rng):
    """scale/bias may have any shape with the normalized shape's count."""
    x = rng.standard_normal((2, 3, 4))
    scale, bias = rng.standard_normal(12), rng.standard_normal(12)
    expect = layer_norm(x, 1, scale, bias, 1e-3)
    out = single_op({"x": x}, {"scale": scale, "bias": bias},
                    "%y = top.LayerNorm(%x, %scale, %bias) {axis = -2 : i64, epsilon = 1.0e-3} : "
                    "(tensor<2x3x4xf64>, tensor<12xf64>, tensor<12xf64>) -> RESULT", np.float64)
    np.testing.assert_allclose(out, expect, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape,groups,affine", [
    ((2, 6, 4, 3), 3, True), ((2, 6, 4, 3), 1, True), ((1, 4, 5), 4, False), ((3, 8), 2, True),
    ((1, 6, 2, 2, 2), 2, True), ((0, 4, 3), 2, True)])
def test_group_norm(shape, groups, affine, rng):
    c = shape[1]
    x = rng.standard_normal(shape).astype(np.float32) + 0.5
    scale = rng.standard_normal(c).astype(np.float32)
    bias = rng.standard_normal(c).astype(np.float32)
    expect = group_norm(x, groups, scale if affine else None, bias if affine else None, 1e-5)
    ct = mlir_type((c,), np.float32) if affine else "none"
    out = single_op({"x": x}, {"scale": scale, "bias": bias},
                    f"%y = top.GroupNorm(%x, {'%scale' if affine else '%none'}, {'%bias' if affine else '%none'}) "
                    f"{{num_groups = {groups} : i64}} : ({mlir_type(shape, np.float32)}, {ct}, {ct}) -> RESULT")
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


def test_norms_f16(rng):
    """f16 inputs and parameters: f64 statistics, one f16 rounding (rtol and
    atol 2e-3, f16's precision for values of a few units)."""
    x = (rng.standard_normal((2, 4, 3)) * 2 + 1).astype(np.float16)
    c = rng.standard_normal(4).astype(np.float16)
    b = rng.standard_normal(4).astype(np.float16)
    var = rng.uniform(0.5, 2, 4).astype(np.float16)
    s3 = rng.standard_normal(3).astype(np.float16)
    tol = dict(rtol=2e-3, atol=2e-3)
    t, ct, st = "tensor<2x4x3xf16>", "tensor<4xf16>", "tensor<3xf16>"
    out = single_op({"x": x}, {"c": c, "b": b, "v": var},
                    f"%y = top.BatchNorm(%x, %b, %v, %c, %b) : ({t}, {ct}, {ct}, {ct}, {ct}) -> RESULT", np.float16)
    np.testing.assert_allclose(out.astype(np.float64), batch_norm(x, b.astype(np.float64), var.astype(np.float64),
                                                                  c.astype(np.float64), b.astype(np.float64)), **tol)
    out = single_op({"x": x}, {"s": s3, "b": s3},
                    f"%y = top.LayerNorm(%x, %s, %b) : ({t}, {st}, {st}) -> RESULT", np.float16)
    np.testing.assert_allclose(out.astype(np.float64), layer_norm(x, -1, s3.astype(np.float64),
                                                                  s3.astype(np.float64)), **tol)
    out = single_op({"x": x}, {"c": c, "b": b},
                    f"%y = top.GroupNorm(%x, %c, %b) {{num_groups = 2 : i64}} : ({t}, {ct}, {ct}) -> RESULT",
                    np.float16)
    np.testing.assert_allclose(out.astype(np.float64), group_norm(x, 2, c.astype(np.float64),
                                                                  b.astype(np.float64)), **tol)


# ---------------------------------------------------------------------------
# Resize
# ---------------------------------------------------------------------------

RESIZE_SHAPES = [
    # (input shape, sizes or None, scales or None)
    ((1, 2, 4, 5), (1, 2, 7, 3), None),
    ((1, 1, 3, 4), None, (1.0, 1.0, 2.0, 1.5)),
    ((2, 3, 6, 5), None, (1.0, 1.0, 0.5, 0.6)),
    ((1, 2, 5), (1, 2, 11), None),                       # 1-d
    ((1, 1, 2, 3, 4), (1, 1, 3, 5, 2), None),            # trilinear
    ((3, 4), None, (2.0, 0.75)),                         # any dims resize
    ((1, 1, 1, 4), (1, 1, 3, 1), None),                  # size-1 in and out
    ((0, 2, 3), (0, 2, 6), None),                        # zero-size
    ((1, 1, 4, 4), (1, 1, 6, 3), (1.0, 1.0, 1.3, 1.0)),  # sizes win over scales
]
CTMS = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"]


def resize_line(shape, sizes, scales, mode, ctm, nearest="round_prefer_floor", dtype=np.float32):
    attrs = [f'mode = #top.interpolation<{mode}>', f'coordinate_transformation_mode = #top.coordinate_mode<{ctm}>',
             f'nearest_mode = #top.nearest_mode<{nearest}>']
    if sizes is not None:
        attrs.append(f"sizes = array<i64: {arr(sizes)}>")
    if scales is not None:
        attrs.append(f"scales = array<f64: {farr(scales)}>")
    return f"%y = top.Resize(%x) {{{', '.join(attrs)}}} : ({mlir_type(shape, dtype)}) -> RESULT"


def resize_expect(x, sizes, scales, **kw):
    if sizes is not None:
        return resize(x, list(sizes), None, **kw)
    out = [int(np.floor(d * s)) for d, s in zip(x.shape, scales)]
    return resize(x, out, list(scales), **kw)


@pytest.mark.parametrize("ctm", CTMS)
@pytest.mark.parametrize("case", RESIZE_SHAPES, ids=[str(i) for i in range(len(RESIZE_SHAPES))])
def test_resize_linear(case, ctm, rng):
    shape, sizes, scales = case
    x = rng.standard_normal(shape).astype(np.float32)
    expect = resize_expect(x, sizes, scales, mode="linear", ctm=ctm)
    out = single_op({"x": x}, {}, resize_line(shape, sizes, scales, "linear", ctm))
    assert out.shape == expect.shape
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("nearest", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
@pytest.mark.parametrize("ctm", CTMS)
@pytest.mark.parametrize("case", [0, 1, 2, 5, 6],
                         ids=lambda i: str(i))
def test_resize_nearest(case, ctm, nearest, rng):
    shape, sizes, scales = RESIZE_SHAPES[case]
    x = rng.standard_normal(shape).astype(np.float32)
    expect = resize_expect(x, sizes, scales, mode="nearest", ctm=ctm, nearest_mode=nearest)
    out = single_op({"x": x}, {}, resize_line(shape, sizes, scales, "nearest", ctm, nearest))
    np.testing.assert_array_equal(out, expect.astype(np.float32))


def test_resize_nearest_ties(rng):
    """asymmetric x2 upsampling lands exactly on .5: the rounding modes differ."""
    x = rng.integers(-100, 100, (1, 1, 5), dtype=np.int32)
    for nearest in ["round_prefer_floor", "round_prefer_ceil"]:
        expect = resize(x, [1, 1, 10], [1.0, 1.0, 2.0], "nearest", "asymmetric", nearest)
        out = single_op({"x": x}, {}, resize_line(x.shape, None, (1.0, 1.0, 2.0), "nearest", "asymmetric",
                                                  nearest, np.int32), np.int32)
        np.testing.assert_array_equal(out, expect.astype(np.int32))
    floor = resize(x, [1, 1, 10], [1.0, 1.0, 2.0], "nearest", "asymmetric", "round_prefer_floor")
    ceil = resize(x, [1, 1, 10], [1.0, 1.0, 2.0], "nearest", "asymmetric", "round_prefer_ceil")
    assert not np.array_equal(floor, ceil)


def test_resize_defaults_f64(rng):
    """Default mode nearest, half_pixel, round_prefer_floor."""
    x = rng.standard_normal((1, 2, 3, 3))
    out = single_op({"x": x}, {}, "%y = top.Resize(%x) {sizes = array<i64: 1, 2, 5, 7>} : "
                    "(tensor<1x2x3x3xf64>) -> RESULT", np.float64)
    np.testing.assert_array_equal(out, resize(x, [1, 2, 5, 7]))


# ---------------------------------------------------------------------------
# DepthToSpace, SpaceToDepth
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize("shape,b", [((2, 8, 3, 2), 2), ((1, 18, 2, 3), 3), ((1, 4, 1, 1), 2),
                                     ((1, 3, 2, 2), 1), ((0, 4, 2, 2), 2), ((1, 12, 0, 3), 2)])
def test_depth_to_space(shape, b, mode, rng):
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    out = single_op({"x": x}, {}, f'%y = top.DepthToSpace(%x) {{blocksize = {b} : i64, mode = #top.depth_to_space_mode<{mode}>}} : '
                    f"({mlir_type(shape, np.int8)}) -> RESULT", np.int8)
    np.testing.assert_array_equal(out, depth_to_space(x, b, mode))


@pytest.mark.parametrize("shape,b", [((2, 3, 4, 6), 2), ((1, 2, 6, 3), 3), ((1, 1, 1, 1), 1),
                                     ((0, 2, 4, 4), 2), ((1, 5, 2, 8), 2)])
def test_space_to_depth(shape, b, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    out = single_op({"x": x}, {}, f"%y = top.SpaceToDepth(%x) {{blocksize = {b} : i64}} : "
                    f"({mlir_type(shape, np.float32)}) -> RESULT")
    np.testing.assert_array_equal(out, space_to_depth(x, b))
    if shape[0]:
        back = depth_to_space(out, b, "DCR")
        np.testing.assert_array_equal(back, x)


# ---------------------------------------------------------------------------
# LRN (f64 internally, as the op documents) and a Deconv epilogue activation
# ---------------------------------------------------------------------------

def lrn_ref(x, size, alpha, beta, bias):
    """ONNX LRN: the window [c - floor((size-1)/2), c + ceil((size-1)/2)]
    clipped to the channels."""
    c = x.shape[1]
    x64 = x.astype(np.float64)
    out = np.empty_like(x64)
    for ci in range(c):
        lo = max(0, ci - (size - 1) // 2)
        hi = min(c - 1, ci + (size - 1) - (size - 1) // 2)
        s = (x64[:, lo:hi + 1] ** 2).sum(axis=1)
        out[:, ci] = x64[:, ci] / (bias + alpha / size * s) ** beta
    return out


@pytest.mark.parametrize("size", [1, 2, 5, 9])
def test_lrn(size, rng):
    x = rng.standard_normal((2, 6, 3, 2)).astype(np.float32) * 3
    expect = lrn_ref(x, size, 0.01, 0.6, 1.5)
    out = single_op({"x": x}, {}, f"%y = top.LRN(%x) {{size = {size} : i64, alpha = 0.01, beta = 0.6, "
                    f"bias = 1.5}} : (tensor<2x6x3x2xf32>) -> RESULT")
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-6)


def test_deconv_leaky_relu(rng):
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((2, 3, 2, 2)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    full = deconv_nd(x, w, b, [2, 1], [0, 1, 1, 0], None, [1, 0])
    expect = np.where(full >= 0, full, 0.2 * full)
    out = single_op({"x": x}, {"w": w, "b": b},
                    "%y = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 1>, "
                    "pads = array<i64: 0, 1, 1, 0>, output_padding = array<i64: 1, 0>, "
                    "activation = #top.activation<leaky_relu>, activation_params = array<f64: 0.2>} : "
                    "(tensor<1x2x3x4xf32>, tensor<2x3x2x2xf32>, tensor<3xf32>) -> RESULT")
    np.testing.assert_allclose(out, expect, rtol=1e-4, atol=1e-4)
