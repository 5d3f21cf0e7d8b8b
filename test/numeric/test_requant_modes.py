"""top.Requant's TOSA modes ("TosaSingleRound", "TosaDoubleRound") and its
`axis` attribute against numpy references on Python ints (exact). Run with
STRATA_NUMERIC_BACKEND=compiled, the same tests check the linalg lowering.
The TOSA conversion's own tests (test/tosa/test_tosa_quant.py) compare the
same rounding with MLIR's TOSA lowering."""

import numpy as np
import pytest

from numeric_harness import Model, run_ok

INT32_MIN, INT32_MAX = -2**31, 2**31 - 1


def tosa_apply_scale(x, m, s, double_round):
    """The TOSA 1.0 spec's apply_scale_32 (apply_scale_16 without double)."""
    r = 1 << (s - 1) if s > 0 else 0
    if double_round and s > 31:
        r += (1 << 30) if x >= 0 else -(1 << 30)
    return (x * m + r) >> s  # Python's >> on ints is floor division


def np_requant_tosa(q, mult, shift, double_round, zp_in, zp_out, lo, hi, axis):
    out = np.empty(q.shape, np.int64)
    for idx in np.ndindex(q.shape):
        c = idx[axis] if len(mult) > 1 else 0
        m, s = mult[c], shift[c if len(shift) > 1 else 0]
        y = tosa_apply_scale(int(q[idx]) - zp_in, m, s, double_round)
        out[idx] = min(max(y + zp_out, lo), hi)
    return out


def tensor(shape, elem):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def arr(a):
    return ", ".join(str(int(v)) for v in a)


def run_requant(q, in_type, out_type, attrs):
    m = Model({"q": q}, types={"q": in_type})
    m.op(f"%y = top.Requant(%q) {{{attrs}}} : ({in_type}) -> {out_type}")
    return run_ok(m, [("%y", "y", out_type)])["y"]


def test_tosa_single_round_known_values():
    """Ties round up (toward +inf), unlike MultiplierShift's ties away."""
    q = np.array([[6, -6, 10, -10, 7, -7, -480, 2]], np.int32)
    t = tensor(q.shape, "i32")
    y = run_requant(q, t, tensor(q.shape, "i8"),
                    "multiplier = array<i64: 1073741824>, rshift = array<i64: 32>, "
                    "quant_mode = #top.requant_mode<TosaSingleRound>")
    # x * 2^30 / 2^32 = x / 4: 1.5 -> 2, -1.5 -> -1, 2.5 -> 3, -2.5 -> -2,
    # 1.75 -> 2, -1.75 -> -2, -120 -> -120, 0.5 -> 1.
    np.testing.assert_array_equal(y, [[2, -1, 3, -2, 2, -2, -120, 1]])
    ms = run_requant(q, t, tensor(q.shape, "i8"),
                     "multiplier = array<i64: 1073741824>, rshift = array<i64: 32>")
    assert ms[0, 1] == -2 and ms[0, 3] == -3  # MultiplierShift differs


def test_tosa_double_round_known_values():
    """DOUBLE_ROUND adds +-2^30 to the rounding term when rshift > 31."""
    q = np.array([[3, -3, 1, -1]], np.int32)
    t = tensor(q.shape, "i32")
    attrs = ("multiplier = array<i64: 1073741824>, rshift = array<i64: 33>, "
             "quant_mode = #top.requant_mode<TosaDoubleRound>")
    y = run_requant(q, t, t, attrs)
    expect = [[tosa_apply_scale(int(v), 1 << 30, 33, True) for v in q[0]]]
    np.testing.assert_array_equal(y, expect)
    # floor((3 * 2^30 + 2^32 + 2^30) / 2^33) = 1, single: floor(0.875) = 0.
    assert y[0, 0] == 1


@pytest.mark.parametrize("mode", ["TosaSingleRound", "TosaDoubleRound"])
@pytest.mark.parametrize("axis", [None, 3, 0])
def test_tosa_requant_i32_to_i8(mode, axis, rng):
    shape = (2, 3, 3, 4)
    q = rng.integers(-(1 << 24), 1 << 24, shape, dtype=np.int32)
    q.flat[:2] = [INT32_MAX, INT32_MIN]
    channels = shape[axis] if axis is not None else 1
    mult = rng.integers(1 << 30, (1 << 31) - 1, channels).tolist()
    shift = rng.integers(30, 40, channels).tolist()
    attrs = (f"multiplier = array<i64: {arr(mult)}>, rshift = array<i64: {arr(shift)}>, "
             f"quant_mode = #top.requant_mode<{mode}>")
    if axis is not None:
        attrs += f", axis = {axis} : i64"
    y = run_requant(q, tensor(shape, "i32"), tensor(shape, "i8"), attrs)
    expect = np_requant_tosa(q, mult, shift, mode == "TosaDoubleRound", 0, 0,
                             -128, 127, axis if axis is not None else 0)
    np.testing.assert_array_equal(y, expect)
    assert (expect == 127).any() and (expect == -128).any()


