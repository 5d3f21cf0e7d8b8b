"""Residual Adds fused into the GEMM/convolution kernels' epilogue
(lib/Target/Cpu/KernelDispatch.cpp fuseResidualAdds): the compiled model
reports the fusion, `strata inspect --json` shows binding 4 and whether the
result went in place of the residual, and `strata run` matches a float64
numpy reference (rtol 1e-4, atol 1e-4) on every ISA path this CPU has and 1
and 2 threads. Covers K over one K block (256) in place, a 3x3 im2col
convolution, a batched MatMul, and a residual that is also the input."""
import json
import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")


def _flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


FLAGS = _flags()
ISAS = ["portable"] + (["avx2"] if {"avx2", "fma"} <= FLAGS else []) + \
    (["avx512"] if "avx512f" in FLAGS else [])


def strata(*args, env=None):
    return subprocess.run([STRATA, *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)


def ty(a):
    return "tensor<" + "x".join(map(str, a.shape)) + "xf32>"


def weight(name, a):
    hexdata = a.astype("<f4").tobytes().hex().upper()
    return (f'%{name} = top.Weight() {{name = "{name}", value = dense<"0x{hexdata}"> '
            f": {ty(a)}}} : () -> {ty(a)}")


def conv(name, x, w, ty_x, ty_y, pad, extra=""):
    k = w.shape[2]
    return (f"top.Conv({x}, %{name}, %n) {{kernel_shape = array<i64: {k}, {k}>, "
            f"strides = array<i64: 1, 1>, pads = array<i64: {pad}, {pad}, {pad}, {pad}>, "
            f"dilations = array<i64: 1, 1>, group = 1{extra}}} "
            f": ({ty_x}, {ty(w)}, none) -> {ty_y}")


def conv_ref(x, w, pad):
    """float64 NCHW stride-1 convolution."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    o, c, k, _ = w.shape
    n, _, h, wd = x.shape
    oh, ow = h - k + 1, wd - k + 1
    y = np.zeros((n, o, oh, ow))
    for ky in range(k):
        for kx in range(k):
            y += np.einsum("nchw,oc->nohw", x[:, :, ky:ky + oh, kx:kx + ow], w[:, :, ky, kx])
    return y


def run_everywhere(tmp_path, text, inputs, want, fused):
    model = tmp_path / "m.mlir"
    model.write_text(text)
    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize", "--report")
    assert r.returncode == 0, r.stderr
    assert f"residual adds fused into a kernel epilogue: {fused}" in r.stdout, r.stdout
    r = strata("inspect", art, "--json")
    assert r.returncode == 0, r.stderr
    variant = json.loads(r.stdout)["variants"][0]
    np.savez(tmp_path / "in.npz", **inputs)
    for isa in ISAS:
        for threads in (1, 2):
            env = dict(os.environ, STRATA_CPU_ISA=isa)
            r = strata("run", art, "--input", tmp_path / "in.npz", "--output",
                       tmp_path / "out.npz", "--threads", threads, env=env)
            assert r.returncode == 0, r.stderr
            with np.load(tmp_path / "out.npz") as z:
                for name, w in want.items():
                    np.testing.assert_allclose(z[name], w, rtol=1e-4, atol=1e-4,
                                               err_msg=f"{name}: {isa}, {threads} threads")
    return variant


def kernel_dispatches(variant):
    return [d for d in variant["dispatches"] if d["kind"] == "kernel"]


def test_conv_residual_in_place_over_several_k_blocks(tmp_path):
    # y0 = conv1x1(x) (K = 300 > 256), y1 = relu(conv3x3(y0)),
    # y2 = relu(conv3x3(y1) + y0) written over y0 (K = 2700: the in-place
    # form accumulates over several K blocks), y3 = conv1x1(y2) + y2 (the
    # residual is also the input: a separate output).
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 300, 7, 9)).astype(np.float32)
    w0 = (rng.standard_normal((300, 300, 1, 1)) * 0.05).astype(np.float32)
    w1 = (rng.standard_normal((300, 300, 3, 3)) * 0.02).astype(np.float32)
    w2 = (rng.standard_normal((300, 300, 1, 1)) * 0.05).astype(np.float32)
    y0 = conv_ref(x, w0, 0)
    y1 = np.maximum(conv_ref(y0, w1, 1), 0)
    y2 = np.maximum(conv_ref(y1, w1, 1) + y0, 0)
    y3 = conv_ref(y2, w2, 0) + y2
    t = ty(y0)
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}) -> ({t} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  %n = top.None() : () -> none
  {weight("w0", w0)}
  {weight("w1", w1)}
  {weight("w2", w2)}
  %0 = {conv("w0", "%x", w0, ty(x), t, 0)}
  %1 = {conv("w1", "%0", w1, t, t, 1, ", do_relu = true")}
  %2 = {conv("w1", "%1", w1, t, t, 1)}
  %3 = top.Add(%0, %2) {{do_relu = true}} : ({t}, {t}) -> {t}
  %4 = {conv("w2", "%3", w2, t, t, 0)}
  %5 = top.Add(%4, %3) : ({t}, {t}) -> {t}
  return %5 : {t}
}}
"""
    variant = run_everywhere(tmp_path, text, {"x": x}, {"y": y3}, fused=2)
    ks = kernel_dispatches(variant)
    assert [d["symbol"] for d in ks] == ["conv2d_1x1_gemm_f32", "conv2d_im2col_gemm_f32",
                                         "conv2d_im2col_gemm_f32", "conv2d_1x1_gemm_f32"]
    # The second 3x3 conv's result goes over y0, its residual.
    b = ks[2]["bindings"]
    assert b[3] == b[4] == ks[0]["bindings"][3], b
    # The last reads y2 as input and residual: a separate output.
    b = ks[3]["bindings"]
    assert b[0] == b[4] and b[3] != b[4], b


def test_batched_matmul_residual(tmp_path):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 29, 40)).astype(np.float32)
    w = rng.standard_normal((40, 45)).astype(np.float32)
    bias = rng.standard_normal(45).astype(np.float32)
    r = rng.standard_normal((3, 29, 45)).astype(np.float32)
    y = np.maximum(a.astype(np.float64) @ w + bias + r, 0)
    text = f"""
func.func @main(%a_arg: {ty(a)} {{top.name = "a"}}, %r_arg: {ty(r)} {{top.name = "r"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %a = top.Input(%a_arg) : ({ty(a)}) -> {ty(a)}
  %r = top.Input(%r_arg) : ({ty(r)}) -> {ty(r)}
  {weight("w", w)}
  {weight("b", bias)}
  %0 = top.MatMul(%a, %w, %b) : ({ty(a)}, {ty(w)}, {ty(bias)}) -> {ty(y)}
  %1 = top.Add(%r, %0) {{do_relu = true}} : ({ty(y)}, {ty(y)}) -> {ty(y)}
  return %1 : {ty(y)}
}}
"""
    variant = run_everywhere(tmp_path, text, {"a": a, "r": r}, {"y": y}, fused=1)
    (k,) = kernel_dispatches(variant)
    assert k["params"][-5:] == [1, 1, 0, 0, 1], k["params"]


