"""Conv and MatMul compiled into Kernel dispatches (the runtime's f32 GEMM,
1x1, im2col and depthwise kernels, lib/Kernels): `strata inspect --json`
shows the kernel, and `strata run` matches numpy (float64 reference, rtol
1e-4 / atol 1e-4) on every ISA path this CPU has (STRATA_CPU_ISA) and 1
and 2 threads."""
import json
import os

import numpy as np
import pytest

from cpu_isa_harness import ISAS, strata


def ty(a):
    return "tensor<" + "x".join(map(str, a.shape)) + "xf32>"


def weight(name, a):
    """A top.Weight with `a`'s bytes inline (hex)."""
    hexdata = a.astype("<f4").tobytes().hex().upper()
    return (f'%{name} = top.Weight() {{name = "{name}", value = dense<"0x{hexdata}"> '
            f": {ty(a)}}} : () -> {ty(a)}")


def conv_ref(x, w, b, stride, pad, dil, group):
    """float64 NCHW convolution."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    oh = (h + pad[0] + pad[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pad[1] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    y = np.zeros((n, o, oh, ow))
    og = o // group
    for oc in range(o):
        g = oc // og
        for ky in range(kh):
            for kx in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           ky * dil[0]:ky * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                           kx * dil[1]:kx * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
                y[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, ky, kx])
        y[:, oc] += b[oc]
    return y


def compile_and_check(tmp_path, text, inputs, want, kernel, atol=1e-4, extra=()):
    """Compiles `text` (with `extra` compile options), checks that its one
    dispatch calls `kernel` and that every ISA at 1 and 2 threads matches
    `want` (rtol 1e-4, `atol`); returns the compile report."""
    model = tmp_path / "m.mlir"
    model.write_text(text)
    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize", "--report",
               *extra)
    assert r.returncode == 0, r.stderr
    report = r.stdout
    assert f"kernel '{kernel}': 1 dispatch(es)" in r.stdout, r.stdout
    r = strata("inspect", art, "--json")
    assert r.returncode == 0, r.stderr
    dispatches = json.loads(r.stdout)["variants"][0]["dispatches"]
    assert [(d["kind"], d["symbol"]) for d in dispatches] == [("kernel", kernel)]
    run_every_isa(tmp_path, art, inputs, want, atol)
    return report


def run_every_isa(tmp_path, art, inputs, want, atol):
    """Runs `art` on every ISA at 1 and 2 threads; its output 'y' must match
    `want` (rtol 1e-4, `atol`)."""
    np.savez(tmp_path / "in.npz", **inputs)
    for isa in ISAS:
        for threads in (1, 2):
            env = dict(os.environ, STRATA_CPU_ISA=isa)
            r = strata("run", art, "--input", tmp_path / "in.npz", "--output",
                       tmp_path / "out.npz", "--threads", threads, env=env)
            assert r.returncode == 0, r.stderr
            with np.load(tmp_path / "out.npz") as z:
                np.testing.assert_allclose(z["y"], want, rtol=1e-4, atol=atol,
                                           err_msg=f"{isa}, {threads} threads")


def conv_case(name, xs, ws, stride, pads, dil, group, attrs):
    """A one-Conv model with a bias (seeded by `name`), its input and its
    float64 output."""
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
    return text, x, y


CONVS = [
    # (name, x shape, w shape, stride, pads, dilation, group, epilogue attrs, kernel)
    ("3x3_relu", (1, 8, 13, 17), (24, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1,
     "do_relu = true", "conv2d_im2col_gemm_f32"),
    ("1x1_relu6", (2, 20, 7, 9), (33, 20, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1,
     "do_relu = true, relu_limit = 6.0 : f64", "conv2d_1x1_gemm_f32"),
    ("strided_grouped_dilated", (1, 6, 15, 14), (9, 2, 3, 3), (2, 1), (2, 1, 1, 2), (2, 1), 3,
     "", "conv2d_im2col_gemm_f32"),
    ("depthwise_relu", (1, 16, 11, 12), (16, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 16,
     "do_relu = true", "conv2d_depthwise_f32"),
    # 7x7 outputs take the transposed GEMM form (filter packed as B panels,
    # filter_packed 2; the 3x3 one has fewer than 16 input channels, else
    # Winograd takes it); a strided 1x1 reads the subsampled input; a
    # strided 3x3 the column-phase split one; the depthwise 3x3 path at
    # stride 2.
    ("1x1_7x7_transposed", (1, 40, 7, 7), (48, 40, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1,
     "do_relu = true, relu_limit = 6.0 : f64", "conv2d_1x1_gemm_f32"),
    ("3x3_7x7_transposed", (2, 12, 7, 7), (37, 12, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1,
     "do_relu = true", "conv2d_im2col_gemm_f32"),
    ("1x1_stride2", (1, 16, 13, 15), (20, 16, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1,
     "", "conv2d_im2col_gemm_f32"),
    ("3x3_stride2_odd", (1, 5, 17, 19), (24, 5, 3, 3), (2, 2), (1, 1, 0, 1), (1, 1), 1,
     "do_relu = true", "conv2d_im2col_gemm_f32"),
    ("depthwise_s2_relu6", (1, 24, 15, 37), (24, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 24,
     "do_relu = true, relu_limit = 6.0 : f64", "conv2d_depthwise_f32"),
    # The direct stem (3x3 stride 2, <= 4 input channels; odd sizes, a
    # row of 2 vectors and a tail, 8 + 2 + 1 output channels) and the narrow
    # 1x1 (<= 16 output channels on a plane of at least 28x28).
    ("stem_relu6", (1, 3, 65, 70), (11, 3, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1,
     "do_relu = true, relu_limit = 6.0 : f64", "conv2d_stem_f32"),
    ("stem_2ch_pads", (2, 2, 30, 29), (16, 2, 3, 3), (2, 2), (0, 1, 1, 0), (1, 1), 1,
     "", "conv2d_stem_f32"),
    ("1x1_narrow_relu", (2, 24, 28, 29), (13, 24, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1,
     "do_relu = true", "conv2d_1x1_narrow_f32"),
]


@pytest.mark.parametrize("name,xs,ws,stride,pads,dil,group,attrs,kernel", CONVS,
                         ids=[c[0] for c in CONVS])
def test_conv_is_a_kernel_dispatch(tmp_path, name, xs, ws, stride, pads, dil, group, attrs,
                                   kernel):
    text, x, y = conv_case(name, xs, ws, stride, pads, dil, group, attrs)
    compile_and_check(tmp_path, text, {"x": x}, y, kernel)


def matmul_case():
    """A MatMul with a constant 2-d weight, bias and relu: model, inputs, y."""
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
    return text, {"x": x}, y


def batched_matmul_case():
    """A batched MatMul of two inputs, the right one transposed."""
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
    return text, {"a": a, "b": bt}, y


def test_matmul_weight_is_packed_gemm(tmp_path):
    text, inputs, y = matmul_case()
    compile_and_check(tmp_path, text, inputs, y, "matmul_gemm_f32")


def test_batched_matmul_transposed(tmp_path):
    text, inputs, y = batched_matmul_case()
    compile_and_check(tmp_path, text, inputs, y, "matmul_batched_gemm_f32")


def dynamic_matmul_case(rng):
    """A MatMul of x [?, 40] by a constant [40, 24] weight: model, weight."""
    w = rng.standard_normal((40, 24)).astype(np.float32)
    text = f"""
