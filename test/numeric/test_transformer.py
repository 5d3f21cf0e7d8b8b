"""top.Attention, top.LinearAttention, top.RMSNorm and top.RotaryEmbedding
against numpy references written here from the ONNX Attention-23/24,
LinearAttention-27, RMSNormalization-23 and RotaryEmbedding-23 specs, on
randomized data.

Tolerances: f32 rtol 1e-5 / atol 1e-5 (the interpreter accumulates in f64
and rounds once, the references compute in f64); f16 inputs rtol 2e-3 /
atol 2e-3 (one f16 rounding of the result, f16 inputs exact in both)."""
import numpy as np
import pytest

from numeric_harness import COMPILED, Model, mlir_type, run_ok, run_ref


# ---------------------------------------------------------------------------
# numpy references
# ---------------------------------------------------------------------------

def softmax_last(z):
    m = np.max(z, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        e = np.exp(z - m)
        return e / np.sum(e, axis=-1, keepdims=True)


def split_heads(x, heads):
    """B x S x (H*D) -> B x H x S x D."""
    b, s, hidden = x.shape
    return x.reshape(b, s, heads, hidden // heads).transpose(0, 2, 1, 3)


def attention_ref(q, k, v, mask=None, past_k=None, past_v=None, nonpad=None,
                  q_heads=None, kv_heads=None, causal=False, scale=None,
                  softcap=0.0, mode=0):
    """Returns (output, present_key, present_value, qk_matmul_output) in f64."""
    rank3 = q.ndim == 3
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    if rank3:
        q, k, v = split_heads(q, q_heads), split_heads(k, kv_heads), split_heads(v, kv_heads)
    past = 0
    if past_k is not None:
        past = past_k.shape[2]
        k = np.concatenate([past_k.astype(np.float64), k], axis=2)
        v = np.concatenate([past_v.astype(np.float64), v], axis=2)
    batch, hq, sq, d = q.shape
    hkv, total = k.shape[1], k.shape[2]
    group = hq // hkv
    kk, vv = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = q @ kk.transpose(0, 1, 3, 2) * (1 / np.sqrt(d) if scale is None else scale)
    if softcap > 0:
        s = softcap * np.tanh(s / softcap)
    bias = np.zeros((batch, hq, sq, total))
    if mask is not None:
        length = mask.shape[-1]
        m = np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(np.float64)
        bias[..., :length] += np.broadcast_to(m, (batch, hq, sq, length))
        bias[..., length:] = -np.inf
    if causal:
        i = np.arange(sq)[:, None]
        j = np.arange(total)[None, :]
        bias = np.where(j > past + i, -np.inf, bias)
    if nonpad is not None:
        j = np.arange(total)[None, None, None, :]
        bias = np.where(j >= nonpad[:, None, None, None], -np.inf, bias)
    z = s + bias
    p = softmax_last(z)
    out = p @ vv
    if rank3:
        out = out.transpose(0, 2, 1, 3).reshape(batch, sq, -1)
    qk = {0: s, 1: s, 2: z, 3: p}[mode]
    return out, k, v, qk


def rms_norm_ref(x, scale, axis=-1, eps=1e-5):
    x = x.astype(np.float64)
    axis = axis % x.ndim
    ms = np.mean(x * x, axis=tuple(range(axis, x.ndim)), keepdims=True)
    return x / np.sqrt(ms + eps) * scale.astype(np.float64)


def rotary_ref(x, cos, sin, pos=None, interleaved=False, rot_dim=0, num_heads=0):
    x = x.astype(np.float64)
    rank3 = x.ndim == 3
    xh = split_heads(x, num_heads) if rank3 else x.copy()   # B x H x S x D
    if pos is not None:
        cos, sin = cos[pos], sin[pos]                        # B x S x R/2
    cos = cos.astype(np.float64)[:, None]                    # B x 1 x S x R/2
    sin = sin.astype(np.float64)[:, None]
    r = rot_dim or xh.shape[-1]
    out = xh.copy()
    if interleaved:
        a, b = xh[..., 0:r:2], xh[..., 1:r:2]
        out[..., 0:r:2] = a * cos - b * sin
        out[..., 1:r:2] = a * sin + b * cos
    else:
        a, b = xh[..., : r // 2], xh[..., r // 2: r]
        out[..., : r // 2] = a * cos - b * sin
        out[..., r // 2: r] = a * sin + b * cos
    if rank3:
        out = out.transpose(0, 2, 1, 3).reshape(x.shape)
    return out


# ---------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------

def run_attention(inputs, attrs, dtype):
    """Runs one top.Attention over `inputs` (query, key, value and the
    optional ones by name) and returns its four results."""
    names = ["q", "k", "v", "mask", "pk", "pv", "np"]
    m = Model({n: a for n, a in inputs.items()})
    operands = ", ".join(f"%{n}" if n in inputs else "%none" for n in names)
    types = ", ".join(mlir_type(inputs[n].shape, inputs[n].dtype) if n in inputs else "none"
                      for n in names)
    t = "tensor<*x" + mlir_type((), dtype)[7:]
    m.op(f"%y:4 = top.Attention({operands}) {{{attrs}}} : ({types}) -> ({t}, {t}, {t}, {t})")
    outs = [(f"%y#{i}", f"y{i}", t) for i in range(4)]
    res = run_ok(m, outs)
    return [res[f"y{i}"] for i in range(4)]


def check_attention(rng, shapes, mode=0, causal=False, scale=None, softcap=0.0,
                    mask=None, past=0, nonpad=False, heads=None, dtype=np.float32,
                    tol=1e-5):
    q_shape, k_shape, v_shape = shapes
    inputs = {"q": rng.standard_normal(q_shape).astype(dtype),
              "k": rng.standard_normal(k_shape).astype(dtype),
              "v": rng.standard_normal(v_shape).astype(dtype)}
    batch = q_shape[0]
    if heads:
        hkv = heads[1]
        d = k_shape[2] // hkv
        dv = v_shape[2] // hkv
    else:
        hkv, d, dv = k_shape[1], k_shape[3], v_shape[3]
    if past:
        inputs["pk"] = rng.standard_normal((batch, hkv, past, d)).astype(dtype)
        inputs["pv"] = rng.standard_normal((batch, hkv, past, dv)).astype(dtype)
    if mask is not None:
        inputs["mask"] = mask
    if nonpad:
        total = past + (k_shape[1] if heads else k_shape[2])
        inputs["np"] = rng.integers(1, total + 1, size=(batch,)).astype(np.int64)
    attrs = [f"qk_matmul_output_mode = {mode} : i64"]
    if heads:
        attrs += [f"q_num_heads = {heads[0]} : i64", f"kv_num_heads = {heads[1]} : i64"]
    if causal:
        attrs.append("is_causal = true")
    if scale is not None:
        attrs.append(f"scale = {scale!r} : f64")
    if softcap:
        attrs.append(f"softcap = {softcap!r} : f64")
    got = run_attention(inputs, ", ".join(attrs), dtype)
    want = attention_ref(inputs["q"], inputs["k"], inputs["v"], inputs.get("mask"),
                         inputs.get("pk"), inputs.get("pv"), inputs.get("np"),
                         heads[0] if heads else None, heads[1] if heads else None,
                         causal, scale, softcap, mode)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == dtype, (i, g.dtype)
        assert g.shape == w.shape, (i, g.shape, w.shape)
        np.testing.assert_allclose(g.astype(np.float64), w, rtol=tol, atol=tol,
                                   err_msg=f"result {i}")


def test_attention_4d_default_scale(rng):
    check_attention(rng, ((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 5)))


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_attention_3d_gqa_past_causal_softcap_mask(rng, mode):
    # Hq = 4, Hkv = 2, D = 6, Dv = 3; past 3 + kv 5 = total 8; float mask of
    # length 7 < 8 (the last key position is masked).
    mask = rng.standard_normal((1, 4, 7)).astype(np.float32)
    check_attention(rng, ((2, 4, 24), (2, 5, 12), (2, 5, 6)), mode=mode,
                    causal=True, softcap=1.5, scale=0.3, mask=mask, past=3,
                    heads=(4, 2))


def test_attention_bool_mask_nonpad(rng):
    mask = rng.random((2, 1, 3, 6)) < 0.7
    mask[..., 0] = True  # keep every row attending somewhere
    check_attention(rng, ((2, 4, 3, 8), (2, 1, 6, 8), (2, 1, 6, 4)), mask=mask,
                    nonpad=True, mode=2)


def test_attention_f16(rng):
    check_attention(rng, ((1, 2, 5, 16), (1, 2, 7, 16), (1, 2, 7, 16)),
                    causal=True, dtype=np.float16, tol=2e-3)


def test_attention_fully_masked_row_is_nan(rng):
    """A row with every key masked gives NaN, like the ONNX reference."""
    mask = np.ones((3, 4), dtype=np.bool_)
    mask[1] = False
    q = rng.standard_normal((1, 1, 3, 4)).astype(np.float32)
    k = rng.standard_normal((1, 1, 4, 4)).astype(np.float32)
    out = run_attention({"q": q, "k": k, "v": k, "mask": mask},
                        "qk_matmul_output_mode = 0 : i64", np.float32)[0]
    assert np.isnan(out[0, 0, 1]).all()
    assert not np.isnan(out[0, 0, [0, 2]]).any()


# ---------------------------------------------------------------------------
# RMSNorm
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape,axis,scale_shape,eps", [
    ((2, 3, 8), -1, (8,), 1e-5),
    ((2, 3, 4, 5), 1, (4, 1), 1e-3),
    ((4, 6), 0, (1,), 0.5),
    ((3, 2, 7), -2, (2, 7), 0.0),
])
def test_rms_norm(rng, shape, axis, scale_shape, eps):
    x = rng.standard_normal(shape).astype(np.float32) * 3
    s = rng.standard_normal(scale_shape).astype(np.float32)
    m = Model({"x": x, "s": s})
    m.op(f"%y = top.RMSNorm(%x, %s) {{axis = {axis} : i64, epsilon = {eps:.6e} : f64}} : "
         f"({mlir_type(x.shape, x.dtype)}, {mlir_type(s.shape, s.dtype)}) -> tensor<*xf32>")
    got = run_ok(m, [("%y", "y", "tensor<*xf32>")])["y"]
    np.testing.assert_allclose(got, rms_norm_ref(x, s, axis, eps), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# RotaryEmbedding
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("rank3,interleaved,rot_dim,with_pos", [
    (False, False, 0, True),
    (False, True, 0, True),
    (True, False, 4, True),
    (True, True, 6, False),
    (False, False, 2, False),
])
def test_rotary(rng, rank3, interleaved, rot_dim, with_pos):
    b, h, s, d = 2, 3, 5, 8
    r = rot_dim or d
    x = rng.standard_normal((b, s, h * d) if rank3 else (b, h, s, d)).astype(np.float32)
    if with_pos:
        angles = rng.uniform(0, 6.3, size=(11, r // 2))
        pos = rng.integers(0, 11, size=(b, s)).astype(np.int64)
    else:
        angles = rng.uniform(0, 6.3, size=(b, s, r // 2))
        pos = None
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    inputs = {"x": x, "c": cos, "sn": sin}
    if with_pos:
        inputs["p"] = pos
    m = Model(inputs)
    types = [mlir_type(a.shape, a.dtype) for a in inputs.values()]
    attrs = [f"interleaved = {'true' if interleaved else 'false'}",
             f"rotary_embedding_dim = {rot_dim} : i64"]
    if rank3:
        attrs.append(f"num_heads = {h} : i64")
    m.op(f"%y = top.RotaryEmbedding(%x, %c, %sn, {'%p' if with_pos else '%none'}) "
         f"{{{', '.join(attrs)}}} : ({', '.join(types[:3])}, "
         f"{types[3] if with_pos else 'none'}) -> tensor<*xf32>")
    got = run_ok(m, [("%y", "y", "tensor<*xf32>")])["y"]
    want = rotary_ref(x, cos, sin, pos, interleaved, rot_dim, h if rank3 else 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.interpreter_only
def test_rotary_position_out_of_range_is_an_error(rng):
    x = rng.standard_normal((1, 1, 2, 4)).astype(np.float32)
    c = np.ones((3, 2), np.float32)
    p = np.array([[0, 3]], np.int64)
    m = Model({"x": x, "c": c, "p": p})
    m.op("%y = top.RotaryEmbedding(%x, %c, %c, %p) : (tensor<1x1x2x4xf32>, "
         "tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x2xi64>) -> tensor<*xf32>")
    code, _, err = run_ref(m, [("%y", "y", "tensor<*xf32>")])
    assert code != 0
    assert "position_ids[0, 1] = 3 is out of range [0, 3)" in err


@pytest.mark.skipif(not COMPILED, reason="compiled code clamps; the interpreter reports an error")
def test_rotary_position_out_of_range_is_clamped_when_compiled(rng):
    """Compiled code clamps position ids into [0, M) (docs/codegen-reduction.md)."""
    x = rng.standard_normal((1, 1, 3, 4)).astype(np.float32)
    angles = rng.uniform(0, 6.3, size=(3, 2))
    c, sn = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    p = np.array([[-5, 1, 7]], np.int64)
    m = Model({"x": x, "c": c, "sn": sn, "p": p})
    m.op("%y = top.RotaryEmbedding(%x, %c, %sn, %p) : (tensor<1x1x3x4xf32>, "
         "tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x3xi64>) -> tensor<*xf32>")
    got = run_ok(m, [("%y", "y", "tensor<*xf32>")])["y"]
    want = rotary_ref(x, c, sn, np.clip(p, 0, 2))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("interleaved", [False, True])
def test_rotary_f16_int32_positions(rng, interleaved):
    """f16 input and caches (f64 arithmetic, one f16 rounding), int32 ids."""
    x = rng.standard_normal((2, 4, 2 * 6)).astype(np.float16)
    angles = rng.uniform(0, 6.3, size=(7, 2))
    c, sn = np.cos(angles).astype(np.float16), np.sin(angles).astype(np.float16)
    p = rng.integers(0, 7, size=(2, 4)).astype(np.int32)
    m = Model({"x": x, "c": c, "sn": sn, "p": p})
    m.op(f"%y = top.RotaryEmbedding(%x, %c, %sn, %p) {{interleaved = {str(interleaved).lower()}, "
         "rotary_embedding_dim = 4 : i64, num_heads = 2 : i64} : (tensor<2x4x12xf16>, "
         "tensor<7x2xf16>, tensor<7x2xf16>, tensor<2x4xi32>) -> tensor<*xf16>")
    got = run_ok(m, [("%y", "y", "tensor<*xf16>")])["y"]
    assert got.dtype == np.float16
    want = rotary_ref(x, c, sn, p, interleaved, 4, 2)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-3, atol=2e-3)


# ---------------------------------------------------------------------------
# LinearAttention
# ---------------------------------------------------------------------------

def linear_attention_ref(q, k, v, past=None, decay=None, beta=None, hq=1, hkv=1,
                         scale=0.0, rule="gated_delta"):
    """The ONNX LinearAttention-27 recurrence, one position at a time, f64."""
    b, t, _ = q.shape
    dk, dv = q.shape[2] // hq, v.shape[2] // hkv
    qh = q.astype(np.float64).reshape(b, t, hq, dk)
    kh = k.astype(np.float64).reshape(b, t, hkv, dk)
    vh = v.astype(np.float64).reshape(b, t, hkv, dv)
    state = np.zeros((b, hkv, dk, dv)) if past is None else past.astype(np.float64).copy()
    scale = scale or 1 / np.sqrt(dk)
    out = np.zeros((b, t, hq, dv))
    for i in range(t):
        if rule in ("gated", "gated_delta"):
            g = decay[:, i].astype(np.float64)
            g = g.reshape(b, hkv, 1) if g.shape[-1] == hkv else g.reshape(b, hkv, dk)
            state = state * np.exp(g)[..., None]
        vt = vh[:, i]
        if rule in ("delta", "gated_delta"):
            bt = beta[:, i].astype(np.float64)[..., None]           # b x (hkv|1) x 1
            vt = bt * (vt - np.einsum("bhdm,bhd->bhm", state, kh[:, i]))
        state = state + kh[:, i][..., :, None] * vt[..., None, :]
        read = np.repeat(state, hq // hkv, axis=1)
        out[:, i] = scale * np.einsum("bhd,bhdm->bhm", qh[:, i], read)
    return out.reshape(b, t, hq * dv), state


@pytest.mark.parametrize("rule,hq,hkv,per_dim,beta_heads,past,scale", [
    ("linear", 2, 2, False, 0, False, 0.0),
    ("gated", 4, 2, True, 0, True, 0.5),
    ("delta", 2, 1, False, 1, False, 0.0),
    ("gated_delta", 4, 2, False, 2, True, 0.0),
])
def test_linear_attention(rng, rule, hq, hkv, per_dim, beta_heads, past, scale):
    b, t, dk, dv = 2, 5, 4, 3
    ins = {"q": rng.standard_normal((b, t, hq * dk)).astype(np.float32),
           "k": rng.standard_normal((b, t, hkv * dk)).astype(np.float32) * 0.5,
           "v": rng.standard_normal((b, t, hkv * dv)).astype(np.float32)}
    if past:
        ins["s"] = rng.standard_normal((b, hkv, dk, dv)).astype(np.float32)
    if rule in ("gated", "gated_delta"):
        ins["g"] = -rng.uniform(0, 1, (b, t, hkv * dk if per_dim else hkv)).astype(np.float32)
    if rule in ("delta", "gated_delta"):
        ins["bt"] = rng.uniform(0, 1, (b, t, beta_heads)).astype(np.float32)
    m = Model(ins)
    names = ["q", "k", "v", "s", "g", "bt"]
    operands = ", ".join(f"%{n}" if n in ins else "%none" for n in names)
    types = ", ".join(mlir_type(ins[n].shape, ins[n].dtype) if n in ins else "none" for n in names)
    m.op(f"%y:2 = top.LinearAttention({operands}) {{q_num_heads = {hq} : i64, "
         f"kv_num_heads = {hkv} : i64, scale = {scale:.6e} : f64, update_rule = #top.update_rule<{rule}>}} : "
         f"({types}) -> (tensor<*xf32>, tensor<*xf32>)")
    got = run_ok(m, [("%y#0", "y", "tensor<*xf32>"), ("%y#1", "state", "tensor<*xf32>")])
    want_y, want_s = linear_attention_ref(ins["q"], ins["k"], ins["v"], ins.get("s"),
                                          ins.get("g"), ins.get("bt"), hq, hkv, scale, rule)
    np.testing.assert_allclose(got["y"], want_y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got["state"], want_s, rtol=1e-5, atol=1e-5)
