"""The oneDNN-backed kernels (onednn_conv2d_f32, onednn_matmul_f32): a
tuning record made by `strata tune --implementations ...` makes the strategy
pick them, and `strata run` matches numpy (float64 reference, rtol 1e-4 /
atol 1e-4) at 1 and 2 threads. A runtime without oneDNN refuses such an
artifact with an error naming the kernel. Skipped in a build without oneDNN
(its registry has no oneDNN candidate: unittests/Strategy/OneDnnStrategyTest)."""
import json
import os

import numpy as np
import pytest

from test_cpu_kernels import STRATA, conv_ref, strata, ty, weight


def onednn_built(tmp_path):
    m = tmp_path / "probe.mlir"
    m.write_text("""
func.func @main(%a: tensor<2x3xf32> {top.name = "a"}) -> (tensor<2x3xf32> {top.name = "y"}) {
  %x = top.Input(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = top.Relu(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
""")
    r = strata("tune", m, "--log", tmp_path / "probe.jsonl", "--implementations",
               "conv2d.onednn_f32", "--dry-run")
    if r.returncode != 0:
        assert "lacks the optional library 'onednn'" in r.stderr, r.stderr
        return False
    return True


@pytest.fixture
def needs_onednn(tmp_path):
    if not onednn_built(tmp_path):
        pytest.skip("Strata was built without oneDNN")


def compile_with_onednn(tmp_path, text, impl, kernel):
    model = tmp_path / "m.mlir"
    model.write_text(text)
    log = tmp_path / "tune.jsonl"
    r = strata("tune", model, "--no-optimize", "--log", log, "--implementations", impl,
               "--min-time-ms", "0")
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [rec["implementation"] for rec in records] == [impl]
    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize", "--report",
               "--tuning-log", log, "--explain-strategy")
    assert r.returncode == 0, r.stderr
    assert f"winner: {impl} (tuning record, line 1)" in r.stdout, r.stdout
    assert f"kernel '{kernel}': 1 dispatch(es)" in r.stdout, r.stdout
    return art


def run_and_check(tmp_path, art, inputs, want):
    np.savez(tmp_path / "in.npz", **inputs)
    for threads in (1, 2):
        r = strata("run", art, "--input", tmp_path / "in.npz", "--output",
                   tmp_path / "out.npz", "--threads", threads)
        assert r.returncode == 0, r.stderr
        with np.load(tmp_path / "out.npz") as z:
            np.testing.assert_allclose(z["y"], want, rtol=1e-4, atol=1e-4,
                                       err_msg=f"{threads} threads")


CONVS = [
    # (name, x shape, w shape, stride, pads, dilation, group, epilogue attrs)
    ("3x3_relu", (1, 8, 13, 17), (24, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1,
     "do_relu = true"),
    ("1x1_relu6", (2, 20, 7, 9), (33, 20, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1,
     "do_relu = true, relu_limit = 6.0 : f64"),
    ("strided_grouped_dilated", (1, 6, 15, 14), (9, 2, 3, 3), (2, 1), (2, 1, 1, 2), (2, 1), 3,
     ""),
]


@pytest.mark.parametrize("name,xs,ws,stride,pads,dil,group,attrs", CONVS,
                         ids=[c[0] for c in CONVS])
def test_onednn_conv(tmp_path, needs_onednn, name, xs, ws, stride, pads, dil, group, attrs):
    rng = np.random.default_rng(len(name))
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    y = conv_ref(x, w, b, stride, pads, dil, group)
    if "relu_limit" in attrs:
        y = np.clip(y, 0, 6)
    elif "do_relu" in attrs:
        y = np.maximum(y, 0)
    extra = (", " + attrs) if attrs else ""
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  {weight("w", w)}
  {weight("b", b)}
  %0 = top.Conv(%x, %w, %b) {{kernel_shape = array<i64: {ws[2]}, {ws[3]}>,
      strides = array<i64: {stride[0]}, {stride[1]}>,
      pads = array<i64: {pads[0]}, {pads[1]}, {pads[2]}, {pads[3]}>,
      dilations = array<i64: {dil[0]}, {dil[1]}>, group = {group}{extra}}}
      : ({ty(x)}, {ty(w)}, {ty(b)}) -> {ty(y)}
  return %0 : {ty(y)}
}}
"""
    art = compile_with_onednn(tmp_path, text, "conv2d.onednn_f32", "onednn_conv2d_f32")
    run_and_check(tmp_path, art, {"x": x}, y)


def test_onednn_matmul_bias_relu(tmp_path, needs_onednn):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 37, 64)).astype(np.float32)
    w = rng.standard_normal((64, 50)).astype(np.float32)
    b = rng.standard_normal(50).astype(np.float32)
    y = np.maximum(x.astype(np.float64) @ w + b, 0)
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  {weight("w", w)}
  {weight("b", b)}
  %0 = top.MatMul(%x, %w, %b) {{do_relu = true}} : ({ty(x)}, {ty(w)}, {ty(b)}) -> {ty(y)}
  return %0 : {ty(y)}
}}
"""
    art = compile_with_onednn(tmp_path, text, "matmul.onednn_f32", "onednn_matmul_f32")
    run_and_check(tmp_path, art, {"x": x}, y)


def test_onednn_batched_matmul_transposed(tmp_path, needs_onednn):
    rng = np.random.default_rng(8)
    a = rng.standard_normal((4, 19, 33)).astype(np.float32)
    bt = rng.standard_normal((4, 21, 33)).astype(np.float32)
    y = a.astype(np.float64) @ bt.transpose(0, 2, 1)
    text = f"""
func.func @main(%a_arg: {ty(a)} {{top.name = "a"}}, %b_arg: {ty(bt)} {{top.name = "b"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %a = top.Input(%a_arg) : ({ty(a)}) -> {ty(a)}
  %b = top.Input(%b_arg) : ({ty(bt)}) -> {ty(bt)}
  %n = top.None() : () -> none
  %0 = top.MatMul(%a, %b, %n) {{right_transpose = true}} : ({ty(a)}, {ty(bt)}, none) -> {ty(y)}
  return %0 : {ty(y)}
}}
"""
    art = compile_with_onednn(tmp_path, text, "matmul.onednn_f32", "onednn_matmul_f32")
    run_and_check(tmp_path, art, {"a": a, "b": bt}, y)


def test_runtime_without_onednn_refuses_the_artifact(tmp_path, needs_onednn):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((5, 16)).astype(np.float32)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}) -> (tensor<5x8xf32> {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  {weight("w", w)}
  %n = top.None() : () -> none
  %0 = top.MatMul(%x, %w, %n) : ({ty(x)}, {ty(w)}, none) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}}
"""
    art = compile_with_onednn(tmp_path, text, "matmul.onednn_f32", "onednn_matmul_f32")
    np.savez(tmp_path / "in.npz", x=x)
    env = dict(os.environ, STRATA_RUNTIME_NO_ONEDNN="1")
    r = strata("run", art, "--input", tmp_path / "in.npz", "--output", tmp_path / "o.npz",
               env=env)
    assert r.returncode == 1
    assert "kernel 'onednn_matmul_f32' needs oneDNN, and this runtime was built without it" \
        in r.stderr, r.stderr
    r = strata("inspect", art)
    assert r.returncode == 0, r.stderr
