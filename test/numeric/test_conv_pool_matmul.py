"""top.Conv, top.MaxPool/AvgPool/GlobalAvgPool and top.MatMul against numpy
on randomized shapes. Tolerances: f32 rtol 1e-4 / atol 1e-4 (accumulation
order differs), integers exact."""
import numpy as np
import pytest

from numeric_harness import Model, mlir_type, run_ok, run_ref
from reference import conv_nd, pool_nd


def arr(a):
    return ", ".join(str(int(v)) for v in a)


CONV_CASES = [
    # (N, C, spatial, O, kernel, strides, pads, dilations, group, bias, relu)
    (1, 3, (8, 8), 4, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True, False),
    (2, 4, (9, 7), 6, (3, 2), (2, 1), (0, 1, 2, 0), (1, 2), 2, True, True),
    (1, 8, (6, 6), 8, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 8, False, False),  # depthwise
    (1, 5, (7, 7), 3, (1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1, True, False),   # 1x1 stride 2
    (3, 2, (5,), 4, (3,), (2,), (1, 1), (2,), 1, True, False),                  # 1-d
    (1, 2, (4, 5, 3), 2, (2, 3, 1), (1, 2, 1), (0, 1, 0, 1, 0, 0), (1, 1, 1), 1, False, True),  # 3-d
    (0, 3, (5, 5), 2, (3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1, True, False),   # zero batch
    (1, 1, (1, 1), 1, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, False, False),  # size-1
    (1, 16, (13, 11), 7, (5, 3), (3, 2), (2, 1, 2, 0), (1, 1), 1, True, True), # tails
]


@pytest.mark.parametrize("case", CONV_CASES, ids=[str(i) for i in range(len(CONV_CASES))])
def test_conv_f32(case, rng):
    n, c, sp, o, k, s, p, d, g, has_bias, relu = case
    x = rng.standard_normal((n, c) + sp).astype(np.float32)
    w = rng.standard_normal((o, c // g) + k).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    expect = conv_nd(x, w, b if has_bias else None, list(s), list(p), list(d), g)
    if relu:
        expect = np.maximum(expect, 0)
    weights = {"w": w}
    if has_bias:
        weights["b"] = b
    m = Model({"x": x}, weights)
    t = mlir_type(expect.shape, np.float32)
    m.op(f"%y = top.Conv(%x, %w, {'%b' if has_bias else '%none'}) {{kernel_shape = array<i64: {arr(k)}>, "
         f"strides = array<i64: {arr(s)}>, pads = array<i64: {arr(p)}>, dilations = array<i64: {arr(d)}>, "
         f"group = {g} : i64, do_relu = {'true' if relu else 'false'}}} : "
         f"({mlir_type(x.shape, x.dtype)}, {mlir_type(w.shape, w.dtype)}, "
         f"{mlir_type(b.shape, b.dtype) if has_bias else 'none'}) -> tensor<*xf32>")
    out = run_ok(m, [("%y", "y", "tensor<*xf32>")])
    assert out["y"].shape == expect.shape
    np.testing.assert_allclose(out["y"], expect, rtol=1e-4, atol=1e-4)


def test_conv_relu_limit(rng):
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32) * 4
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    expect = np.clip(conv_nd(x, w), 0, 6)
    m = Model({"x": x}, {"w": w})
    m.op("%y = top.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 3>, do_relu = true, relu_limit = 6.0} : "
         "(tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, none) -> tensor<1x3x3x3xf32>")
    out = run_ok(m, [("%y", "y", "tensor<1x3x3x3xf32>")])
    np.testing.assert_allclose(out["y"], expect, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("per_channel", [False, True])
def test_conv_int8_to_int32(per_channel, rng):
    """conv_v2's integer path: int8 x int8 with zero points -> int32, exact."""
    x = rng.integers(-128, 128, (2, 3, 6, 6), dtype=np.int8)
    w = rng.integers(-128, 128, (4, 3, 3, 3), dtype=np.int8)
    b = rng.integers(-1000, 1000, 4, dtype=np.int32)
    izp = [3, -2, 5] if per_channel else 7
    wzp = [1, 0, -1] if per_channel else -3
    expect = conv_nd(x, w, b, [1, 1], [1, 0, 1, 2], [1, 1], 1, izp, wzp).astype(np.int32)
    izs = arr(izp) if per_channel else str(izp)
    wzs = arr(wzp) if per_channel else str(wzp)
    m = Model({"x": x}, {"w": w, "b": b})
    t = mlir_type(expect.shape, np.int32)
    m.op(f"%y = top.Conv(%x, %w, %b) {{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 1, 2>, "
         f"input_zp = array<i64: {izs}>, weight_zp = array<i64: {wzs}>}} : "
         f"(tensor<2x3x6x6xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> {t}")
    out = run_ok(m, [("%y", "y", t)])
    assert out["y"].dtype == np.int32
    np.testing.assert_array_equal(out["y"], expect)


def test_conv_f64(rng):
    x = rng.standard_normal((1, 2, 6, 6))
    w = rng.standard_normal((2, 1, 3, 3))
    expect = conv_nd(x, w, None, [2, 2], [1, 1, 1, 1], [1, 1], 2)
    m = Model({"x": x}, {"w": w})
    m.op("%y = top.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, "
         "pads = array<i64: 1, 1, 1, 1>, group = 2 : i64} : (tensor<1x2x6x6xf64>, tensor<2x1x3x3xf64>, none) -> tensor<*xf64>")
    out = run_ok(m, [("%y", "y", "tensor<*xf64>")])
    np.testing.assert_allclose(out["y"], expect, rtol=1e-12)


POOL_CASES = [
    # (shape, kernel, strides, pads, dilations, ceil, include_pad)
    ((1, 3, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), False, False),
    ((2, 2, 9, 7), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True, False),
    ((2, 2, 9, 7), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True, True),
    ((1, 4, 10, 10), (3, 2), (3, 1), (1, 0, 0, 1), (2, 1), False, True),
    ((1, 2, 11), (4,), (3,), (2, 1), (1,), True, False),
    ((1, 1, 4, 5, 6), (2, 2, 3), (2, 2, 2), (0, 1, 1, 1, 0, 0), (1, 1, 1), False, False),
    ((0, 2, 4, 4), (2, 2), (1, 1), (0, 0, 0, 0), (1, 1), False, False),
]


@pytest.mark.parametrize("mode", ["max", "avg"])
@pytest.mark.parametrize("case", POOL_CASES, ids=[str(i) for i in range(len(POOL_CASES))])
def test_pool(case, mode, rng):
    shape, k, s, p, d, ceil, incl = case
    x = rng.standard_normal(shape).astype(np.float32)
    expect = pool_nd(x, list(k), list(s), list(p), list(d), mode, ceil, incl)
    m = Model({"x": x})
    op = "MaxPool" if mode == "max" else "AvgPool"
    m.op(f"%y = top.{op}(%x) {{kernel_shape = array<i64: {arr(k)}>, strides = array<i64: {arr(s)}>, "
         f"pads = array<i64: {arr(p)}>, dilations = array<i64: {arr(d)}>, ceil_mode = {str(ceil).lower()}, "
         f"count_include_pad = {str(incl).lower()}}} : ({mlir_type(shape, np.float32)}) -> tensor<*xf32>")
    out = run_ok(m, [("%y", "y", "tensor<*xf32>")])
    np.testing.assert_allclose(out["y"], expect, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3, 5, 4), (1, 4, 7), (1, 2, 3, 2, 2), (3, 1, 1, 1)])
def test_global_avg_pool(shape, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    expect = x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)
    m = Model({"x": x})
    m.op(f"%y = top.GlobalAvgPool(%x) : ({mlir_type(shape, np.float32)}) -> tensor<*xf32>")
    out = run_ok(m, [("%y", "y", "tensor<*xf32>")])
    np.testing.assert_allclose(out["y"], expect, rtol=1e-5, atol=1e-6)


MATMUL_CASES = [
    # (lhs, rhs, right_transpose, bias)
    ((3, 4), (4, 5), False, True),
    ((2, 3, 4), (4, 5), False, False),
    ((2, 1, 3, 4), (5, 4, 6), False, True),
    ((4,), (4, 5), False, False),
    ((3, 4), (4,), False, False),
    ((2, 3, 4), (2, 5, 4), True, True),
    ((1, 7, 33), (33, 130), False, True),  # tails
    ((0, 3), (3, 2), False, False),         # zero-size
]


@pytest.mark.parametrize("case", MATMUL_CASES, ids=[str(i) for i in range(len(MATMUL_CASES))])
def test_matmul(case, rng):
    ls, rs, tr, has_bias = case
    a = rng.standard_normal(ls).astype(np.float32)
    b = rng.standard_normal(rs).astype(np.float32)
    rb = np.swapaxes(b, -1, -2) if tr else b
    expect = np.matmul(a.astype(np.float64), rb.astype(np.float64))
    n = expect.shape[-1] if expect.ndim else 1
    bias = rng.standard_normal(n).astype(np.float32)
    if has_bias:
        expect = expect + bias
    m = Model({"a": a}, {"b": b, "bias": bias} if has_bias else {"b": b})
    m.op(f"%y = top.MatMul(%a, %b, {'%bias' if has_bias else '%none'}) {{right_transpose = {str(tr).lower()}}} : "
         f"({mlir_type(ls, np.float32)}, {mlir_type(rs, np.float32)}, "
         f"{mlir_type(bias.shape, np.float32) if has_bias else 'none'}) -> tensor<*xf32>")
    out = run_ok(m, [("%y", "y", "tensor<*xf32>")])
    np.testing.assert_allclose(out["y"], expect, rtol=1e-4, atol=1e-4)


def test_matmul_int(rng):
    a = rng.integers(-100, 100, (3, 5), dtype=np.int32)
    b = rng.integers(-100, 100, (5, 2), dtype=np.int32)
    m = Model({"a": a}, {"b": b})
    m.op("%y = top.MatMul(%a, %b, %none) : (tensor<3x5xi32>, tensor<5x2xi32>, none) -> tensor<3x2xi32>")
    out = run_ok(m, [("%y", "y", "tensor<3x2xi32>")])
    np.testing.assert_array_equal(out["y"], a @ b)


def _erf(v):
    import math
    return np.vectorize(math.erf)(v.astype(np.float64))


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


# activation -> (activation_params, numpy function on f64)
EPILOGUES = {
    "sigmoid": ([], _sigmoid),
    "silu": ([], lambda v: v * _sigmoid(v)),
    "gelu": ([], lambda v: 0.5 * v * (1 + _erf(v / np.sqrt(2)))),
    "gelu_tanh": ([], lambda v: 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))),
    "hardswish": ([], lambda v: v * np.clip(v / 6 + 0.5, 0, 1)),
    "hardsigmoid": ([0.25, 0.4], lambda v: np.clip(0.25 * v + 0.4, 0, 1)),
    "leaky_relu": ([0.1], lambda v: np.where(v >= 0, v, 0.1 * v)),
    "clip": ([-1.5, 2.0], lambda v: np.clip(v, -1.5, 2.0)),
}


