"""Layout-sensitive Top ops with `layout = #top.layout<NHWC>` against numpy: the NCHW
numpy reference (reference.py) computed on the transposed inputs, transposed
back to channels last. Conv takes an OHWI filter, Deconv `C x K.. x O/group`.
Tolerances: f32 rtol 1e-4 / atol 1e-4 (accumulation order differs)."""
import numpy as np
import pytest

from numeric_harness import Model, mlir_type, run_ok
from reference import (batch_norm, conv_nd, deconv_nd, depth_to_space,
                       group_norm, pool_nd, space_to_depth)


def arr(a):
    return ", ".join(str(int(v)) for v in a)


def to_last(a):
    """NCHW (any spatial rank) -> NHWC."""
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def run_nhwc(inputs, weights, line):
    m = Model(inputs, weights)
    m.op(line)
    return run_ok(m, [("%y", "y", "tensor<*xf32>")])["y"]


def t(a):
    return mlir_type(a.shape, a.dtype)


@pytest.mark.parametrize("case", [
    # (N, C, spatial, O, kernel, strides, pads, group)
    (1, 3, (8, 8), 4, (3, 3), (1, 1), (1, 1, 1, 1), 1),
    (2, 4, (9, 7), 6, (3, 2), (2, 1), (0, 1, 2, 0), 2),
    (1, 8, (6, 6), 8, (3, 3), (2, 2), (1, 1, 1, 1), 8),   # depthwise, 1HWC-like OHWI
    (1, 3, (10,), 5, (3,), (1,), (1, 1), 1),              # 1-d: NWC
])
def test_conv_nhwc(case, rng):
    n, c, sp, o, k, s, p, g = case
    x = rng.standard_normal((n, c) + sp).astype(np.float32)
    w = rng.standard_normal((o, c // g) + k).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    expect = to_last(conv_nd(x, w, b, list(s), list(p), None, g))
    xl, wl = to_last(x), to_last(w)  # OIHW -> OHWI
    y = run_nhwc({"x": xl}, {"w": wl, "b": b},
                 f"%y = top.Conv(%x, %w, %b) {{kernel_shape = array<i64: {arr(k)}>, "
                 f"strides = array<i64: {arr(s)}>, pads = array<i64: {arr(p)}>, group = {g} : i64, "
                 f"layout = #top.layout<NHWC>}} : ({t(xl)}, {t(wl)}, {t(b)}) -> tensor<*xf32>")
    assert y.shape == expect.shape
    np.testing.assert_allclose(y, expect, rtol=1e-4, atol=1e-4)


def test_deconv_nhwc(rng):
    x = rng.standard_normal((1, 4, 5, 5)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)  # C x O/g x K x K
    expect = to_last(deconv_nd(x, w, None, [2, 2], [1, 1, 1, 1], None, [1, 1], 1))
    xl, wl = to_last(x), to_last(w)
    y = run_nhwc({"x": xl}, {"w": wl},
                 f"%y = top.Deconv(%x, %w, %none) {{kernel_shape = array<i64: 3, 3>, "
                 f"strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, "
                 f"output_padding = array<i64: 1, 1>, layout = #top.layout<NHWC>}} : "
                 f"({t(xl)}, {t(wl)}, none) -> tensor<*xf32>")
    assert y.shape == expect.shape
    np.testing.assert_allclose(y, expect, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["max", "avg"])
def test_pool_nhwc(mode, rng):
    x = rng.standard_normal((2, 3, 9, 8)).astype(np.float32)
    expect = to_last(pool_nd(x, [3, 2], [2, 2], [1, 0, 1, 1], None, mode,
                             count_include_pad=True))
    xl = to_last(x)
    op = "MaxPool" if mode == "max" else "AvgPool"
    y = run_nhwc({"x": xl}, {},
                 f"%y = top.{op}(%x) {{kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>, "
                 f"pads = array<i64: 1, 0, 1, 1>, count_include_pad = true, layout = #top.layout<NHWC>}} : "
                 f"({t(xl)}) -> tensor<*xf32>")
    assert y.shape == expect.shape
    np.testing.assert_allclose(y, expect, rtol=1e-4, atol=1e-4)


def test_global_avg_pool_nhwc(rng):
    x = rng.standard_normal((2, 5, 4, 3)).astype(np.float32)
    expect = to_last(x.mean(axis=(2, 3), keepdims=True))
    xl = to_last(x)
    y = run_nhwc({"x": xl}, {},
                 f"%y = top.GlobalAvgPool(%x) {{layout = #top.layout<NHWC>}} : ({t(xl)}) -> tensor<*xf32>")
    assert y.shape == (2, 1, 1, 5)
    np.testing.assert_allclose(y, expect, rtol=1e-4, atol=1e-4)


def test_norms_nhwc(rng):
    x = rng.standard_normal((2, 6, 4, 5)).astype(np.float32)
    mean, scale, bias = (rng.standard_normal(6).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.5, 2, 6).astype(np.float32)
    xl = to_last(x)
    y = run_nhwc({"x": xl}, {"m": mean, "v": var, "s": scale, "b": bias},
                 f"%y = top.BatchNorm(%x, %m, %v, %s, %b) {{layout = #top.layout<NHWC>}} : "
                 f"({t(xl)}, {t(mean)}, {t(var)}, {t(scale)}, {t(bias)}) -> tensor<*xf32>")
    np.testing.assert_allclose(y, to_last(batch_norm(x, mean, var, scale, bias)),
                               rtol=1e-4, atol=1e-4)
    y = run_nhwc({"x": xl}, {"s": scale, "b": bias},
                 f"%y = top.GroupNorm(%x, %s, %b) {{num_groups = 3 : i64, layout = #top.layout<NHWC>}} : "
                 f"({t(xl)}, {t(scale)}, {t(bias)}) -> tensor<*xf32>")
    np.testing.assert_allclose(y, to_last(group_norm(x, 3, scale, bias)), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_space_nhwc(mode, rng):
    x = rng.standard_normal((1, 8, 3, 2)).astype(np.float32)
    xl = to_last(x)
    y = run_nhwc({"x": xl}, {},
                 f"%y = top.DepthToSpace(%x) {{blocksize = 2 : i64, mode = #top.depth_to_space_mode<{mode}>, "
                 f"layout = #top.layout<NHWC>}} : ({t(xl)}) -> tensor<*xf32>")
    np.testing.assert_array_equal(y, to_last(depth_to_space(x, 2, mode)))
    x = rng.standard_normal((1, 3, 4, 6)).astype(np.float32)
    xl = to_last(x)
    y = run_nhwc({"x": xl}, {},
                 f"%y = top.SpaceToDepth(%x) {{blocksize = 2 : i64, layout = #top.layout<NHWC>}} : "
                 f"({t(xl)}) -> tensor<*xf32>")
    np.testing.assert_array_equal(y, to_last(space_to_depth(x, 2)))
