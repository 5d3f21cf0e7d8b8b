"""3x3 stride-1 convolutions with outputs of at least 7x7 compile to the
Winograd kernel (conv2d_winograd_f43_f32, the transformed filter stored in
the artifact: F(4x4, 3x3), or F(2x2, 3x3) on outputs up to 10x10) and match
a float64 numpy reference on every ISA path this CPU has and at 1 and 2
threads. Tolerance: rtol 1e-4 plus an
absolute 5e-5 * max |y| (the bound unittests/Kernels/WinogradTest states
from the error measured over ResNet-50's 3x3 layers). A tuning record's
tile_hw reaches the kernel's params; a filter that is not a constant is
transformed at run time. 3x3 stride-2 convolutions with at least 64 input
channels and outputs of at least 7x7 take the kernel's stride-2 form (16
transformed filter matrices; its transforms only add, so the same bound
holds with room); fewer channels stay on the GEMM convolution."""
import json

import numpy as np
import pytest

from test_cpu_kernels import compile_and_check, conv_case, conv_ref, strata, ty, weight

KERNEL = "conv2d_winograd_f43_f32"
# Asymmetric pads: partial tiles on the right and bottom edges.
PADS = (1, 0, 2, 1)


def case(act, c=20, o=24, h=17, w=19):
    attrs = {"relu": "do_relu = true", "relu6": "do_relu = true, relu_limit = 6.0 : f64",
             "none": ""}[act]
    return conv_case("winograd_" + act, (1, c, h, w), (o, c, 3, 3), (1, 1), PADS, (1, 1), 1,
                     attrs)


def atol(y):
    return 5e-5 * np.abs(y).max()


@pytest.mark.parametrize("act", ["relu", "relu6", "none"])
def test_winograd_conv_matches_numpy(tmp_path, act):
    text, x, y = case(act)
    report = compile_and_check(tmp_path, text, {"x": x}, y, KERNEL, atol=atol(y))
    # The transformed filter: 36 packed 24 x 20 matrices (24 rows: two
    # 12-row panels), 4 bytes each.
    assert f"packed weights: {36 * 24 * 20 * 4} bytes" in report, report


@pytest.mark.parametrize("h,w", [(6, 8), (7, 10), (9, 8)])
def test_winograd_f23_small_outputs(tmp_path, h, w):
    # With the asymmetric pads the outputs are (h + 1) x (w - 1): 7x7
    # (ResNet-50's 7x7 layers), 8x9 and 10x7: F(2x2, 3x3), partial 2x2
    # tiles on the right and bottom edges, 16 transformed points.
    text, x, y = case("relu", c=18, o=26, h=h, w=w)
    report = compile_and_check(tmp_path, text, {"x": x}, y, KERNEL, atol=atol(y))
    # 16 packed 36 x 18 matrices (26 rows: three 12-row panels).
    assert f"packed weights: {16 * 36 * 18 * 4} bytes" in report, report


def test_winograd_filter_not_constant(tmp_path):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 16, 14, 15)).astype(np.float32)
    w = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    y = conv_ref(x, w, b, (1, 1), PADS, (1, 1), 1)
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}, %w_arg: {ty(w)} {{top.name = "w"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  %w = top.Input(%w_arg) : ({ty(w)}) -> {ty(w)}
  {weight("b", b)}
  %0 = top.Conv(%x, %w, %b) {{kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
      pads = array<i64: 1, 0, 2, 1>, dilations = array<i64: 1, 1>, group = 1}}
      : ({ty(x)}, {ty(w)}, {ty(b)}) -> {ty(y)}
  return %0 : {ty(y)}
}}
"""
    report = compile_and_check(tmp_path, text, {"x": x, "w": w}, y, KERNEL, atol=atol(y))
    assert "packed weights" not in report, report


def test_winograd_tile_hw_from_tuning_record(tmp_path):
    text, x, y = case("none")
    model = tmp_path / "m.mlir"
    model.write_text(text)
    log = tmp_path / "tune.jsonl"
    r = strata("tune", model, "--no-optimize", "--log", log, "--implementations",
               "conv2d.winograd_f43", "--min-time-ms", "0")
    assert r.returncode == 0, r.stderr
    recs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len({rec["workload"] for rec in recs}) == 1
    assert sorted(rec["config"]["tile_hw"] for rec in recs) == [16, 32, 64, 128]
    forced = tmp_path / "forced.jsonl"
    forced.write_text(json.dumps(dict(recs[0], config={"tile_hw": 7}, cost=1e-9)) + "\n")
    compile_and_check(tmp_path, text, {"x": x}, y, KERNEL, atol=atol(y),
                      extra=("--tuning-log", forced))
    r = strata("inspect", tmp_path / "m.strata", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)["variants"][0]["dispatches"][0]
    assert d["symbol"] == KERNEL
    assert d["params"][-1] == 7


@pytest.mark.parametrize("h,w,pads", [(28, 29, (1, 1, 1, 1)), (31, 28, (0, 1, 2, 0)),
                                      (30, 33, (1, 0, 0, 1)), (14, 14, (1, 1, 1, 1))])
def test_winograd_stride2(tmp_path, h, w, pads):
    # Outputs 14x15, 16x14, 15x17 and 7x7: partial 2x2 tiles on odd sides,
    # asymmetric and zero pads; 64 input and 26 output channels (three
    # 12-row panels, the last partial).
    rng = np.random.default_rng(h * w)
    x = rng.standard_normal((1, 64, h, w)).astype(np.float32)
    wt = rng.standard_normal((26, 64, 3, 3)).astype(np.float32)
    b = rng.standard_normal(26).astype(np.float32)
    y = np.maximum(conv_ref(x, wt, b, (2, 2), pads, (1, 1), 1), 0)
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  {weight("w", wt)}
  {weight("b", b)}
  %0 = top.Conv(%x, %w, %b) {{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
      pads = array<i64: {pads[0]}, {pads[1]}, {pads[2]}, {pads[3]}>,
      dilations = array<i64: 1, 1>, group = 1, do_relu = true}}
      : ({ty(x)}, {ty(wt)}, {ty(b)}) -> {ty(y)}
  return %0 : {ty(y)}
}}
"""
    report = compile_and_check(tmp_path, text, {"x": x}, y, KERNEL, atol=atol(y))
    # 16 packed 36 x 64 matrices (26 rows: three 12-row panels).
    assert f"packed weights: {16 * 36 * 64 * 4} bytes" in report, report


def test_winograd_stride2_few_channels_stays_gemm(tmp_path):
    # 32 input channels: the stride-2 form's transforms outweigh its saving
    # there, so the strategy leaves it to im2col.
    text, x, y = conv_case("s2_narrow", (1, 32, 28, 28), (16, 32, 3, 3), (2, 2), (1, 1, 1, 1),
                           (1, 1), 1, "")
    compile_and_check(tmp_path, text, {"x": x}, y, "conv2d_im2col_gemm_f32")
