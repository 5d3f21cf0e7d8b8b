"""Each HL op's reference semantics (the NPU's golden model, docs/npu.md)
against a numpy implementation of the documented numeric contract, written
here: random int8 operands and attributes, odd sizes, every stride /
dilation / padding the window ops take, narrow accumulators (wrapping), the
segmentation rewrite (hl-segment-strided) giving the same bytes. Integer
results bit-exact; bf16 results within one bf16 rounding of the f32 value
computed in the documented order.
"""
import os
import subprocess

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")  # bf16 arrays in npz files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")
STRATA_OPT = os.path.join(BIN, "strata-opt")


# ----------------------------------------------------------------------------
# numpy reference of the contract
# ----------------------------------------------------------------------------

def requant(acc, m, s, zp, lo, hi):
    """round_half_away_from_zero(acc * m / 2^s) + zp, clipped (exact ints)."""
    p = np.asarray(acc, dtype=object) * np.asarray(m, dtype=object)
    s = np.broadcast_to(np.asarray(s, dtype=object), p.shape)
    out = np.empty(p.shape, dtype=np.int64)
    for i, (v, sh) in enumerate(zip(p.flat, s.flat)):
        if sh > 0:
            h = 1 << (sh - 1)
            v = (v + h) >> sh if v >= 0 else -((-v + h) >> sh)
        out.flat[i] = min(max(v + zp, lo), hi)
    return out