def test_tosa_requant_quantized_types_unsigned(rng):
    """Zero points from !quant.uniform types, an unsigned input (TOSA's
    input_unsigned) and an int8 output with a zero point."""
    shape = (4, 8)
    q = rng.integers(0, 256, shape).astype(np.uint8)
    in_t = tensor(shape, "!quant.uniform<u8:f32, 0.5:128>")
    out_t = tensor(shape, "!quant.uniform<i8:f32, 0.25:-3>")
    y = run_requant(q, in_t, out_t,
                    "multiplier = array<i64: 1431655765>, rshift = array<i64: 30>, "
                    "quant_mode = #top.requant_mode<TosaSingleRound>")
    expect = np_requant_tosa(q, [1431655765], [30], False, 128, -3, -128, 127, 0)
    np.testing.assert_array_equal(y, expect)


def test_axis_on_tflite_mode(rng):
    """`axis` picks the channel dim of every integer mode: TFLite's NHWC
    per-channel requantization on the last dim."""
    shape = (1, 2, 2, 3)
    q = rng.integers(-50000, 50000, shape, dtype=np.int32)
    mult, shift = [1518500250, 1200000000, 2000000000], [8, 9, 10]
    y = run_requant(q, tensor(shape, "i32"), tensor(shape, "i8"),
                    f"multiplier = array<i64: {arr(mult)}>, rshift = array<i64: {arr(shift)}>, "
                    "quant_mode = #top.requant_mode<TFLite>, axis = 3 : i64")

    def tflite(x, m, s):  # gemmlowp, |x| small so no saturation
        ab = x * m
        nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
        v = ab + nudge
        h = abs(v) >> 31 if v >= 0 else -(abs(v) >> 31)
        mask = (1 << s) - 1
        return (h >> s) + (1 if (h & mask) > (mask >> 1) + (1 if h < 0 else 0) else 0)

    expect = np.empty(shape, np.int64)
    for idx in np.ndindex(shape):
        c = idx[3]
        expect[idx] = min(max(tflite(int(q[idx]), mult[c], shift[c]), -128), 127)
    np.testing.assert_array_equal(y, expect)


def srdhm(x, m):
    """gemmlowp's SaturatingRoundingDoublingHighMul on Python ints (the
    INT32_MIN * INT32_MIN saturation included)."""
    if x == m == INT32_MIN:
        return INT32_MAX
    ab = x * m
    v = ab + ((1 << 30) if ab >= 0 else 1 - (1 << 30))
    return v >> 31 if v >= 0 else -((-v) >> 31)  # C division: toward zero


def tflite_half_up(x, m, s):
    """TFLiteHalfUp: x saturated to int32, SRDHM, then / 2^s ties up."""
    h = srdhm(min(max(x, INT32_MIN), INT32_MAX), m)
    return (h + (1 << (s - 1))) >> s if s > 0 else h


def test_tflite_half_up_known_values():
    """Negative ties round up (-2.5 -> -2), where TFLite mode (gemmlowp)
    rounds them away from zero (-3); positive ties agree."""
    q = np.array([[10, -10, 6, -6, 7, -7, -480, 2]], np.int32)
    t = tensor(q.shape, "i32")
    attrs = "multiplier = array<i64: 1073741824>, rshift = array<i64: 1>"
    y = run_requant(q, t, tensor(q.shape, "i8"),
                    attrs + ", quant_mode = #top.requant_mode<TFLiteHalfUp>")
    # SRDHM(x, 2^30) = x / 2: 5, -5, 3, -3, 4 (3.5), -3 (-3.5: the nudge
    # 1 - 2^30 and C's truncation take a negative tie toward zero), -240, 1;
    # then / 2 ties up: 3, -2, 2, -1, 2, -1, -120, 1.
    np.testing.assert_array_equal(y, [[3, -2, 2, -1, 2, -1, -120, 1]])
    g = run_requant(q, t, tensor(q.shape, "i8"),
                    attrs + ", quant_mode = #top.requant_mode<TFLite>")
    assert g[0, 1] == -3 and g[0, 3] == -2  # gemmlowp: -2.5 -> -3, -1.5 -> -2


@pytest.mark.parametrize("axis", [None, 3])
def test_tflite_half_up_i32_to_i8(axis, rng):
    shape = (2, 3, 3, 4)
    q = rng.integers(-(1 << 20), 1 << 20, shape, dtype=np.int32)
    q.flat[:2] = [INT32_MAX, INT32_MIN]
    channels = shape[axis] if axis is not None else 1
    mult = rng.integers(1 << 30, (1 << 31) - 1, channels).tolist()
    mult[0] = INT32_MAX
    shift = rng.integers(4, 14, channels).tolist()
    attrs = (f"multiplier = array<i64: {arr(mult)}>, rshift = array<i64: {arr(shift)}>, "
             "quant_mode = #top.requant_mode<TFLiteHalfUp>")
    if axis is not None:
        attrs += f", axis = {axis} : i64"
    y = run_requant(q, tensor(shape, "i32"), tensor(shape, "i8"), attrs)
    expect = np.empty(shape, np.int64)
    for idx in np.ndindex(shape):
        c = idx[axis] if axis is not None else 0
        expect[idx] = min(max(tflite_half_up(int(q[idx]), mult[c], shift[c]), -128), 127)
    np.testing.assert_array_equal(y, expect)
    assert (expect == 127).any() and (expect == -128).any()