def _epilogue_attrs(name):
    params = EPILOGUES[name][0]
    attrs = f'activation = #top.activation<{name}>'
    if params:
        attrs += ", activation_params = array<f64: " + ", ".join(map(str, params)) + ">"
    return attrs


@pytest.mark.parametrize("name", list(EPILOGUES))
def test_matmul_epilogue(name, rng):
    """MatMul + bias + each epilogue activation against numpy (f64)."""
    x = rng.standard_normal((2, 3, 8)).astype(np.float32)
    w = rng.standard_normal((8, 5)).astype(np.float32) * 0.5
    b = rng.standard_normal(5).astype(np.float32)
    expect = EPILOGUES[name][1](x.astype(np.float64) @ w + b)
    m = Model({"x": x}, {"w": w, "b": b})
    m.op(f"%y = top.MatMul(%x, %w, %b) {{{_epilogue_attrs(name)}}} : "
         "(tensor<2x3x8xf32>, tensor<8x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>")
    out = run_ok(m, [("%y", "y", "tensor<2x3x5xf32>")])
    np.testing.assert_allclose(out["y"], expect, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["silu", "leaky_relu", "clip"])
def test_conv_epilogue(name, rng):
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    expect = EPILOGUES[name][1](conv_nd(x, w).astype(np.float64))
    m = Model({"x": x}, {"w": w})
    m.op(f"%y = top.Conv(%x, %w, %none) {{kernel_shape = array<i64: 3, 3>, {_epilogue_attrs(name)}}} : "
         "(tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, none) -> tensor<1x3x3x3xf32>")
    out = run_ok(m, [("%y", "y", "tensor<1x3x3x3xf32>")])
    np.testing.assert_allclose(out["y"], expect, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------
# Attribute forms the cases above leave out: pooling with relu / relu_limit,
# integer pooling, MatMul with a one-element bias. Integers exact.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["max", "avg"])
def test_pool_relu_limit(mode, rng):
    x = rng.standard_normal((1, 2, 7, 6)).astype(np.float32) * 3
    expect = np.clip(pool_nd(x, [3, 2], [2, 2], [1, 0, 1, 1], [1, 1], mode, True, False), 0, 1.5)
    m = Model({"x": x})
    op = "MaxPool" if mode == "max" else "AvgPool"
    m.op(f"%y = top.{op}(%x) {{kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>, "
         f"pads = array<i64: 1, 0, 1, 1>, ceil_mode = true, do_relu = true, relu_limit = 1.5}} : "
         f"(tensor<1x2x7x6xf32>) -> tensor<*xf32>")
    out = run_ok(m, [("%y", "y", "tensor<*xf32>")])
    np.testing.assert_allclose(out["y"], expect, rtol=1e-5, atol=1e-6)


def test_maxpool_int8(rng):
    """Integer max pooling: padding never wins, even over -128."""
    x = rng.integers(-128, 128, (2, 3, 7, 5), dtype=np.int8)
    x[0, 0, 0, 0] = -128
    expect = pool_nd(x, [2, 3], [2, 2], [1, 1, 0, 1], [1, 1], "max", True).astype(np.int8)
    m = Model({"x": x})
    m.op("%y = top.MaxPool(%x) {kernel_shape = array<i64: 2, 3>, strides = array<i64: 2, 2>, "
         "pads = array<i64: 1, 1, 0, 1>, ceil_mode = true} : (tensor<2x3x7x5xi8>) -> tensor<*xi8>")
    out = run_ok(m, [("%y", "y", "tensor<*xi8>")])
    np.testing.assert_array_equal(out["y"], expect)


@pytest.mark.parametrize("include_pad", [False, True])
def test_avgpool_int32(include_pad, rng):
    """Integer average: the f64 mean truncated toward zero."""
    x = rng.integers(-1000, 1000, (1, 2, 6, 5), dtype=np.int32)
    mean = pool_nd(x, [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], "avg", False, include_pad)
    expect = np.trunc(mean).astype(np.int32)
    m = Model({"x": x})
    m.op(f"%y = top.AvgPool(%x) {{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, "
         f"pads = array<i64: 1, 1, 1, 1>, count_include_pad = {str(include_pad).lower()}}} : "
         f"(tensor<1x2x6x5xi32>) -> tensor<*xi32>")
    out = run_ok(m, [("%y", "y", "tensor<*xi32>")])
    np.testing.assert_array_equal(out["y"], expect)


def test_matmul_scalar_bias_relu_limit(rng):
    """A one-element bias broadcasts over every column; relu6 after it."""
    a = rng.standard_normal((2, 3, 4)).astype(np.float32) * 2
    b = rng.standard_normal((4, 5)).astype(np.float32)
    bias = rng.standard_normal(1).astype(np.float32)
    expect = np.clip(a.astype(np.float64) @ b + bias[0], 0, 6)
    m = Model({"a": a}, {"b": b, "bias": bias})
    m.op("%y = top.MatMul(%a, %b, %bias) {do_relu = true, relu_limit = 6.0} : "
         "(tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<1xf32>) -> tensor<*xf32>")
    out = run_ok(m, [("%y", "y", "tensor<*xf32>")])
    np.testing.assert_allclose(out["y"], expect, rtol=1e-4, atol=1e-4)


def test_conv_matmul_f16(rng):
    """f16 operands compute in f32 and round once to f16 (tolerance: one f16
    rounding, rtol 2e-3)."""
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float16)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float16)
    a = rng.standard_normal((3, 6)).astype(np.float16)
    b = rng.standard_normal((6, 4)).astype(np.float16)
    conv = conv_nd(x.astype(np.float64), w.astype(np.float64), None, [1, 1], [1, 1, 1, 1])
    mm = a.astype(np.float64) @ b.astype(np.float64)
    m = Model({"x": x, "a": a}, {"w": w, "b": b})
    m.op("%y = top.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : "
         "(tensor<1x2x5x5xf16>, tensor<3x2x3x3xf16>, none) -> tensor<1x3x5x5xf16>")
    m.op("%z = top.MatMul(%a, %b, %none) : (tensor<3x6xf16>, tensor<6x4xf16>, none) -> tensor<3x4xf16>")
    out = run_ok(m, [("%y", "y", "tensor<1x3x5x5xf16>"), ("%z", "z", "tensor<3x4xf16>")])
    assert out["y"].dtype == np.float16 and out["z"].dtype == np.float16
    np.testing.assert_allclose(out["y"].astype(np.float64), conv, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(out["z"].astype(np.float64), mm, rtol=2e-3, atol=2e-3)
