"""The runtime kernels beyond the GEMM (binary with broadcasting, softmax and
layer norm over the last axis, max/avg/global-avg pooling, transposed
convolution; lib/Kernels/OpKernels*, Deconv.cpp) compiled from Top ops, and
residual Adds fused into the GEMM/convolution kernels (at the end): `strata inspect --json` shows the kernel
dispatch, and `strata run` matches a float64 numpy reference (rtol 1e-5,
atol 1e-5; tighter where stated) on every ISA path this CPU has at 1
thread and the best one at 2 threads, with odd sizes (vector tails), broadcasts, pads, strides, dilation
and ceil mode."""
import json
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "compiled"))
from cpu_isa_harness import ISAS, strata  # noqa: E402


def ty(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def model(inputs, body, out_shape):
    args = ", ".join(f'%{n}_arg: {ty(a.shape)} {{top.name = "{n}"}}' for n, a in inputs.items())
    ins = "\n".join(f"  %{n} = top.Input(%{n}_arg) : ({ty(a.shape)}) -> {ty(a.shape)}"
                    for n, a in inputs.items())
    return f"""
func.func @main({args}) -> ({ty(out_shape)} {{top.name = "y"}}) {{
{ins}
  %n = top.None() : () -> none
  %y = {body}
  return %y : {ty(out_shape)}
}}
"""


def run_isas(tmp_path, art, inputs, want, rtol, atol):
    """Runs `art` on every ISA at 1 thread and the best at 2 and compares
    each output in `want` (name -> float64 reference)."""
    np.savez(tmp_path / "in.npz", **inputs)
    for isa, threads in [(i, 1) for i in ISAS] + [(ISAS[-1], 2)]:
        env = dict(os.environ, STRATA_CPU_ISA=isa)
        r = strata("run", art, "--input", tmp_path / "in.npz", "--output",
                   tmp_path / "out.npz", "--threads", threads, env=env)
        assert r.returncode == 0, r.stderr
        with np.load(tmp_path / "out.npz") as z:
            for name, w in want.items():
                np.testing.assert_allclose(z[name], w, rtol=rtol, atol=atol,
                                           err_msg=f"{name}: {isa}, {threads} threads")


def check(tmp_path, inputs, body, want, kernel, rtol=1e-5, atol=1e-5):
    m = tmp_path / "m.mlir"
    m.write_text(model(inputs, body, want.shape))
    art = tmp_path / "m.strata"
    r = strata("compile", m, "--target", "cpu", "-o", art, "--no-optimize", "--report")
    assert r.returncode == 0, r.stderr
    r = strata("inspect", art, "--json")
    assert r.returncode == 0, r.stderr
    ds = json.loads(r.stdout)["variants"][0]["dispatches"]
    assert [(d["kind"], d["symbol"]) for d in ds] == [("kernel", kernel)], ds
    run_isas(tmp_path, art, inputs, {"y": want}, rtol, atol)


BINARY = [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply),
          ("Div", np.divide), ("Max", np.maximum), ("Min", np.minimum)]
SHAPES = [((2, 3, 37, 129), (3, 1, 1)), ((1, 128, 768), (768,)),
          ((4, 1, 33), (4, 17, 1)), ((7,), (7,))]


# Every op on a per-channel broadcast; the other broadcasts on Add and Div.
BINARY_CASES = [(op, fn, *SHAPES[0]) for op, fn in BINARY] + \
    [(op, fn, *sh) for op, fn in (BINARY[0], BINARY[3]) for sh in SHAPES[1:]]


@pytest.mark.parametrize("op,fn,sa,sb", BINARY_CASES,
                         ids=[f"{c[0]}-{'x'.join(map(str, c[3]))}" for c in BINARY_CASES])
