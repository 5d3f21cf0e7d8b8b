"""TOSA rescale and table through convert-tosa-to-top against MLIR's own TOSA
lowering (tosa_harness.py), exactly: single and double rounding (ties of
both signs), per-channel multipliers, zero points, unsigned input and
output, 16-bit multipliers; 8- and 16-bit tables."""
import numpy as np
import pytest

from tosa_harness import check, dense, strata, ttype


def const(name, a):
    d = dense(a)
    return f'  %{name} = "tosa.const"() {{values = {d}}} : () -> {d.split(" : ")[1]}\n'


def rescale(shape, src, dst, mult, shift, izp, ozp, rounding="SINGLE_ROUND",
            per_channel=False, in_unsigned=False, out_unsigned=False, scale32=True):
    ti, to = ttype(shape, src), ttype(shape, dst)
    mdt = np.int32 if scale32 else np.int16
    zdt = {"i8": np.int8, "i16": np.int16, "i32": np.int32}
    m = np.array(mult, mdt)
    s = np.array(shift, np.int8)
    return (f"func.func @main(%a: {ti}) -> {to} {{\n" + const("m", m) + const("s", s)
            + const("iz", np.array([izp], zdt[src])) + const("oz", np.array([ozp], zdt[dst]))
            + f"  %0 = tosa.rescale %a, %m, %s, %iz, %oz {{scale32 = {str(scale32).lower()}, "
            f"rounding_mode = {rounding}, per_channel = {str(per_channel).lower()}, "
            f"input_unsigned = {str(in_unsigned).lower()}, output_unsigned = {str(out_unsigned).lower()}}}"
            f" : ({ti}, {ttype(m.shape, 'i32' if scale32 else 'i16')}, {ttype(s.shape, 'i8')}, "
            f"{ttype((1,), src)}, {ttype((1,), dst)}) -> {to}\n  return %0 : {to}\n}}")


def ties(n_bits_shift, count):
    """Inputs x with x * 2^30 / 2^shift landing on exact halves, both signs."""
    base = np.arange(-count, count) * 2 + 1  # odd
    return base << (n_bits_shift - 31)


@pytest.mark.parametrize("rounding", ["SINGLE_ROUND", "DOUBLE_ROUND"])
def test_rescale_i32_to_i8(rounding, rng):
    x = rng.integers(-(1 << 20), 1 << 20, (4, 8)).astype(np.int32)
    x.flat[:16] = ties(36, 8)  # exact halves after the shift, both signs
    check(rescale((4, 8), "i32", "i8", [1 << 30], [36], 0, -5, rounding), [x])


def test_rescale_double_round_shift_above_31(rng):
    x = rng.integers(-(1 << 24), 1 << 24, (3, 16)).astype(np.int32)
    x.flat[:16] = np.arange(-8, 8) * 3 + 1
    check(rescale((3, 16), "i32", "i8", [1395864371], [40], 0, 2, "DOUBLE_ROUND"), [x])


def test_rescale_per_channel(rng):
    x = rng.integers(-(1 << 18), 1 << 18, (2, 3, 4)).astype(np.int32)
    mult = rng.integers(1 << 30, (1 << 31) - 1, 4)
    check(rescale((2, 3, 4), "i32", "i8", list(mult), [38, 37, 39, 36], 0, 1,
                  "DOUBLE_ROUND", per_channel=True), [x])


def test_rescale_i8_to_i32_with_zero_point(rng):
    x = rng.integers(-128, 128, (5, 5)).astype(np.int8)
    check(rescale((5, 5), "i8", "i32", [1 << 30], [30], -17, 0), [x])


def test_rescale_unsigned_in_and_out(rng):
    # u8 (bits in i8) -> i8 and i8 -> u8, with unsigned zero points 128 / 200.
    x = rng.integers(-128, 128, (4, 6)).astype(np.int8)
    check(rescale((4, 6), "i8", "i8", [1 << 30], [30], -128, 3, in_unsigned=True), [x])
    check(rescale((4, 6), "i8", "i8", [1 << 30], [31], 0, -56, out_unsigned=True), [x])


def test_rescale_16bit_multiplier(rng):
    x = rng.integers(-(1 << 15), 1 << 15, (4, 4)).astype(np.int16)
    check(rescale((4, 4), "i16", "i8", [23000], [22], 0, 0, scale32=False), [x])