@pytest.mark.parametrize("relu_first", [False, True])
def test_activation_before_the_add_is_not_fused(tmp_path, relu_first):
    # relu(conv(x)) + r is not relu-free conv + r: fused only without it.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 5, 6, 6)).astype(np.float32)
    w = rng.standard_normal((7, 5, 3, 3)).astype(np.float32)
    r = rng.standard_normal((1, 7, 6, 6)).astype(np.float32)
    y = conv_ref(x, w, 1)
    y = (np.maximum(y, 0) if relu_first else y) + r
    extra = ", do_relu = true" if relu_first else ""
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}, %r_arg: {ty(r)} {{top.name = "r"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  %r = top.Input(%r_arg) : ({ty(r)}) -> {ty(r)}
  %n = top.None() : () -> none
  {weight("w", w)}
  %0 = {conv("w", "%x", w, ty(x), ty(y), 1, extra)}
  %1 = top.Add(%0, %r) : ({ty(y)}, {ty(y)}) -> {ty(y)}
  return %1 : {ty(y)}
}}
"""
    model = tmp_path / "m.mlir"
    model.write_text(text)
    if relu_first:
        r2 = strata("compile", model, "--target", "cpu", "-o", tmp_path / "m.strata",
                    "--no-optimize", "--report")
        assert r2.returncode == 0, r2.stderr
        assert "residual adds fused" not in r2.stdout, r2.stdout
        np.savez(tmp_path / "in.npz", x=x, r=r)
        r2 = strata("run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
                    "--output", tmp_path / "out.npz")
        assert r2.returncode == 0, r2.stderr
        with np.load(tmp_path / "out.npz") as z:
            np.testing.assert_allclose(z["y"], y, rtol=1e-4, atol=1e-4)
    else:
        run_everywhere(tmp_path, text, {"x": x, "r": r}, {"y": y}, fused=1)