def test_binary_broadcast(tmp_path, op, fn, sa, sb):
    rng = np.random.default_rng(len(op) + len(sa))
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    b += np.where(b < 0, -0.5, 0.5).astype(np.float32)
    want = fn(a.astype(np.float64), b.astype(np.float64))
    relu = op == "Add"
    if relu:
        want = np.maximum(want, 0)
    attrs = " {do_relu = true}" if relu else ""
    body = f"top.{op}(%a, %b){attrs} : ({ty(a.shape)}, {ty(b.shape)}) -> {ty(want.shape)}"
    check(tmp_path, {"a": a, "b": b}, body, want, op.lower() + "_bcast_f32")


@pytest.mark.parametrize("shape", [(3, 5, 17), (2, 12, 128, 128), (4, 1)])
def test_softmax_last_axis(tmp_path, shape):
    x = (np.random.default_rng(1).standard_normal(shape) * 6).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
    want = e / e.sum(-1, keepdims=True)
    body = f"top.Softmax(%x) {{axis = -1 : i64}} : ({ty(shape)}) -> {ty(shape)}"
    check(tmp_path, {"x": x}, body, want, "softmax_last_axis_f32", rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("shape,affine", [((1, 128, 768), True), ((5, 33), False)])
def test_layernorm_last_axis(tmp_path, shape, affine):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    s = rng.standard_normal(shape[-1]).astype(np.float32)
    b = rng.standard_normal(shape[-1]).astype(np.float32)
    xd = x.astype(np.float64)
    want = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-6)
    inputs = {"x": x}
    if affine:
        want = want * s + b
        inputs.update(s=s, b=b)
        ops, tys = "%x, %s, %b", f"{ty(shape)}, {ty(s.shape)}, {ty(b.shape)}"
    else:
        ops, tys = "%x, %n, %n", f"{ty(shape)}, none, none"
    body = (f"top.LayerNorm({ops}) {{axis = -1 : i64, epsilon = 1.0e-6 : f64}} "
            f": ({tys}) -> {ty(shape)}")
    check(tmp_path, inputs, body, want, "layernorm_last_axis_f32", rtol=1e-4, atol=1e-4)


def pool_ref(x, k, s, pads, dil, out_hw, is_max, cip):
    n, c, h, w = x.shape
    oh, ow = out_hw
    y = np.zeros((n, c, oh, ow))
    for oy in range(oh):
        for ox in range(ow):
            vals, pad_count = [], 0
            for ky in range(k[0]):
                for kx in range(k[1]):
                    iy = oy * s[0] + ky * dil[0] - pads[0]
                    ix = ox * s[1] + kx * dil[1] - pads[1]
                    pad_count += (-pads[0] <= iy < h + pads[2]) and (-pads[1] <= ix < w + pads[3])
                    if 0 <= iy < h and 0 <= ix < w:
                        vals.append(x[:, :, iy, ix].astype(np.float64))
            if is_max:
                y[:, :, oy, ox] = np.max(vals, axis=0) if vals else -np.inf
            else:
                div = pad_count if cip else len(vals)
                y[:, :, oy, ox] = np.sum(vals, axis=0) / div if div else 0
    return y


POOLS = [
    # (x shape, kernel, strides, pads, dilations, ceil)
    ((1, 64, 112, 112), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False),
    ((2, 3, 13, 17), (3, 3), (2, 2), (0, 0, 0, 0), (1, 1), True),
    ((1, 5, 9, 11), (2, 3), (1, 1), (1, 0, 0, 2), (1, 1), False),
    # 3-wide stride-2 max rows in registers: 16-output chunks with a short
    # last one (19, 35 outputs), windows past the right edge (ceil mode),
    # 2-row windows 3 rows apart.
    ((1, 4, 35, 37), (3, 3), (2, 2), (1, 1, 0, 1), (1, 1), True),
    ((1, 3, 9, 70), (2, 3), (3, 2), (0, 1, 1, 0), (1, 1), False),
]


@pytest.mark.parametrize("kind", ["MaxPool", "AvgPool", "AvgPoolPad"])
@pytest.mark.parametrize("xs,k,s,pads,dil,ceil", POOLS,
                         ids=["stem", "ceil", "oddpad", "rows3s2", "rows3s2kh2"])
