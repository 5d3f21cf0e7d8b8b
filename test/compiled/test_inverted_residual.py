"""MobileNetV2-style inverted-residual blocks (1x1 conv + relu6, 3x3
depthwise + relu6, 1x1 conv, optional residual Add) whose expanded tensor is
over 1 MiB compile to one conv2d_inverted_residual_f32 dispatch (both 1x1
filters packed at compile time) and match a float64 numpy reference on every
ISA path this CPU has, at 1 and 2 threads: odd sizes, strides 1 and 2,
symmetric and asymmetric pads, with and without the residual. Tolerance:
rtol 1e-4 plus 2e-5 * max |y| (f32 sums of 16-100 products per stage). A
smaller block stays three kernels."""
import json

import numpy as np
import pytest

from test_cpu_kernels import conv_ref, run_every_isa, strata, ty, weight


def three_stages(c, h, w, e, p, k1, stride1, pads1, stride, pads, seed):
    """Seeded input and weights of a first conv (k1 x k1, relu6), a 3x3
    depthwise (relu6) and a 1x1 projection, and their float64 results:
    x, (w1, b1, dw, b2, w3, b3), t, u, y."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, c, h, w)).astype(np.float32)
    w1 = (rng.standard_normal((e, c, k1, k1)) * 0.3).astype(np.float32)
    b1 = rng.standard_normal(e).astype(np.float32)
    dw = (rng.standard_normal((e, 1, 3, 3)) * 0.3).astype(np.float32)
    b2 = rng.standard_normal(e).astype(np.float32)
    w3 = (rng.standard_normal((p, e, 1, 1)) * 0.1).astype(np.float32)
    b3 = rng.standard_normal(p).astype(np.float32)
    t = np.clip(conv_ref(x, w1, b1, (stride1, stride1), pads1, (1, 1), 1), 0, 6)
    u = np.clip(conv_ref(t, dw, b2, (stride, stride), pads, (1, 1), e), 0, 6)
    y = conv_ref(u, w3, b3, (1, 1), (0, 0, 0, 0), (1, 1), 1)
    return x, (w1, b1, dw, b2, w3, b3), t, u, y


def block(c, h, w, e, p, stride, pads, residual, seed):
    x, (w1, b1, dw, b2, w3, b3), t, u, y = three_stages(
        c, h, w, e, p, 1, 1, (0, 0, 0, 0), stride, pads, seed)
    if residual:
        y = y + x
    tt = f"tensor<1x{e}x{h}x{w}xf32>"
    tu = f"tensor<1x{e}x{u.shape[2]}x{u.shape[3]}xf32>"
    relu6 = "do_relu = true, relu_limit = 6.0 : f64"
    pw = "kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, " \
         "pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1"
    last = "%3" if residual else "%2"
    add = (f"%3 = top.Add(%2, %x) : ({ty(y)}, {ty(x)}) -> {ty(y)}" if residual else "")
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  {weight("w1", w1)}
  {weight("b1", b1)}
  {weight("dw", dw)}
  {weight("b2", b2)}
  {weight("w3", w3)}
  {weight("b3", b3)}
  %0 = top.Conv(%x, %w1, %b1) {{{pw}, {relu6}}} : ({ty(x)}, {ty(w1)}, {ty(b1)}) -> {tt}
  %1 = top.Conv(%0, %dw, %b2) {{kernel_shape = array<i64: 3, 3>,
      strides = array<i64: {stride}, {stride}>,
      pads = array<i64: {pads[0]}, {pads[1]}, {pads[2]}, {pads[3]}>,
      dilations = array<i64: 1, 1>, group = {e}, {relu6}}}
      : ({tt}, {ty(dw)}, {ty(b2)}) -> {tu}
  %2 = top.Conv(%1, %w3, %b3) {{{pw}}} : ({tu}, {ty(w3)}, {ty(b3)}) -> {ty(y)}
  {add}
  return {last} : {ty(y)}
}}
"""
    return text, x, y


def compile_block(tmp_path, text):
    model = tmp_path / "m.mlir"
    model.write_text(text)
    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize", "--report")
    assert r.returncode == 0, r.stderr
    r2 = strata("inspect", art, "--json")
    assert r2.returncode == 0, r2.stderr
    return art, r.stdout, json.loads(r2.stdout)["variants"][0]["dispatches"]


BLOCKS = [
    # (c, h, w, e, p, stride, pads (top, left, bottom, right), residual)
    (16, 57, 49, 96, 16, 1, (1, 1, 1, 1), True),
    (16, 57, 49, 96, 24, 1, (1, 1, 1, 1), False),
    (12, 57, 49, 96, 20, 2, (1, 1, 1, 1), False),
    (8, 56, 56, 96, 8, 2, (0, 0, 1, 1), False),
    (7, 45, 53, 113, 7, 1, (1, 0, 1, 2), True),
]


@pytest.mark.parametrize("c,h,w,e,p,stride,pads,residual", BLOCKS)
def test_block_is_one_fused_kernel(tmp_path, c, h, w, e, p, stride, pads, residual):
    text, x, y = block(c, h, w, e, p, stride, pads, residual, seed=c + h + e)
    art, report, dispatches = compile_block(tmp_path, text)
    assert [(d["kind"], d["symbol"]) for d in dispatches] == \
        [("kernel", "conv2d_inverted_residual_f32")], report
    assert "inverted-residual blocks fused into one kernel: 1" in report, report
    # Both 1x1 filters packed (12-row panels), the depthwise filter plain.
    panels = lambda rows: (rows + 11) // 12 * 12
    assert f"packed weights: {4 * (panels(e) * c + panels(p) * e)} bytes" in report, report
    run_every_isa(tmp_path, art, {"x": x}, y, atol=2e-5 * np.abs(y).max())


def test_small_block_stays_three_kernels(tmp_path):
    # 96 x 28 x 28 floats expanded: 301 KB, in the L2 cache anyway.
    text, _, _ = block(16, 28, 28, 96, 16, 1, (1, 1, 1, 1), True, seed=3)
    _, report, dispatches = compile_block(tmp_path, text)
    # (The 16-channel projection on the narrow 1x1 kernel.)
    assert [d["symbol"] for d in dispatches] == \
        ["conv2d_1x1_gemm_f32", "conv2d_depthwise_f32", "conv2d_1x1_narrow_f32"], report
    assert "inverted-residual" not in report, report
