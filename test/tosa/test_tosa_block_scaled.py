"""TOSA's MX block-scaled ops (cast_from_block_scaled, cast_to_block_scaled,
matmul_t_block_scaled; TOSA 1.1 draft, extension MXFP) through
convert-tosa-to-top against a numpy implementation of the specification's
pseudocode (MLIR 22's own TOSA lowering does not handle them).

The reference follows the spec's definitions, independently of how the
conversion builds them: the scale of a block is computed with log2 /
ceil / floor in float64 on max|x| / out_max (divided in the input type),
values are converted with ml_dtypes (round to nearest even), and the
matmul accumulates each block in float32 in the spec's order.

Tolerances: cast_from_block_scaled and cast_to_block_scaled are exact
(data and scales compared bit for bit; NaN equal to NaN; the data of a
block whose scale is NaN is not compared, the spec leaves f4/f6 NaN
undefined and the block dequantizes to NaN anyway). matmul_t_block_scaled
sums in another order (Top's MatMul per block, the blocks in f64), so it is
compared within 1e-5 of the sum of |terms| of each output.
"""
import tempfile

import ml_dtypes
import numpy as np
import pytest

from tosa_harness import strata, ttype

FORMATS = {
    "f8E4M3FN": ml_dtypes.float8_e4m3fn,
    "f8E5M2": ml_dtypes.float8_e5m2,
    "f6E2M3FN": ml_dtypes.float6_e2m3fn,
    "f6E3M2FN": ml_dtypes.float6_e3m2fn,
    "f4E2M1FN": ml_dtypes.float4_e2m1fn,
}
BITS = {"f8E4M3FN": 8, "f8E5M2": 8, "f6E2M3FN": 6, "f6E3M2FN": 6, "f4E2M1FN": 4}
E8M0 = ml_dtypes.float8_e8m0fnu
BS = "{block_size = #tosa.block_size<BLOCK_SIZE_32>}"


def all_values(fmt, n):
    """n values of `fmt` cycling through every bit pattern."""
    codes = np.arange(n) % (1 << BITS[fmt])
    return codes.astype(np.uint8).view(FORMATS[fmt])


def e8m0(codes):
    return np.asarray(codes, np.uint8).view(E8M0)


def same_bits(got, ref):
    """Equal values, bit for bit; NaNs equal whatever their bits."""
    g = np.asarray(got).astype(np.float64)
    r = np.asarray(ref).astype(np.float64)
    nan = np.isnan(r)
    np.testing.assert_array_equal(np.isnan(g), nan)
    np.testing.assert_array_equal(g[~nan], r[~nan])
    np.testing.assert_array_equal(np.signbit(g[~nan]), np.signbit(r[~nan]))


# --- the specification, in numpy -------------------------------------------

def spec_cast_from(data, scale, out_dtype):
    """CAST_FROM_BLOCK_SCALED: fp32 acc = data * scale, rounded to out_t."""
    d = data.astype(np.float32)
    s = np.repeat(scale.astype(np.float32), 32, axis=-1)
    with np.errstate(over="ignore", invalid="ignore"):
        acc = d * s
    return acc.astype(out_dtype)


def out_max(fmt):
    """get_largest_value_rounding_to_normal_max: max + half an ulp at max."""
    fi = ml_dtypes.finfo(FORMATS[fmt])
    mx = float(fi.max)
    return mx + 0.5 * 2.0 ** (np.floor(np.log2(mx)) - fi.nmant)


def spec_block_scale(max_abs, fmt, in_dtype):
    """calc_block_scale: a float64 power of two (or NaN)."""
    if max_abs == 0:
        return 2.0 ** -127
    if np.isnan(max_abs) or np.isinf(max_abs):
        return np.nan
    with np.errstate(divide="ignore", under="ignore"):
        ratio = in_dtype(max_abs) / in_dtype(out_max(fmt))  # in in_t
        l2 = np.log2(np.float64(ratio))
    e = np.ceil(l2) if fmt == "f8E4M3FN" else np.floor(l2) + 1
    return float(np.clip(2.0 ** e, 2.0 ** -127, 2.0 ** 127))