def test_pool2d(tmp_path, kind, xs, k, s, pads, dil, ceil):
    x = np.random.default_rng(3).standard_normal(xs).astype(np.float32)
    h, w = xs[2:]

    def out(i, p0, p1, kk, st, d):
        span = d * (kk - 1) + 1
        num = i + p0 + p1 - span
        o = (-(-num // st) if ceil else num // st) + 1
        if ceil and (o - 1) * st >= i + p0:
            o -= 1
        return o
    oh = out(h, pads[0], pads[2], k[0], s[0], dil[0])
    ow = out(w, pads[1], pads[3], k[1], s[1], dil[1])
    cip = kind == "AvgPoolPad"
    want = pool_ref(x, k, s, pads, dil, (oh, ow), kind == "MaxPool", cip)
    op = "MaxPool" if kind == "MaxPool" else "AvgPool"
    attrs = (f"kernel_shape = array<i64: {k[0]}, {k[1]}>, strides = array<i64: {s[0]}, {s[1]}>, "
             f"pads = array<i64: {', '.join(map(str, pads))}>, "
             f"dilations = array<i64: {dil[0]}, {dil[1]}>, ceil_mode = {str(ceil).lower()}, "
             f"count_include_pad = {str(cip).lower()}")
    yshape = (xs[0], xs[1], oh, ow)
    body = f"top.{op}(%x) {{{attrs}}} : ({ty(xs)}) -> {ty(yshape)}"
    kernel = "maxpool2d_nchw_f32" if op == "MaxPool" else "avgpool2d_nchw_f32"
    check(tmp_path, {"x": x}, body, want, kernel, rtol=1e-6, atol=1e-6)


def test_max_pool_nan_wins(tmp_path):
    # NaN in a window gives NaN (numpy.max), at the edges and inside, on the
    # 3-wide stride-2 rows as on the generic ones.
    x = np.random.default_rng(7).standard_normal((1, 2, 20, 41)).astype(np.float32)
    x[0, 0, 0, 0] = x[0, 0, 7, 20] = x[0, 1, 19, 40] = x[0, 1, 10, 33] = np.nan
    want = pool_ref(x, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), (10, 21), True, False)
    assert np.isnan(want).sum() >= 4
    attrs = ("kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, "
             "pads = array<i64: 1, 1, 1, 1>")
    body = f"top.MaxPool(%x) {{{attrs}}} : ({ty(x.shape)}) -> {ty(want.shape)}"
    check(tmp_path, {"x": x}, body, want, "maxpool2d_nchw_f32", rtol=0, atol=0)


def test_global_avg_pool_relu(tmp_path):
    x = np.random.default_rng(4).standard_normal((2, 37, 7, 9)).astype(np.float32)
    want = np.maximum(x.astype(np.float64).mean((2, 3), keepdims=True), 0)
    body = f"top.GlobalAvgPool(%x) {{do_relu = true}} : ({ty(x.shape)}) -> {ty(want.shape)}"
    check(tmp_path, {"x": x}, body, want, "globalavgpool_nchw_f32")


@pytest.mark.parametrize("k,s,pads,opad,group", [(2, 2, (0, 0, 0, 0), (0, 0), 1),
                                                 (3, 2, (1, 1, 1, 1), (1, 1), 2)],
                         ids=["k2s2", "k3s2_pad_outpad_group"])
def test_deconv2d(tmp_path, k, s, pads, opad, group):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 6, 9, 11)).astype(np.float32)
    w = rng.standard_normal((6, 4 // group * 2, k, k)).astype(np.float32)
    b = rng.standard_normal(w.shape[1] * group).astype(np.float32)
    n, c, h, wd = x.shape
    og = w.shape[1]
    full = np.zeros((n, og * group, (h - 1) * s + k + opad[0], (wd - 1) * s + k + opad[1]))
    cg = c // group
    for ci in range(c):
        g = ci // cg
        for ky in range(k):
            for kx in range(k):
                full[:, g * og:(g + 1) * og, ky:ky + (h - 1) * s + 1:s, kx:kx + (wd - 1) * s + 1:s] += \
                    np.einsum("nhw,o->nohw", x[:, ci].astype(np.float64), w[ci, :, ky, kx])
    want = full[:, :, pads[0]:full.shape[2] - pads[2], pads[1]:full.shape[3] - pads[3]]
    want = np.maximum(want + b[None, :, None, None], 0)
    body = (f"top.Deconv(%x, %w, %b) {{kernel_shape = array<i64: {k}, {k}>, "
            f"strides = array<i64: {s}, {s}>, pads = array<i64: {', '.join(map(str, pads))}>, "
            f"output_padding = array<i64: {opad[0]}, {opad[1]}>, group = {group}, do_relu = true}} "
            f": ({ty(x.shape)}, {ty(w.shape)}, {ty(b.shape)}) -> {ty(want.shape)}")
    check(tmp_path, {"x": x, "w": w, "b": b}, body, want, "deconv2d_gemm_f32",
          rtol=1e-4, atol=1e-4)


#===----------------------------------------------------------------------===#
# Residual Adds fused into the GEMM/convolution kernels' epilogue
# (fuseResidualAdds): the compiled model reports the fusion, `strata inspect
# --json` shows binding 4 and whether the result went in place of the
# residual, and `strata run` matches float64 numpy (rtol 1e-4, atol 1e-4) on
# every ISA at 1 thread and the best at 2. Covers K over one K block (256) in place, a
# 3x3 im2col convolution, a batched MatMul, and a residual that is also the
# input.
#===----------------------------------------------------------------------===#


def aty(a):
    return ty(a.shape)


def weight(name, a):
    hexdata = a.astype("<f4").tobytes().hex().upper()
    return (f'%{name} = top.Weight() {{name = "{name}", value = dense<"0x{hexdata}"> '
            f": {aty(a)}}} : () -> {aty(a)}")


def conv(name, x, w, ty_x, ty_y, pad, extra=""):
    k = w.shape[2]
    return (f"top.Conv({x}, %{name}, %n) {{kernel_shape = array<i64: {k}, {k}>, "
            f"strides = array<i64: 1, 1>, pads = array<i64: {pad}, {pad}, {pad}, {pad}>, "
            f"dilations = array<i64: 1, 1>, group = 1{extra}}} "
            f": ({ty_x}, {aty(w)}, none) -> {ty_y}")


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
    path = tmp_path / "m.mlir"
    path.write_text(text)
    art = tmp_path / "m.strata"
    r = strata("compile", path, "--target", "cpu", "-o", art, "--no-optimize", "--report")
    assert r.returncode == 0, r.stderr
    assert f"residual adds fused into a kernel epilogue: {fused}" in r.stdout, r.stdout
    r = strata("inspect", art, "--json")
    assert r.returncode == 0, r.stderr
    variant = json.loads(r.stdout)["variants"][0]
    run_isas(tmp_path, art, inputs, want, 1e-4, 1e-4)
    return variant


def kernel_dispatches(variant):
    return [d for d in variant["dispatches"] if d["kind"] == "kernel"]


def test_conv_residual_in_place_over_several_k_blocks(tmp_path):
    # y0 = conv1x1(x) (K = 300 > 256), y1 = relu(conv3x3(y0)),
    # y2 = relu(conv3x3(y1) + y0) written over y0 (K = 2700: the in-place
    # form accumulates over several K blocks), y3 = conv1x1(y2) + y2 (the
    # residual is also the input: a separate output).
    rng = np.random.default_rng(1)
    # 6 rows: an output under 7x7 stays im2col (Winograd takes 7x7 and up).
    x = rng.standard_normal((1, 300, 6, 9)).astype(np.float32)
    w0 = (rng.standard_normal((300, 300, 1, 1)) * 0.05).astype(np.float32)
    w1 = (rng.standard_normal((300, 300, 3, 3)) * 0.02).astype(np.float32)
    w2 = (rng.standard_normal((300, 300, 1, 1)) * 0.05).astype(np.float32)
    y0 = conv_ref(x, w0, 0)
    y1 = np.maximum(conv_ref(y0, w1, 1), 0)
    y2 = np.maximum(conv_ref(y1, w1, 1) + y0, 0)
    y3 = conv_ref(y2, w2, 0) + y2
    t = aty(y0)
    text = f"""
func.func @main(%x_arg: {aty(x)} {{top.name = "x"}}) -> ({t} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({aty(x)}) -> {aty(x)}
  %n = top.None() : () -> none
  {weight("w0", w0)}
  {weight("w1", w1)}
  {weight("w2", w2)}
  %0 = {conv("w0", "%x", w0, aty(x), t, 0)}
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
func.func @main(%a_arg: {aty(a)} {{top.name = "a"}}, %r_arg: {aty(r)} {{top.name = "r"}}) -> ({aty(y)} {{top.name = "y"}}) {{
  %a = top.Input(%a_arg) : ({aty(a)}) -> {aty(a)}
  %r = top.Input(%r_arg) : ({aty(r)}) -> {aty(r)}
  {weight("w", w)}
  {weight("b", bias)}
  %0 = top.MatMul(%a, %w, %b) : ({aty(a)}, {aty(w)}, {aty(bias)}) -> {aty(y)}
  %1 = top.Add(%r, %0) {{do_relu = true}} : ({aty(y)}, {aty(y)}) -> {aty(y)}
  return %1 : {aty(y)}
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
func.func @main(%x_arg: {aty(x)} {{top.name = "x"}}, %r_arg: {aty(r)} {{top.name = "r"}}) -> ({aty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({aty(x)}) -> {aty(x)}
  %r = top.Input(%r_arg) : ({aty(r)}) -> {aty(r)}
  %n = top.None() : () -> none
  {weight("w", w)}
  %0 = {conv("w", "%x", w, aty(x), aty(y), 1, extra)}
  %1 = top.Add(%0, %r) : ({aty(y)}, {aty(y)}) -> {aty(y)}
  return %1 : {aty(y)}
}}
"""
    path = tmp_path / "m.mlir"
    path.write_text(text)
    if relu_first:
        r2 = strata("compile", path, "--target", "cpu", "-o", tmp_path / "m.strata",
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


def test_winograd_conv_residual_in_place(tmp_path):
    # relu(conv3x3(relu(y0)) + y0) with a Winograd producer, written over y0
    # (the residual is read just before each output value replaces it),
    # then a 1x1 conv so the sum is an arena tensor, not the output.
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 32, 28, 28)).astype(np.float32)
    w0 = (rng.standard_normal((32, 32, 1, 1)) * 0.2).astype(np.float32)
    w1 = (rng.standard_normal((32, 32, 3, 3)) * 0.05).astype(np.float32)
    y0 = conv_ref(x, w0, 0)
    y1 = np.maximum(conv_ref(np.maximum(y0, 0), w1, 1) + y0, 0)
    y2 = conv_ref(y1, w0, 0)
    t = aty(y0)
    text = f"""
func.func @main(%x_arg: {aty(x)} {{top.name = "x"}}) -> ({t} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({aty(x)}) -> {aty(x)}
  %n = top.None() : () -> none
  {weight("w0", w0)}
  {weight("w1", w1)}
  %0 = {conv("w0", "%x", w0, aty(x), t, 0)}
  %r = top.Relu(%0) : ({t}) -> {t}
  %1 = {conv("w1", "%r", w1, t, t, 1)}
  %2 = top.Add(%1, %0) {{do_relu = true}} : ({t}, {t}) -> {t}
  %3 = {conv("w0", "%2", w0, t, t, 0)}
  return %3 : {t}
}}
"""
    variant = run_everywhere(tmp_path, text, {"x": x}, {"y": y2}, fused=1)
    ks = kernel_dispatches(variant)
    # (conv 1x1, the standalone relu's kernel, Winograd, conv 1x1)
    assert ks[2]["symbol"] == "conv2d_winograd_f43_f32", [k["symbol"] for k in ks]
    b = ks[2]["bindings"]
    assert b[3] == b[4] == ks[0]["bindings"][3], b