def wrap(acc, bits):
    m = 1 << bits
    a = np.asarray(acc, dtype=object) % m
    return np.where(a >= m // 2, a - m, a).astype(np.int64)


def window_taps(x, k, stride, pad, dil, fill):
    """[N, C, OH, OW, KH*KW] taps of x (padding reads `fill`)."""
    n, c, h, w = x.shape
    t, l, b, r = pad
    p = np.full((n, c, h + t + b, w + l + r), fill, dtype=x.dtype)
    p[:, :, t:t + h, l:l + w] = x
    oh = (h + t + b - dil[0] * (k[0] - 1) - 1) // stride[0] + 1
    ow = (w + l + r - dil[1] * (k[1] - 1) - 1) // stride[1] + 1
    taps = np.empty((n, c, oh, ow, k[0] * k[1]), dtype=x.dtype)
    inside = np.zeros((oh, ow, k[0] * k[1]), dtype=bool)
    for i in range(k[0]):
        for j in range(k[1]):
            ys = np.arange(oh) * stride[0] + i * dil[0]
            xs = np.arange(ow) * stride[1] + j * dil[1]
            taps[..., i * k[1] + j] = p[:, :, ys][:, :, :, xs]
            inside[..., i * k[1] + j] = ((ys >= t) & (ys < t + h))[:, None] & \
                ((xs >= l) & (xs < l + w))[None, :]
    return taps, inside


def segment(x, s, pad, value):
    t, l, b, r = pad
    n, c, h, w = x.shape
    hs, ws = -(-(h + t + b) // s), -(-(w + l + r) // s)
    p = np.full((n, c, hs * s, ws * s), value, x.dtype)
    p[:, :, t:t + h, l:l + w] = x
    return p.reshape(n, c, hs, s, ws, s).transpose(0, 1, 3, 5, 2, 4).reshape(n, c, s * s, hs, ws)


# ----------------------------------------------------------------------------
# running HL modules
# ----------------------------------------------------------------------------

def ty(shape, dtype="i8"):
    return "tensor<" + "x".join(map(str, shape)) + f"x{dtype}>"


def dense(a, dtype):
    return f"dense<{np.asarray(a).tolist()}> : {ty(a.shape, dtype)}"


def arr(v):
    return "array<i64: " + ", ".join(str(int(x)) for x in v) + ">"


def run(tmp, body, inputs, results, segment_first=False):
    """Runs `body` (lines using %x0.. for the inputs) returning `results`
    (list of (ssa name, type)); returns the outputs in order."""
    args = ", ".join(f"%a{i}: {ty(a.shape, d)}" for i, (a, d) in enumerate(inputs))
    lines = [f"func.func @main({args}) -> ({', '.join(t for _, t in results)}) {{"]
    for i, (a, d) in enumerate(inputs):
        lines.append(f'  %x{i} = top.Input(%a{i}) : ({ty(a.shape, d)}) -> {ty(a.shape, d)} loc("x{i}")')
    lines += ["  " + line for line in body]
    lines.append(f"  return {', '.join(n for n, _ in results)} : {', '.join(t for _, t in results)}")
    lines.append("}")
    model = tmp / "m.mlir"
    model.write_text("\n".join(lines) + "\n")
    if segment_first:
        seg = tmp / "seg.mlir"
        r = subprocess.run([STRATA_OPT, model, "--hl-segment-strided", "-o", seg],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert "segments = " in seg.read_text(), seg.read_text()
        model = seg
    np.savez(tmp / "in.npz", **{f"input{i}": a for i, (a, _) in enumerate(inputs)})
    r = subprocess.run([STRATA, "run-ref", model, "--input", tmp / "in.npz",
                        "--output", tmp / "out.npz"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr + model.read_text()
    out = np.load(tmp / "out.npz")
    return [out[k] for k in out.files]


def rand_i8(rng, shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


# ----------------------------------------------------------------------------
# tests
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_conv2d_grouped_narrow_accumulator(tmp_path, seed):
    """conv2d with groups, a /B tail, and a 16- or 20-bit accumulator that
    wraps (the numpy reference wraps the exact sum)."""
    rng = np.random.default_rng(seed)
    g = int(rng.choice([1, 2, 3]))
    c, o = g * int(rng.integers(1, 4)), g * int(rng.integers(1, 5))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    h, w = int(rng.integers(kh + 2, 10)), int(rng.integers(kw + 2, 10))
    stride = [int(v) for v in rng.integers(1, 4, 2)]
    dil = [int(v) for v in rng.integers(1, 3, 2)]
    pad = [int(v) for v in rng.integers(0, 3, 4)]
    block = int(rng.choice([3, 4, 8]))
    bits = int(rng.choice([16, 20, 32]))
    izp, wzp, ozp = (int(v) for v in rng.integers(-20, 20, 3))
    x = rand_i8(rng, (1, c, h, w))
    wt = rand_i8(rng, (o, c // g, kh, kw))
    sb = np.stack([rng.integers(-5000, 5000, o), rng.integers(1, 2**31 - 1, o),
                   rng.integers(20, 40, o)], axis=1).astype(np.int32)
    ob = -(-o // block)
    packed = np.zeros((ob * block, c // g, kh, kw), np.int8)
    packed[:o] = wt
    packed = packed.reshape(ob, block, c // g, kh, kw).transpose(0, 2, 3, 4, 1)
    taps, inside = window_taps(x.astype(np.int64) - izp, (kh, kw), stride, pad, dil, 0)
    oh, ow = taps.shape[2:4]
    acc = np.zeros((1, o, oh, ow), dtype=object)
    for oc in range(o):
        gi = oc // (o // g)
        xs = taps[0, gi * (c // g):(gi + 1) * (c // g)]  # [cg, oh, ow, k]
        wk = (wt[oc].astype(np.int64) - wzp).reshape(c // g, 1, 1, kh * kw)
        acc[0, oc] = int(sb[oc, 0]) + (xs.astype(object) * wk.astype(object)).sum(axis=(0, 3))
    acc = wrap(acc, bits)
    clip = sorted(int(v) for v in rng.integers(-128, 128, 2))
    want = np.stack([requant(acc[0, oc], int(sb[oc, 1]), int(sb[oc, 2]), ozp, *clip)
                     for oc in range(o)])[None].astype(np.int8)
    rtype = ty((1, o, oh, ow))
    body = [f'%w = top.Weight() {{name = "w", value = {dense(packed, "i8")}}} : () -> {ty(packed.shape)}',
            f'%sb = top.Weight() {{name = "sb", value = {dense(sb, "i32")}}} : () -> {ty(sb.shape, "i32")}',
            f"%y = hl.conv2d(%x0, %w, %sb) {{groups = {g} : i64, input_zp = {izp} : i64, "
            f"weight_zp = {wzp} : i64, output_zp = {ozp} : i64, clip_min = {clip[0]} : i64, "
            f"clip_max = {clip[1]} : i64, accumulator_bits = {bits} : i64, pad = {arr(pad)}, "
            f"stride = {arr(stride)}, dilation = {arr(dil)}}} : ({ty(x.shape)}, "
            f"{ty(packed.shape)}, {ty(sb.shape, 'i32')}) -> {rtype} loc(\"y\")"]
    (got,) = run(tmp_path, body, [(x, "i8")], [("%y", rtype)])
    np.testing.assert_array_equal(got, want)
    if stride[0] == stride[1] and stride[0] > 1:
        (seg,) = run(tmp_path, body, [(x, "i8")], [("%y", rtype)], segment_first=True)
        np.testing.assert_array_equal(seg, want)


@pytest.mark.parametrize("seed", range(4))
def test_pools(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    c, h, w = int(rng.integers(1, 5)), int(rng.integers(5, 12)), int(rng.integers(5, 12))
    k = [int(v) for v in rng.integers(1, 4, 2)]
    s = int(rng.integers(1, 4))
    dil = [int(v) for v in rng.integers(1, 3, 2)]
    pad = [int(rng.integers(0, k[0])), int(rng.integers(0, k[1])),
           int(rng.integers(0, k[0])), int(rng.integers(0, k[1]))]
    x = rand_i8(rng, (1, c, h, w))
    taps, inside = window_taps(x.astype(np.int64), k, [s, s], pad, dil, -128)
    mx = taps.max(axis=-1).astype(np.int8)
    izp, ozp = int(rng.integers(-10, 10)), int(rng.integers(-10, 10))
    m, sh = int(rng.integers(2**29, 2**31 - 1)), 31
    include = bool(rng.integers(0, 2))
    t0, _ = window_taps(x.astype(np.int64) - izp, k, [s, s], pad, dil, 0)
    sums = t0.sum(axis=-1)
    count = np.full(sums.shape, k[0] * k[1]) if include else \
        np.broadcast_to(inside.sum(axis=-1), sums.shape)
    q = (np.abs(sums) + count // 2) // count
    mean = np.where(sums < 0, -q, q)
    avg = requant(mean, m, sh, ozp, -128, 127).astype(np.int8)
    rtype = ty(mx.shape)
    window = f"pad = {arr(pad)}, stride = {arr([s, s])}, dilation = {arr(dil)}"
    body = [f"%m = hl.maxpool(%x0) {{kernel = {arr(k)}, {window}}} : ({ty(x.shape)}) -> {rtype} loc(\"m\")",
            f"%v = hl.avgpool(%x0) {{kernel = {arr(k)}, {window}, count_include_pad = {str(include).lower()}, "
            f"input_zp = {izp} : i64, output_zp = {ozp} : i64, multiplier = {m} : i64, shift = {sh} : i64}}"
            f" : ({ty(x.shape)}) -> {rtype} loc(\"v\")"]
    got_m, got_v = run(tmp_path, body, [(x, "i8")], [("%m", rtype), ("%v", rtype)])
    np.testing.assert_array_equal(got_m, mx)
    np.testing.assert_array_equal(got_v, avg)
    if s > 1:
        (seg,) = run(tmp_path, body[:1], [(x, "i8")], [("%m", rtype)], segment_first=True)
        np.testing.assert_array_equal(seg, mx)


def test_elementwise_activation_table(tmp_path):
    rng = np.random.default_rng(7)
    shape = (1, 3, 5, 7)
    a, b = rand_i8(rng, shape), rand_i8(rng, shape)
    p = dict(lzp=3, lm=1518500250, ls=31, rzp=-7, rm=1073741824, rs=30, left=20,
             om=1431655765, osh=51, ozp=-2, lo=-100, hi=110)
    ai, bi = a.astype(np.int64) - p["lzp"], b.astype(np.int64) - p["rzp"]
    ra = requant(ai << p["left"], p["lm"], p["ls"], 0, -2**62, 2**62)
    rb = requant(bi << p["left"], p["rm"], p["rs"], 0, -2**62, 2**62)
    want = {
        "add": requant(ra + rb, p["om"], p["osh"], p["ozp"], p["lo"], p["hi"]),
        "sub": requant(ra - rb, p["om"], p["osh"], p["ozp"], p["lo"], p["hi"]),
        "min": requant(np.minimum(ra, rb), p["om"], p["osh"], p["ozp"], p["lo"], p["hi"]),
        "max": requant(np.maximum(ra, rb), p["om"], p["osh"], p["ozp"], p["lo"], p["hi"]),
        "mul": requant(ai * bi, p["om"], 40, p["ozp"], p["lo"], p["hi"]),
    }
    table = rand_i8(rng, (256,))
    t = ty(shape)
    attrs = (f"lhs_zp = {p['lzp']} : i64, lhs_multiplier = {p['lm']} : i64, lhs_shift = {p['ls']} : i64, "
             f"rhs_zp = {p['rzp']} : i64, rhs_multiplier = {p['rm']} : i64, rhs_shift = {p['rs']} : i64, "
             f"left_shift = {p['left']} : i64, output_multiplier = {p['om']} : i64, "
             f"output_zp = {p['ozp']} : i64, clip_min = {p['lo']} : i64, clip_max = {p['hi']} : i64")
    body = []
    for op in want:
        shift = 40 if op == "mul" else p["osh"]
        body.append(f"%{op} = hl.{op}(%x0, %x1) {{{attrs}, output_shift = {shift} : i64}} : ({t}, {t}) -> {t} loc(\"{op}\")")
    body += [f"%act = hl.activation(%x0) {{input_zp = 5 : i64, multiplier = 1717986918 : i64, shift = 30 : i64, "
             f"output_zp = -3 : i64, clip_min = -3 : i64, clip_max = 100 : i64}} : ({t}) -> {t} loc(\"act\")",
             f'%lut = top.Weight() {{name = "lut", value = {dense(table, "i8")}}} : () -> {ty((256,))}',
             f"%tab = hl.table(%x0, %lut) {{lut_entries = 256 : i64}} : ({t}, {ty((256,))}) -> {t} loc(\"tab\")"]
    names = list(want) + ["act", "tab"]
    got = run(tmp_path, body, [(a, "i8"), (b, "i8")], [(f"%{n}", t) for n in names])
    for n, g in zip(names[:5], got[:5]):
        np.testing.assert_array_equal(g, want[n].astype(np.int8), err_msg=n)
    np.testing.assert_array_equal(got[5], requant(a.astype(np.int64) - 5, 1717986918, 30, -3, -3, 100))
    np.testing.assert_array_equal(got[6], table[a.astype(np.int64) + 128])


def test_data_movement_and_convert(tmp_path):
    rng = np.random.default_rng(9)
    x, y = rand_i8(rng, (1, 3, 5, 4)), rand_i8(rng, (1, 2, 5, 4))
    tt, st, ct = ty((1, 5, 4, 3)), ty((1, 3, 9, 2, 2)), ty((1, 5, 5, 4))
    bt = ty((1, 3, 5, 4), "bf16")
    q = ty((1, 3, 5, 4))
    body = [f"%t = hl.transpose(%x0) {{perm = {arr([0, 2, 3, 1])}}} : ({ty(x.shape)}) -> {tt} loc(\"t\")",
            f"%s = hl.segmentation(%x0) {{stride = 3 : i64, pad = {arr([1, 0, 0, 2])}, pad_value = 4 : i64}}"
            f" : ({ty(x.shape)}) -> {st} loc(\"s\")",
            f"%c = hl.concat(%x0, %x1) {{axis = 1 : i64}} : ({ty(x.shape)}, {ty(y.shape)}) -> {ct} loc(\"c\")",
            f"%f = hl.convert(%x0) {{scale = 0.0625 : f64, zp = 3 : i64}} : ({ty(x.shape)}) -> {bt} loc(\"f\")",
            f"%q = hl.convert(%f) {{scale = 0.125 : f64, zp = -1 : i64}} : ({bt}) -> {q} loc(\"q\")"]
    got = run(tmp_path, body, [(x, "i8"), (y, "i8")],
              [("%t", tt), ("%s", st), ("%c", ct), ("%f", bt), ("%q", q)])
    np.testing.assert_array_equal(got[0], x.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(got[1], segment(x, 3, (1, 0, 0, 2), 4))
    np.testing.assert_array_equal(got[2], np.concatenate([x, y], axis=1))
    f = (x.astype(np.float64) - 3) * 0.0625  # exact in bf16 (at most 8 bits)
    np.testing.assert_array_equal(got[3].astype(np.float32), f.astype(np.float32))
    want_q = np.clip(np.round(f / 0.125) - 1, -128, 127)  # numpy rounds half to even
    np.testing.assert_array_equal(got[4], want_q.astype(np.int8))


def test_convert_to_int8_follows_top_quant(tmp_path):
    # top.Quant's rule: round half to even independent of the FP rounding
    # mode, NaN gives the zero point, infinities saturate.
    x = np.array([[np.nan, 2.5, 3.5, -2.5, np.inf, -np.inf, 0.5, -1.5]],
                 np.float32)
    ft, q = ty((1, 8), "f32"), ty((1, 8))
    body = [f"%q = hl.convert(%x0) {{scale = 1.0 : f64, zp = 3 : i64}} : ({ft}) -> {q} loc(\"q\")"]
    got = run(tmp_path, body, [(x, "f32")], [("%q", q)])
    np.testing.assert_array_equal(got[0], np.array([[3, 5, 7, 1, 127, -128, 3, 1]], np.int8))


@pytest.mark.parametrize("bits", [16, 32])
def test_matmul_and_fully_connected(tmp_path, bits):
    rng = np.random.default_rng(bits)
    b_, m, k, n, block = 2, 3, 37, 6, 4
    a, bm = rand_i8(rng, (b_, m, k)), rand_i8(rng, (b_, k, n))
    sb = np.stack([rng.integers(-900, 900, n), rng.integers(1, 2**31 - 1, n),
                   rng.integers(25, 35, n)], axis=1).astype(np.int32)
    acc = np.einsum("bmk,bkn->bmn", a.astype(np.int64) - 2, bm.astype(np.int64) + 1) + sb[:, 0]
    acc = wrap(acc, bits)
    want = np.stack([requant(acc[..., j], int(sb[j, 1]), int(sb[j, 2]), 5, -128, 127)
                     for j in range(n)], axis=-1).astype(np.int8)
    fa, fw = rand_i8(rng, (3, k)), rand_i8(rng, (n, k))
    packed = np.zeros((2 * block, k), np.int8)
    packed[:n] = fw
    packed = packed.reshape(2, block, k).transpose(0, 2, 1)
    facc = wrap((fa.astype(np.int64) - 2) @ (fw.astype(np.int64) + 1).T + sb[:, 0], bits)
    fwant = np.stack([requant(facc[:, j], int(sb[j, 1]), int(sb[j, 2]), 5, -128, 127)
                      for j in range(n)], axis=-1).astype(np.int8)
    attrs = f"input_zp = 2 : i64, weight_zp = -1 : i64, output_zp = 5 : i64, accumulator_bits = {bits} : i64"
    body = [f'%sb = top.Weight() {{name = "sb", value = {dense(sb, "i32")}}} : () -> {ty(sb.shape, "i32")}',
            f'%w = top.Weight() {{name = "w", value = {dense(packed, "i8")}}} : () -> {ty(packed.shape)}',
            f"%y = hl.matmul(%x0, %x1, %sb) {{{attrs}}} : ({ty(a.shape)}, {ty(bm.shape)}, "
            f"{ty(sb.shape, 'i32')}) -> {ty(want.shape)} loc(\"y\")",
            f"%f = hl.fully_connected(%x2, %w, %sb) {{{attrs}}} : ({ty(fa.shape)}, {ty(packed.shape)}, "
            f"{ty(sb.shape, 'i32')}) -> {ty(fwant.shape)} loc(\"f\")"]
    got = run(tmp_path, body, [(a, "i8"), (bm, "i8"), (fa, "i8")],
              [("%y", ty(want.shape)), ("%f", ty(fwant.shape))])
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], fwant)


def test_reduce_gather_resize_depth_to_space(tmp_path):
    rng = np.random.default_rng(13)
    x = rand_i8(rng, (1, 8, 5, 3))
    m, sh, izp, ozp = 1431655765, 31, -4, 6
    s = (x.astype(np.int64) - izp).sum(axis=(2, 3), keepdims=True)
    q = (np.abs(s) + 15 // 2) // 15
    mean = requant(np.where(s < 0, -q, q), m, sh, ozp, -128, 127).astype(np.int8)
    idx = np.array([2, -1, 0, 2], dtype=np.int32)
    gathered = np.take(x, idx, axis=1)
    oh, ow = 7, 8
    ys, xs = (np.arange(oh) * 5) // oh, (np.arange(ow) * 3) // ow
    resized = x[:, :, ys][:, :, :, xs]
    b = 2
    dcr = x.reshape(1, b, b, 2, 5, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 10, 6)
    crd = x.reshape(1, 2, b, b, 5, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 10, 6)
    t = ty(x.shape)
    body = [f"%r = hl.reduce_mean(%x0) {{axes = {arr([2, 3])}, input_zp = {izp} : i64, multiplier = {m} : i64, "
            f"shift = {sh} : i64, output_zp = {ozp} : i64}} : ({t}) -> {ty(mean.shape)} loc(\"r\")",
            f'%i = top.Weight() {{name = "i", value = {dense(idx, "i32")}}} : () -> {ty(idx.shape, "i32")}',
            f"%g = hl.gather(%x0, %i) {{axis = 1 : i64}} : ({t}, {ty(idx.shape, 'i32')}) -> {ty(gathered.shape)} loc(\"g\")",
            f"%z = hl.resize_nearest(%x0) : ({t}) -> {ty(resized.shape)} loc(\"z\")",
            f"%d = hl.depth_to_space(%x0) {{block = 2 : i64}} : ({t}) -> {ty(dcr.shape)} loc(\"d\")",
            f"%e = hl.depth_to_space(%x0) {{block = 2 : i64, mode = \"CRD\"}} : ({t}) -> {ty(crd.shape)} loc(\"e\")"]
    outs = [mean, gathered, resized, dcr, crd]
    got = run(tmp_path, body, [(x, "i8")],
              [(f"%{n}", ty(o.shape)) for n, o in zip("rgzde", outs)])
    for name, g, want in zip("rgzde", got, outs):
        np.testing.assert_array_equal(g, want, err_msg=name)


def srdhm(a, b):
    """gemmlowp's SaturatingRoundingDoublingHighMul on Python ints."""
    if a == b == -2**31:
        return 2**31 - 1
    ab = a * b
    nudge = 1 << 30 if ab >= 0 else 1 - (1 << 30)
    q = abs(ab + nudge) // (1 << 31)  # C division truncates toward zero
    return q if ab + nudge >= 0 else -q


def rdbpot(x, e):
    """gemmlowp's RoundingDivideByPOT (ties away from zero)."""
    mask = (1 << e) - 1
    rem = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if rem > threshold else 0)


def requant_tflite(x, m, s, zp, lo, hi):
    out = np.empty(np.shape(x), dtype=np.int64)
    for i, v in enumerate(np.asarray(x, dtype=object).flat):
        v = min(max(int(v), -2**31), 2**31 - 1)
        out.flat[i] = min(max(rdbpot(srdhm(v, m), s) + zp, lo), hi)
    return out


def test_tflite_rounding(tmp_path):
    """rounding = "tflite": TFLite's reference ADD (left shift 20, input
    multipliers from twice the larger scale) and the requantization of a
    conv accumulator, against gemmlowp's arithmetic written here."""
    rng = np.random.default_rng(17)
    shape = (1, 2, 4, 5)
    a, b = rand_i8(rng, shape), rand_i8(rng, shape)
    lm, ls, rm, rs, om, osh = 1431655765, 1, 2**30, 0, 1789569707, 19
    ra = requant_tflite((a.astype(np.int64) - 3) << 20, lm, ls, 0, -2**31, 2**31 - 1)
    rb = requant_tflite((b.astype(np.int64) + 5) << 20, rm, rs, 0, -2**31, 2**31 - 1)
    want_add = requant_tflite(ra + rb, om, osh, -1, -128, 127).astype(np.int8)
    x = rand_i8(rng, (1, 3, 5, 5))
    wt = rand_i8(rng, (4, 3, 3, 3))
    packed = wt.reshape(1, 4, 3, 3, 3).transpose(0, 2, 3, 4, 1)
    sb = np.array([[100, 1518500250, 9], [-7, 2**30, 10], [0, 2**31 - 1, 11],
                   [55, 1073741825, 8]], dtype=np.int32)
    taps, _ = window_taps(x.astype(np.int64) - 2, (3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 0)
    acc = np.einsum("cyxk,ock->oyx", taps[0], wt.reshape(4, 3, 9).astype(np.int64)) + \
        sb[:, 0, None, None]
    want_conv = np.stack([requant_tflite(acc[o], int(sb[o, 1]), int(sb[o, 2]), 4, 4, 127)
                          for o in range(4)])[None].astype(np.int8)
    t, ct = ty(shape), ty((1, 4, 5, 5))
    body = [f"%add = hl.add(%x0, %x1) {{lhs_zp = 3 : i64, lhs_multiplier = {lm} : i64, lhs_shift = {ls} : i64, "
            f"rhs_zp = -5 : i64, rhs_multiplier = {rm} : i64, rhs_shift = {rs} : i64, left_shift = 20 : i64, "
            f"output_multiplier = {om} : i64, output_shift = {osh} : i64, output_zp = -1 : i64, "
            f"rounding = \"tflite\"}} : ({t}, {t}) -> {t} loc(\"add\")",
            f'%w = top.Weight() {{name = "w", value = {dense(packed, "i8")}}} : () -> {ty(packed.shape)}',
            f'%sb = top.Weight() {{name = "sb", value = {dense(sb, "i32")}}} : () -> {ty(sb.shape, "i32")}',
            f"%c = hl.conv2d(%x2, %w, %sb) {{input_zp = 2 : i64, output_zp = 4 : i64, clip_min = 4 : i64, "
            f"rounding = \"tflite\", pad = {arr([1, 1, 1, 1])}, stride = {arr([1, 1])}, "
            f"dilation = {arr([1, 1])}}} : ({ty(x.shape)}, {ty(packed.shape)}, {ty(sb.shape, 'i32')}) -> {ct} loc(\"c\")"]
    got = run(tmp_path, body, [(a, "i8"), (b, "i8"), (x, "i8")], [("%add", t), ("%c", ct)])
    np.testing.assert_array_equal(got[0], want_add)
    np.testing.assert_array_equal(got[1], want_conv)