def spec_cast_to(x, fmt):
    """CAST_TO_BLOCK_SCALED: (data in fmt, scales in f8E8M0FNU)."""
    in_dtype = x.dtype.type
    blocks = x.reshape(*x.shape[:-1], -1, 32)
    with np.errstate(invalid="ignore"):
        m = np.abs(blocks.astype(np.float64)).max(axis=-1)  # NaN propagates
    scale = np.vectorize(lambda v: spec_block_scale(v, fmt, in_dtype))(m)
    with np.errstate(invalid="ignore", under="ignore"):
        y = blocks / scale[..., None].astype(in_dtype)  # in in_t
        data = y.astype(in_dtype).astype(FORMATS[fmt]).reshape(x.shape)
    return data, scale.astype(E8M0)


def spec_matmul_t(a, sa, b, sb):
    """MATMUL_T_BLOCK_SCALED in fp32, in the spec's order."""
    n, h, c = a.shape
    d, w, _ = b.shape
    af, bf = a.astype(np.float32), b.astype(np.float32)
    saf, sbf = sa.astype(np.float32), sb.astype(np.float32)
    out = np.zeros((n, h, w), np.float32)
    bound = np.zeros((n, h, w))
    for blk in range(c // 32):
        acc = np.zeros((n, h, w), np.float32)
        for i in range(32):
            col = blk * 32 + i
            bcol = bf[:, :, col] if d == n else np.broadcast_to(bf[:1, :, col], (n, w))
            acc = acc + af[:, :, col][:, :, None] * bcol[:, None, :]
        sbb = sbf[:, :, blk] if d == n else np.broadcast_to(sbf[:1, :, blk], (n, w))
        sprod = saf[:, :, blk][:, :, None] * sbb[:, None, :]
        out = out + acc * sprod
        ab = np.abs(af[:, :, blk * 32:(blk + 1) * 32]).astype(np.float64)
        bb = np.abs(bf[:, :, blk * 32:(blk + 1) * 32]).astype(np.float64)
        if d != n:
            bb = np.broadcast_to(bb[:1], (n, *bb.shape[1:]))
        bound += np.einsum("nhc,nwc->nhw", ab, bb) * np.abs(sprod)
    return out, bound


# --- the tests ---------------------------------------------------------------

def run(func, inputs):
    with tempfile.TemporaryDirectory() as d:
        got, text = strata(func, inputs, d)
    return got, text


def f6_const(name, values, fmt):
    """A tosa.const of `values` written as decimals (f6: a function may not
    take f6 arguments; f4)."""
    def nested(a):
        if a.ndim == 1:
            return "[" + ", ".join(repr(float(v)) for v in a.astype(np.float64)) + "]"
        return "[" + ", ".join(nested(r) for r in a) + "]"
    t = ttype(values.shape, fmt)
    return (f'  %{name} = "tosa.const"() {{values = dense<{nested(values)}> : {t}}} '
            f": () -> {t}\n")


@pytest.mark.parametrize("out", ["f32", "bf16"])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_cast_from_block_scaled(fmt, out, rng):
    shape = (2, 256)
    data = all_values(fmt, np.prod(shape)).reshape(shape)
    # Scales: the extremes (2^-127, 2^127), NaN, 1, and random exponents.
    codes = rng.integers(0, 256, (2, 8))
    codes[0, :4] = [0, 254, 255, 127]
    scale = e8m0(codes)
    dt, st, ot = ttype(shape, fmt), ttype((2, 8), "f8E8M0FNU"), ttype(shape, out)
    if fmt.startswith("f6"):
        func = f"func.func @main(%s: {st}) -> {ot} {{\n" + f6_const("d", data, fmt)
        inputs = [scale]
    else:
        func = f"func.func @main(%d: {dt}, %s: {st}) -> {ot} {{\n"
        inputs = [data, scale]
    func += (f"  %0 = tosa.cast_from_block_scaled %d, %s {BS} : ({dt}, {st}) -> {ot}\n"
             f"  return %0 : {ot}\n}}")
    got, text = run(func, inputs)
    out_dtype = np.float32 if out == "f32" else ml_dtypes.bfloat16
    same_bits(got[0], spec_cast_from(data, scale, out_dtype))
    assert "top.Mul" in text


def cast_to_input(fmt, rng, in_dtype):
    """Blocks of 32 exercising every branch of the scale and the rounding:
    random magnitudes from 2^-140 to 2^120, zeros, NaN, Inf, max|x| exactly
    at out_max * 2^k and one ulp either side (ceil vs floor + 1), the clip
    at 2^-127 (f32 subnormals), values near the f32 maximum, and rounding
    ties of the format (its largest value fixes the scale at 2^k, the other
    31 are midpoints between neighbouring values, times 2^k)."""
    blocks = []
    for _ in range(12):
        blocks.append(rng.standard_normal(32) * 2.0 ** rng.integers(-140, 120))
    blocks.append(np.zeros(32))
    b = rng.standard_normal(32); b[5] = np.nan; blocks.append(b)
    b = rng.standard_normal(32); b[7] = np.inf; blocks.append(b)
    b = rng.standard_normal(32); b[9] = -np.inf; blocks.append(b)
    om = np.float32(out_max(fmt))
    for k in (-127, -126, -100, 0, 3, 100):
        for m in (np.float32(om * np.float32(2.0 ** k)),):
            for v in (np.nextafter(m, np.float32(0)), m, np.nextafter(m, np.float32(np.inf))):
                b = rng.uniform(-1, 1, 32) * float(v)
                b[rng.integers(32)] = -float(v)
                blocks.append(b)
    blocks.append(rng.uniform(-1, 1, 32) * 2.0 ** -145)  # all f32 subnormals
    blocks.append(rng.uniform(-1, 1, 32) * 3.4e38)
    fin = np.unique(np.abs(all_values(fmt, 1 << BITS[fmt]).astype(np.float64)))
    fin = fin[np.isfinite(fin)]
    mids = (fin[:-1] + fin[1:]) / 2
    for k in (0, -20, 40):
        b = np.resize(mids, 32) * np.where(rng.integers(0, 2, 32) == 1, 1, -1)
        b[0] = fin[-1]
        blocks.append(b * 2.0 ** k)
    rng.shuffle(blocks)
    x = np.stack(blocks[:len(blocks) // 2 * 2]).reshape(2, -1)
    with np.errstate(over="ignore"):
        return x.astype(in_dtype)


@pytest.mark.parametrize("fmt,inp", [(f, "f32") for f in FORMATS]
                         + [("f8E4M3FN", "bf16"), ("f4E2M1FN", "bf16"), ("f6E3M2FN", "bf16")])
def test_cast_to_block_scaled(fmt, inp, rng):
    in_dtype = np.float32 if inp == "f32" else ml_dtypes.bfloat16
    x = cast_to_input(fmt, rng, in_dtype)
    nb = x.shape[1] // 32
    xt, dt, st = ttype(x.shape, inp), ttype(x.shape, fmt), ttype((2, nb), "f8E8M0FNU")
    ft = ttype(x.shape, "f32")
    ref_data, ref_scale = spec_cast_to(x, fmt)
    if fmt.startswith("f6"):
        # f6 cannot leave the model: it is checked dequantized (exact: a
        # power of two times an f6 value), with the scales.
        func = (f"func.func @main(%x: {xt}) -> ({ft}, {st}) {{\n"
                f"  %d, %s = tosa.cast_to_block_scaled %x {BS} : ({xt}) -> ({dt}, {st})\n"
                f"  %y = tosa.cast_from_block_scaled %d, %s {BS} : ({dt}, {st}) -> {ft}\n"
                f"  return %y, %s : {ft}, {st}\n}}")
        got, _ = run(func, [x])
        same_bits(got[0], spec_cast_from(ref_data, ref_scale, np.float32))
    else:
        func = (f"func.func @main(%x: {xt}) -> ({dt}, {st}) {{\n"
                f"  %d, %s = tosa.cast_to_block_scaled %x {BS} : ({xt}) -> ({dt}, {st})\n"
                f"  return %d, %s : {dt}, {st}\n}}")
        got, _ = run(func, [x])
        assert got[0].dtype == FORMATS[fmt]
        keep = np.repeat(~np.isnan(ref_scale.astype(np.float32)), 32, axis=-1)
        same_bits(got[0][keep], ref_data[keep])
    assert got[1].dtype == E8M0
    np.testing.assert_array_equal(got[1].view(np.uint8), ref_scale.view(np.uint8))
    # The cases are there: NaN scales, the clip at 2^-127, 2^k scales.
    codes = ref_scale.view(np.uint8)
    assert (codes == 255).any() and (codes == 0).any() and len(np.unique(codes)) > 10


@pytest.mark.parametrize("bcast", [False, True])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_matmul_t_block_scaled(fmt, bcast, rng):
    n, h, w, c = 2, 3, 4, 96
    d = 1 if bcast else n
    # Finite data (NaN/Inf codes replaced by 1) and scales 2^-20 .. 2^20.
    def data(shape):
        v = rng.integers(0, 1 << BITS[fmt], shape).astype(np.uint8).view(FORMATS[fmt])
        return np.where(np.isfinite(v.astype(np.float32)), v, FORMATS[fmt](1))
    a, b = data((n, h, c)), data((d, w, c))
    sa = e8m0(rng.integers(107, 148, (n, h, c // 32)))
    sb = e8m0(rng.integers(107, 148, (d, w, c // 32)))
    at, bt = ttype(a.shape, fmt), ttype(b.shape, fmt)
    sat, sbt = ttype(sa.shape, "f8E8M0FNU"), ttype(sb.shape, "f8E8M0FNU")
    ot = ttype((n, h, w), "f32")
    if fmt.startswith("f6"):
        func = (f"func.func @main(%sa: {sat}, %sb: {sbt}) -> {ot} {{\n"
                + f6_const("a", a, fmt) + f6_const("b", b, fmt))
        inputs = [sa, sb]
    else:
        func = f"func.func @main(%a: {at}, %sa: {sat}, %b: {bt}, %sb: {sbt}) -> {ot} {{\n"
        inputs = [a, sa, b, sb]
    func += (f"  %0 = tosa.matmul_t_block_scaled %a, %sa, %b, %sb {BS} : "
             f"({at}, {sat}, {bt}, {sbt}) -> {ot}\n  return %0 : {ot}\n}}")
    got, text = run(func, inputs)
    ref, bound = spec_matmul_t(a, sa, b, sb)
    assert got[0].shape == ref.shape
    np.testing.assert_array_less(np.abs(got[0].astype(np.float64) - ref), 1e-5 * bound + 1e-30)
    # (with f6 both data are constants: top-optimize folds their block dots)
    assert fmt.startswith("f6") or "top.MatMul" in text


@pytest.mark.parametrize("fmt", ["f8E4M3FN", "f8E5M2", "f4E2M1FN"])
def test_block_scaled_constants(fmt, rng):
    """Constant data and scales (MX weights) stay in their types: the weight
    npz holds float8_*/float4_e2m1fn/float8_e8m0fnu arrays, exact."""
    shape = (2, 256)
    data = all_values(fmt, np.prod(shape)).reshape(shape)
    codes = rng.integers(0, 256, (2, 8))
    codes[1, :3] = [0, 254, 255]
    scale = e8m0(codes)
    dt, st, ot = ttype(shape, fmt), ttype((2, 8), "f8E8M0FNU"), ttype(shape, "f32")
    if BITS[fmt] == 8:
        d = f'"tosa.const"() {{values = dense<"0x{data.view(np.uint8).tobytes().hex().upper()}"> : {dt}}} : () -> {dt}'
        dconst = f"  %d = {d}\n"
    else:
        dconst = f6_const("d", data, fmt)
    func = (f"func.func @main(%x: {ot}) -> {ot} {{\n{dconst}"
            f'  %s = "tosa.const"() {{values = dense<"0x{scale.view(np.uint8).tobytes().hex().upper()}"> : {st}}} : () -> {st}\n'
            f"  %0 = tosa.cast_from_block_scaled %d, %s {BS} : ({dt}, {st}) -> {ot}\n"
            '  %sh = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>\n'
            f"  %1 = tosa.mul %0, %x, %sh : ({ot}, {ot}, tensor<1xi8>) -> {ot}\n"
            f"  return %1 : {ot}\n}}")
    got, _ = run(func, [np.ones(shape, np.float32)])  # (times 1 keeps -0)
    same_bits(got[0], spec_cast_from(data, scale, np.float32))


def test_block_scaled_compiled(rng, tmp_path):
    """The three ops in one model, compiled for the CPU (`strata compile
    --target cpu`, `strata run`): cast_to (f6E3M2FN, f8E4M3FN), cast_from
    and matmul_t against the numpy spec (the casts exact, the matmul as
    above)."""
    import os
    import subprocess
    from tosa_harness import BIN, save_npz
    x = cast_to_input("f6E3M2FN", rng, np.float32)           # [2, C]
    a = (rng.standard_normal((1, 3, 64)) * 4).astype(np.float32)
    b = (rng.standard_normal((1, 5, 64)) * 4).astype(np.float32)
    c = x.shape[1]
    xt, ft, st = ttype(x.shape, "f32"), ttype(x.shape, "f6E3M2FN"), ttype((2, c // 32), "f8E8M0FNU")
    at, bt = ttype(a.shape, "f32"), ttype(b.shape, "f32")
    a8, b8 = ttype(a.shape, "f8E4M3FN"), ttype(b.shape, "f8E4M3FN")
    sat, sbt = ttype((1, 3, 2), "f8E8M0FNU"), ttype((1, 5, 2), "f8E8M0FNU")
    ot = ttype((1, 3, 5), "f32")
    func = (f"func.func @main(%x: {xt}, %a: {at}, %b: {bt}) -> ({xt}, {st}, {ot}) {{\n"
            f"  %d, %s = tosa.cast_to_block_scaled %x {BS} : ({xt}) -> ({ft}, {st})\n"
            f"  %y = tosa.cast_from_block_scaled %d, %s {BS} : ({ft}, {st}) -> {xt}\n"
            f"  %qa, %sa = tosa.cast_to_block_scaled %a {BS} : ({at}) -> ({a8}, {sat})\n"
            f"  %qb, %sb = tosa.cast_to_block_scaled %b {BS} : ({bt}) -> ({b8}, {sbt})\n"
            f"  %m = tosa.matmul_t_block_scaled %qa, %sa, %qb, %sb {BS} : "
            f"({a8}, {sat}, {b8}, {sbt}) -> {ot}\n"
            f"  return %y, %s, %m : {xt}, {st}, {ot}\n}}")
    (tmp_path / "m.mlir").write_text(func + "\n")
    strata_bin = os.path.join(BIN, "strata")
    for args in (["import", str(tmp_path / "m.mlir"), "-o", str(tmp_path / "top"), "--name", "m"],
                 ["compile", str(tmp_path / "top" / "m.mlir"), "--target", "cpu",
                  "-o", str(tmp_path / "m.strata")]):
        r = subprocess.run([strata_bin, *args], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    save_npz(tmp_path / "in.npz", {"input0": x, "input1": a, "input2": b})
    r = subprocess.run([strata_bin, "run", str(tmp_path / "m.strata"), "--input",
                        str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out.npz") as z:
        got = [z[f"output{i}"] for i in range(3)]
    rd, rs = spec_cast_to(x, "f6E3M2FN")
    same_bits(got[0], spec_cast_from(rd, rs, np.float32))
    np.testing.assert_array_equal(got[1].view(np.uint8), rs.view(np.uint8))
    qa, sa = spec_cast_to(a, "f8E4M3FN")
    qb, sb = spec_cast_to(b, "f8E4M3FN")
    ref, bound = spec_matmul_t(qa, sa, qb, sb)
    np.testing.assert_array_less(np.abs(got[2].astype(np.float64) - ref), 1e-5 * bound + 1e-30)