def test_rescale_chain_quantized_add(rng):
    """A quantized add as TFLite writes it in TOSA: both inputs rescaled to
    i32, added, rescaled back to i8; stays integer end to end."""
    t8, t32 = ttype((2, 8), "i8"), ttype((2, 8), "i32")
    z8 = lambda n, v: const(n, np.array([v], np.int8))
    z32 = lambda n: const(n, np.array([0], np.int32))
    m = lambda n, v: const(n, np.array([v], np.int32))
    s = lambda n, v: const(n, np.array([v], np.int8))
    attrs = ("{scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, "
             "input_unsigned = false, output_unsigned = false}")
    sig = lambda a, b: f"({a}, tensor<1xi32>, tensor<1xi8>, {b[0]}, {b[1]})"
    func = (f"func.func @main(%a: {t8}, %b: {t8}) -> {t8} {{\n"
            + z8("za", -3) + z8("zb", 11) + z8("zo", -1) + z32("z0")
            + m("ma", 1518500250) + s("sa", 33) + m("mb", 1073741824) + s("sb", 32)
            + m("mo", 1431655765) + s("so", 38)
            + f"  %x = tosa.rescale %a, %ma, %sa, %za, %z0 {attrs} : "
            + sig(t8, ("tensor<1xi8>", "tensor<1xi32>")) + f" -> {t32}\n"
            + f"  %y = tosa.rescale %b, %mb, %sb, %zb, %z0 {attrs} : "
            + sig(t8, ("tensor<1xi8>", "tensor<1xi32>")) + f" -> {t32}\n"
            + f"  %s = tosa.add %x, %y : ({t32}, {t32}) -> {t32}\n"
            + f"  %0 = tosa.rescale %s, %mo, %so, %z0, %zo {attrs} : "
            + sig(t32, ("tensor<1xi32>", "tensor<1xi8>")) + f" -> {t8}\n"
            + f"  return %0 : {t8}\n}}")
    text = check(func, [rng.integers(-128, 128, (2, 8)).astype(np.int8),
                        rng.integers(-128, 128, (2, 8)).astype(np.int8)])
    assert "xf32" not in text  # no float anywhere: the model stays quantized
    # each rescale is one Requant in TOSA's rounding
    assert text.count("top.Requant") == 3
    assert text.count("#top.requant_mode<TosaDoubleRound>") == 3


def tosa_apply_scale(x, m, s, double_round):
    """The spec's apply_scale_32 on Python ints (independent of MLIR)."""
    r = 1 << (s - 1)
    if double_round and s > 31:
        r += (1 << 30) if x >= 0 else -(1 << 30)
    return (x * m + r) >> s


@pytest.mark.parametrize("rounding", ["SINGLE_ROUND", "DOUBLE_ROUND"])
@pytest.mark.parametrize("per_element", [False, True])
def test_apply_scale_tensor(rounding, per_element, rng, tmp_path):
    """tosa.apply_scale on tensors (MLIR's lowering takes only scalars, so
    the reference is the spec's formula in numpy): one Requant to i32 for a
    single multiplier/shift, the i64 decomposition per element otherwise."""
    n = 12
    x = rng.integers(-(1 << 24), 1 << 24, (n,)).astype(np.int32)
    x[:4] = [1, -1, 3, -3]
    if per_element:
        m = rng.integers(1 << 30, (1 << 31) - 1, n).astype(np.int32)
        sh = rng.integers(30, 40, n).astype(np.int8)
    else:
        m = np.full(n, 1 << 30, np.int32)
        sh = np.full(n, 33, np.int8)
    t = ttype((n,), "i32")
    func = (f"func.func @main(%a: {t}) -> {t} {{\n" + const("m", m) + const("s", sh)
            + f"  %0 = tosa.apply_scale %a, %m, %s {{rounding_mode = {rounding}}} : "
            f"({t}, {t}, {ttype((n,), 'i8')}) -> {t}\n  return %0 : {t}\n}}")
    (got,), text = strata(func, [x], str(tmp_path))
    expect = [max(min(tosa_apply_scale(int(v), int(mm), int(ss), rounding == "DOUBLE_ROUND"),
                      2**31 - 1), -2**31) for v, mm, ss in zip(x, m, sh)]
    np.testing.assert_array_equal(got.astype(np.int64), expect)
    assert ("top.Requant" in text) == (not per_element)


def test_variables_one_run(rng, tmp_path):
    """tosa.variable / variable_read / variable_write for one run from the
    initial value: the reads see the initial value, then the last write."""
    init = rng.standard_normal(6).astype(np.float32)
    t = ttype((6,), "f32")
    func = (f"tosa.variable @state = {dense(init).split(' : ')[0]} : {t}\n"
            f"func.func @main(%a: {t}) -> ({t}, {t}) {{\n"
            f"  %0 = tosa.variable_read @state : {t}\n"
            f"  %1 = tosa.add %a, %0 : ({t}, {t}) -> {t}\n"
            f"  tosa.variable_write @state, %1 : {t}\n"
            f"  %2 = tosa.variable_read @state : {t}\n"
            f"  %3 = tosa.sub %2, %a : ({t}, {t}) -> {t}\n"
            f"  return %2, %3 : {t}, {t}\n}}")
    x = rng.standard_normal(6).astype(np.float32)
    (s, d), text = strata(func, [x], str(tmp_path))
    np.testing.assert_allclose(s, x + init, rtol=1e-6)
    np.testing.assert_allclose(d, (x + init) - x, rtol=1e-6)
    assert "tosa." not in text


def test_table_i8(rng):
    table = rng.integers(-128, 128, 256).astype(np.int8)
    t = ttype((3, 7), "i8")
    func = (f"func.func @main(%a: {t}) -> {t} {{\n" + const("t", table)
            + f"  %0 = tosa.table %a, %t : ({t}, tensor<256xi8>) -> {t}\n  return %0 : {t}\n}}")
    x = rng.integers(-128, 128, (3, 7)).astype(np.int8)
    x.flat[:2] = [-128, 127]
    check(func, [x])


def test_table_i16(rng):
    table = rng.integers(-32768, 32768, 513).astype(np.int16)
    t, o = ttype((4, 9), "i16"), ttype((4, 9), "i32")
    func = (f"func.func @main(%a: {t}) -> {o} {{\n" + const("t", table)
            + f"  %0 = tosa.table %a, %t : ({t}, tensor<513xi16>) -> {o}\n  return %0 : {o}\n}}")
    x = rng.integers(-32768, 32768, (4, 9)).astype(np.int16)
    x.flat[:2] = [-32768, 32767]
    check(func, [x])