func.func @main(%x_arg: tensor<?x40xf32> {{top.name = "x"}}) -> (tensor<?x24xf32> {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : (tensor<?x40xf32>) -> tensor<?x40xf32>
  {weight("w", w)}
  %n = top.None() : () -> none
  %0 = top.MatMul(%x, %w, %n) : (tensor<?x40xf32>, {ty(w)}, none) -> tensor<?x24xf32>
  return %0 : tensor<?x24xf32>
}}
"""
    return text, w


def test_variants_share_one_packed_weight(tmp_path):
    # Two batch sizes of one MatMul: the weight is packed once (the packing
    # depends on K, N and transpose_b only) and stored only packed.
    rng = np.random.default_rng(9)
    text, w = dynamic_matmul_case(rng)
    model = tmp_path / "m.mlir"
    model.write_text(text)
    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize", "--report",
               "--input-shapes", "x:3x40", "--input-shapes", "x:30x40")
    assert r.returncode == 0, r.stderr
    # 40 x 32 packed floats (24 columns padded to two 16-column panels).
    packed = 40 * 32 * 4
    assert r.stdout.count(f"packed weights: {packed} bytes") == 1, r.stdout
    assert f"constants: {packed} bytes" in r.stdout, r.stdout
    for n in (3, 30):
        x = rng.standard_normal((n, 40)).astype(np.float32)
        np.savez(tmp_path / "in.npz", x=x)
        r = strata("run", art, "--input", tmp_path / "in.npz", "--output", tmp_path / "out.npz")
        assert r.returncode == 0, r.stderr
        with np.load(tmp_path / "out.npz") as z:
            np.testing.assert_allclose(z["y"], x.astype(np.float64) @ w, rtol=1e-4, atol=1e-4)


def test_weight_read_as_both_operands(tmp_path):
    # MatMul(w, w): B is packed, and A still reads the plain weight.
    w = np.random.default_rng(10).standard_normal((20, 20)).astype(np.float32)
    y = w.astype(np.float64) @ w
    text = f"""
func.func @main(%x_arg: {ty(w)} {{top.name = "x"}}) -> ({ty(w)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(w)}) -> {ty(w)}
  {weight("w", w)}
  %n = top.None() : () -> none
  %0 = top.MatMul(%w, %w, %n) : ({ty(w)}, {ty(w)}, none) -> {ty(w)}
  %1 = top.Add(%0, %x) : ({ty(w)}, {ty(w)}) -> {ty(w)}
  return %1 : {ty(w)}
}}
"""
    model = tmp_path / "m.mlir"
    model.write_text(text)
    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize", "--report")
    assert r.returncode == 0, r.stderr
    assert "kernel 'matmul_gemm_f32': 1 dispatch(es)" in r.stdout, r.stdout
    np.savez(tmp_path / "in.npz", x=np.zeros_like(w))
    r = strata("run", art, "--input", tmp_path / "in.npz", "--output", tmp_path / "out.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out.npz") as z:
        np.testing.assert_allclose(z["y"], y, rtol=1e-4, atol=1e-4)
