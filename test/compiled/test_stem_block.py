"""A network's first block (3x3 stride-2 convolution of <= 4 channels +
relu6, 3x3 depthwise + relu6, 1x1 projection) whose stem output is over 1
MiB compiles to one conv2d_stem_block_f32 dispatch (every filter plain) and
matches a float64 numpy reference on every ISA path this CPU has, at 1 and 2
threads: odd sizes, depthwise strides 1 and 2, asymmetric pads, projections
of 16 and 24 channels. Tolerance: rtol 1e-4 plus 2e-5 * max |y| (f32 sums of
27-100 products per stage). A smaller block stays three kernels."""
import numpy as np
import pytest

from test_cpu_kernels import run_every_isa, ty, weight
from test_inverted_residual import compile_block, three_stages


def stem_block(c, h, w, e, p, stride, pads, seed):
    x, (w1, b1, dw, b2, w3, b3), t, u, y = three_stages(
        c, h, w, e, p, 3, 2, (1, 1, 1, 1), stride, pads, seed)
    tt = f"tensor<1x{e}x{t.shape[2]}x{t.shape[3]}xf32>"
    tu = f"tensor<1x{e}x{u.shape[2]}x{u.shape[3]}xf32>"
    relu6 = "do_relu = true, relu_limit = 6.0 : f64"
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  {weight("w1", w1)}
  {weight("b1", b1)}
  {weight("dw", dw)}
  {weight("b2", b2)}
  {weight("w3", w3)}
  {weight("b3", b3)}
  %0 = top.Conv(%x, %w1, %b1) {{kernel_shape = array<i64: 3, 3>,
      strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
      dilations = array<i64: 1, 1>, group = 1, {relu6}}}
      : ({ty(x)}, {ty(w1)}, {ty(b1)}) -> {tt}
  %1 = top.Conv(%0, %dw, %b2) {{kernel_shape = array<i64: 3, 3>,
      strides = array<i64: {stride}, {stride}>,
      pads = array<i64: {pads[0]}, {pads[1]}, {pads[2]}, {pads[3]}>,
      dilations = array<i64: 1, 1>, group = {e}, {relu6}}}
      : ({tt}, {ty(dw)}, {ty(b2)}) -> {tu}
  %2 = top.Conv(%1, %w3, %b3) {{kernel_shape = array<i64: 1, 1>,
      strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
      dilations = array<i64: 1, 1>, group = 1}} : ({tu}, {ty(w3)}, {ty(b3)}) -> {ty(y)}
  return %2 : {ty(y)}
}}
"""
    return text, x, y


BLOCKS = [
    # (c, h, w, e, p, depthwise stride, its pads (top, left, bottom, right))
    (3, 191, 180, 32, 16, 1, (1, 1, 1, 1)),
    (2, 200, 166, 40, 24, 2, (0, 0, 1, 1)),
    (4, 185, 193, 30, 13, 1, (1, 0, 1, 2)),
]


@pytest.mark.parametrize("c,h,w,e,p,stride,pads", BLOCKS)
def test_stem_block_is_one_fused_kernel(tmp_path, c, h, w, e, p, stride, pads):
    text, x, y = stem_block(c, h, w, e, p, stride, pads, seed=c + h + e)
    art, report, dispatches = compile_block(tmp_path, text)
    assert [(d["kind"], d["symbol"]) for d in dispatches] == \
        [("kernel", "conv2d_stem_block_f32")], report
    assert "packed weights" not in report, report
    run_every_isa(tmp_path, art, {"x": x}, y, atol=2e-5 * np.abs(y).max())


def test_small_stem_block_stays_three_kernels(tmp_path):
    # 32 x 56 x 56 floats out of the stem: 401 KB, in the L2 cache anyway.
    text, x, y = stem_block(3, 112, 112, 32, 16, 1, (1, 1, 1, 1), seed=5)
    art, report, dispatches = compile_block(tmp_path, text)
    assert [d["symbol"] for d in dispatches] == \
        ["conv2d_stem_f32", "conv2d_depthwise_f32", "conv2d_1x1_narrow_f32"], report
    run_every_isa(tmp_path, art, {"x": x}, y, atol=2e-5 * np.abs(y).max())
