"""top.Quant, top.Dequant and top.Requant against numpy, and a conv_v2-style
int8 chain. Quantized tensors are exchanged as their storage integers, so
every comparison is exact (Dequant's f32 results too: both sides round the
exact f64 value once)."""

import numpy as np
import pytest

from reference import conv_nd


from numeric_harness import Model, mlir_type, run_ok

INT32_MIN, INT32_MAX = -2**31, 2**31 - 1

U8 = "u8"
STORAGE = {"i8": (np.int8, -128, 127), "u8": (np.uint8, 0, 255),
           "i16": (np.int16, -2**15, 2**15 - 1), "i32": (np.int32, INT32_MIN, INT32_MAX)}


def fmt_scale(s):
    """An MLIR float literal that parses back to exactly the double `s`."""
    return np.format_float_scientific(s, unique=True)


def qelem(storage, scale, zp=0, axis=None, expressed="f32"):
    """A !quant.uniform element type; per-axis if `axis` is given."""
    if axis is None:
        return f"!quant.uniform<{storage}:{expressed}, {fmt_scale(scale)}:{zp}>"
    params = ", ".join(f"{fmt_scale(s)}:{z}" for s, z in zip(scale, zp))
    return f"!quant.uniform<{storage}:{expressed}:{axis}, {{{params}}}>"


def qtensor(shape, elem):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def along(values, axis, ndim, dtype):
    """Per-axis parameters shaped to broadcast along `axis`."""
    a = np.asarray(values, dtype)
    if axis is None:
        return a
    shape = [1] * ndim
    shape[axis] = -1
    return a.reshape(shape)


def np_quantize(x, scale, zp, storage, axis=None, qmin=None, qmax=None):
    """ONNX QuantizeLinear in f64: clamp(round_half_even(x / s) + zp); NaN -> zp."""
    dtype, lo, hi = STORAGE[storage]
    lo = lo if qmin is None else qmin
    hi = hi if qmax is None else qmax
    s = along(scale, axis, x.ndim, np.float64)
    z = along(zp, axis, x.ndim, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.round(x.astype(np.float64) / s) + z   # np.round: ties to even
    v = np.where(np.isnan(v), np.broadcast_to(z, v.shape), v)
    return np.clip(v, lo, hi).astype(dtype)


def np_dequantize(q, scale, zp, axis=None, dtype=np.float32):
    s = along(scale, axis, q.ndim, np.float64)
    z = along(zp, axis, q.ndim, np.int64)
    return ((q.astype(np.int64) - z) * s).astype(dtype)


# ----------------------------------------------------------------------------
# top.Quant
# ----------------------------------------------------------------------------

def run_quant(x, elem, storage):
    m = Model({"x": x})
    t = qtensor(x.shape, elem)
    m.op(f"%q = top.Quant(%x) : ({mlir_type(x.shape, x.dtype)}) -> {t}")
    out = run_ok(m, [("%q", "q", t)])["q"]
    assert out.dtype == STORAGE[storage][0]
    return out


def test_quant_ties_to_even():
    # x / 0.5 is exact, so these are exact ties: ONNX rounds them to even.
    x = np.array([0.25, 0.75, 1.25, -0.25, -0.75, -1.25, 0.0, -0.0, 0.2, -0.3],
                 np.float32)
    out = run_quant(x, qelem("i8", 0.5, 0), "i8")
    np.testing.assert_array_equal(out, [0, 2, 2, 0, -2, -2, 0, 0, 0, -1])


@pytest.mark.parametrize("zp", [0, 3, -5, -128, 127])
def test_quant_per_tensor_i8(zp, rng):
    x = (rng.standard_normal((2, 3, 5)) * 8).astype(np.float32)
    out = run_quant(x, qelem("i8", 0.1, zp), "i8")
    np.testing.assert_array_equal(out, np_quantize(x, 0.1, zp, "i8"))


def test_quant_saturation_and_specials():
    x = np.array([1e3, -1e3, 12.7, 12.8, -12.8, -12.9, np.inf, -np.inf, np.nan,
                  3.4e38, -3.4e38], np.float32)
    out = run_quant(x, qelem("i8", 0.1, -2), "i8")
    # 12.7/0.1 - 2 = 125; 12.8/0.1 - 2 = 126; -12.8/0.1 - 2 = -130 -> -128.
    np.testing.assert_array_equal(out, [127, -128, 125, 126, -128, -128, 127, -128, -2,
                                        127, -128])
    np.testing.assert_array_equal(out, np_quantize(x, 0.1, -2, "i8"))


@pytest.mark.parametrize("zp", [0, 128, 255])
def test_quant_uint8(zp, rng):
    x = (rng.standard_normal((4, 7)) * 3).astype(np.float32)
    x[0, :3] = [100.0, -100.0, 0.0]
    out = run_quant(x, qelem("u8", 0.02, zp), "u8")
    expect = np_quantize(x, 0.02, zp, "u8")
    np.testing.assert_array_equal(out, expect)
    assert expect[0, 0] == 255 and expect[0, 1] == 0  # both ends saturate


def test_quant_narrow_range():
    x = np.array([-2.0, -1.0, 0.0, 1.0, 2.0], np.float32)
    out = run_quant(x, "!quant.uniform<i8<-127:127>:f32, 0.0078125>", "i8")
    np.testing.assert_array_equal(out, [-127, -127, 0, 127, 127])


@pytest.mark.parametrize("storage", ["i16", "i32"])
def test_quant_wide_storage(storage, rng):
    x = (rng.standard_normal(64) * 1000).astype(np.float32)
    x[:2] = [1e30, -1e30]
    out = run_quant(x, qelem(storage, 0.003, -17), storage)
    np.testing.assert_array_equal(out, np_quantize(x, 0.003, -17, storage))


def test_quant_f64_input(rng):
    x = rng.standard_normal(50) * 4
    out = run_quant(x, qelem("i8", 0.05, 1, expressed="f64"), "i8")
    np.testing.assert_array_equal(out, np_quantize(x, 0.05, 1, "i8"))


@pytest.mark.parametrize("storage", ["i8", U8])
@pytest.mark.parametrize("axis,shape", [(1, (2, 3, 4)), (0, (3, 5)), (2, (1, 2, 3))])
def test_quant_per_axis(axis, shape, storage, rng):
    n = shape[axis]
    scales = list(rng.uniform(0.01, 0.2, n))
    zps = ([-3, 0, 7, 2, -1] if storage == "i8" else [0, 128, 255, 3, 17])[:n]
    x = (rng.standard_normal(shape) * 5).astype(np.float32)
    out = run_quant(x, qelem(storage, scales, zps, axis), storage)
    np.testing.assert_array_equal(out, np_quantize(x, scales, zps, storage, axis))


def test_quant_dequant_unranked_results(rng):
    """Unranked results are filled in by shape inference before running."""
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    scales, zps = [0.02, 0.05, 0.1], [-4, 0, 9]
    elem = qelem("i8", scales, zps, axis=1)
    m = Model({"x": x})
    m.op(f"%q = top.Quant(%x) : (tensor<2x3x4xf32>) -> tensor<*x{elem}>")
    m.op(f"%y = top.Dequant(%q) : (tensor<*x{elem}>) -> tensor<*xf32>")
    out = run_ok(m, [("%q", "q", f"tensor<*x{elem}>"), ("%y", "y", "tensor<*xf32>")])
    expect = np_quantize(x, scales, zps, "i8", axis=1)
    np.testing.assert_array_equal(out["q"], expect)
    np.testing.assert_array_equal(out["y"], np_dequantize(expect, scales, zps, axis=1))


# ----------------------------------------------------------------------------
# top.Dequant
# ----------------------------------------------------------------------------

def run_dequant(q, elem, out_dtype=np.float32):
    m = Model({"q": q}, types={"q": qtensor(q.shape, elem)})
    t = mlir_type(q.shape, out_dtype)
    m.op(f"%y = top.Dequant(%q) : ({qtensor(q.shape, elem)}) -> {t}")
    y = run_ok(m, [("%y", "y", t)])["y"]
    assert y.dtype == out_dtype
    return y


@pytest.mark.parametrize("zp", [0, -7, 100])
def test_dequant_i8(zp, rng):
    q = rng.integers(-128, 128, (3, 4, 5), dtype=np.int8)
    y = run_dequant(q, qelem("i8", 0.037, zp))
    np.testing.assert_array_equal(y, np_dequantize(q, 0.037, zp))


def test_dequant_known_values():
    q = np.array([-128, -1, 0, 3, 127], np.int8)
    y = run_dequant(q, qelem("i8", 0.5, 3))
    np.testing.assert_array_equal(y, np.array([-65.5, -2, -1.5, 0, 62], np.float32))


def test_dequant_uint8(rng):
    q = rng.integers(0, 256, (6, 6), dtype=np.uint8)
    q[0, :2] = [0, 255]
    y = run_dequant(q, qelem("u8", 0.1, 128))
    np.testing.assert_array_equal(y, np_dequantize(q, 0.1, 128))
    assert y[0, 0] == np.float32(-12.8) and y[0, 1] == np.float32(12.7)


def test_dequant_f64(rng):
    q = rng.integers(-2**31, 2**31, 40, dtype=np.int64).astype(np.int32)
    y = run_dequant(q, qelem("i32", 1e-3, -5, expressed="f64"), np.float64)
    np.testing.assert_array_equal(y, np_dequantize(q, 1e-3, -5, dtype=np.float64))


@pytest.mark.parametrize("storage", ["i8", U8])
@pytest.mark.parametrize("axis,shape", [(1, (2, 4, 3)), (0, (3, 5))])
def test_dequant_per_axis(axis, shape, storage, rng):
    n = shape[axis]
    dtype, lo, hi = STORAGE[storage]
    q = rng.integers(lo, hi + 1, shape, dtype=dtype)
    scales = list(rng.uniform(0.01, 0.5, n))
    zps = ([5, -3, 0, 9] if storage == "i8" else [128, 0, 255, 1])[:n]
    y = run_dequant(q, qelem(storage, scales, zps, axis))
    np.testing.assert_array_equal(y, np_dequantize(q, scales, zps, axis))


def test_quant_dequant_round_trip(rng):
    """Quant then Dequant inside one model: |x - y| <= scale / 2 in range."""
    x = rng.uniform(-6, 6, (4, 8)).astype(np.float32)
    elem = qelem("i8", 0.05, -1)
    m = Model({"x": x})
    m.op(f"%q = top.Quant(%x) : (tensor<4x8xf32>) -> {qtensor((4, 8), elem)}")
    m.op(f"%y = top.Dequant(%q) : ({qtensor((4, 8), elem)}) -> tensor<4x8xf32>")
    y = run_ok(m, [("%y", "y", "tensor<4x8xf32>")])["y"]
    np.testing.assert_array_equal(y, np_dequantize(np_quantize(x, 0.05, -1, "i8"), 0.05, -1))
    inside = (x > -6.3) & (x < 6.3)
    assert np.all(np.abs(x - y)[inside] <= 0.025 + 1e-6)


# ----------------------------------------------------------------------------
# top.Requant: numpy references on Python ints (exact)
# ----------------------------------------------------------------------------

def rshift_round_away(p, s):
    """round_half_away_from_zero(p / 2^s) on Python ints."""
    if s == 0:
        return p
    half = 1 << (s - 1)
    return (p + half) >> s if p >= 0 else -((-p + half) >> s)


def srdhm(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    v = ab + nudge
    q = abs(v) >> 31  # C division truncates toward zero
    return q if v >= 0 else -q


def rounding_divide_by_pot(x, e):
    """gemmlowp RoundingDivideByPOT."""
    mask = (1 << e) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if remainder > threshold else 0)


def np_requant_int(q, mode, mult, shift, zp_in, zp_out, lo, hi,
                   in_axis=None, out_axis=None):
    """Reference for the integer modes; parameters per element, channel = dim 1."""
    out = np.empty(q.shape, np.int64)
    for idx in np.ndindex(q.shape):
        c = idx[1] if q.ndim >= 2 else 0
        m = mult[c] if len(mult) > 1 else mult[0]
        s = shift[c] if len(shift) > 1 else shift[0]
        zi = zp_in[idx[in_axis]] if in_axis is not None else zp_in
        zo = zp_out[idx[out_axis]] if out_axis is not None else zp_out
        x = int(q[idx]) - zi
        if mode == "MultiplierShift":
            y = rshift_round_away(x * m, s)
        else:
            x = min(max(x, INT32_MIN), INT32_MAX)
            y = rounding_divide_by_pot(srdhm(x, m), s)
        out[idx] = min(max(y + zo, lo), hi)
    return out


def quantize_multiplier(real):
    """TFLite QuantizeMultiplier for 0 < real < 1: (Q31 multiplier, rshift)."""
    frac, exp = np.frexp(real)
    m = int(round(frac * 2**31))
    if m == 2**31:
        m //= 2
        exp += 1
    assert exp <= 0
    return m, -int(exp)


def run_requant(q, in_type, out_type, attrs):
    m = Model({"q": q}, types={"q": in_type})
    m.op(f"%y = top.Requant(%q) {{{attrs}}} : ({in_type}) -> {out_type}")
    return run_ok(m, [("%y", "y", out_type)])["y"]


def arr(a):
    return ", ".join(str(int(v)) for v in a)


def test_requant_tflite_known_values():
    """Hand-computed gemmlowp results: multiplier 2^30 is 0.5."""
    q = np.array([[3, -3, 5, -5, INT32_MAX, INT32_MIN, 1, -1]], np.int32)
    t = "tensor<1x8xi32>"
    y = run_requant(q, t, t, 'multiplier = array<i64: 1073741824>, rshift = array<i64: 0>, quant_mode = #top.requant_mode<TFLite>')
    # SRDHM nudges negative ties toward zero: -1.5 -> -1, -2.5 -> -2.
    np.testing.assert_array_equal(y, [[2, -1, 3, -2, 2**30, -2**30, 1, 0]])
    y = run_requant(q, t, t, 'multiplier = array<i64: 1073741824>, rshift = array<i64: 1>, quant_mode = #top.requant_mode<TFLite>')
    # Then RoundingDivideByPOT rounds ties away from zero: 1 / 2 -> 1, -1 / 2 -> -1.
    np.testing.assert_array_equal(y, [[1, -1, 2, -1, 2**29, -2**29, 1, 0]])


def test_requant_multiplier_shift_known_values():
    q = np.array([[6, -6, 10, -10, 7, -7]], np.int32)
    t = "tensor<1x6xi32>"
    # x * 1 / 4, ties away from zero: 1.5 -> 2, -1.5 -> -2, 2.5 -> 3, 1.75 -> 2.
    y = run_requant(q, t, "tensor<1x6xi8>", "multiplier = array<i64: 1>, rshift = array<i64: 2>")
    np.testing.assert_array_equal(y, [[2, -2, 3, -3, 2, -2]])


@pytest.mark.parametrize("mode", ["MultiplierShift", "TFLite"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_requant_int32_to_int8(mode, per_channel, rng):
    """int32 accumulator -> int8 with an output zero point; saturates."""
    shape = (2, 4, 3, 3)
    q = rng.integers(-200000, 200000, shape, dtype=np.int32)
    q[0, 0, 0, :2] = [INT32_MAX, INT32_MIN]
    if mode == "TFLite":
        mult = rng.integers(2**30, 2**31, 4 if per_channel else 1).tolist()
        shift = rng.integers(8, 14, 4 if per_channel else 1).tolist()
    else:
        mult = rng.integers(-3000, 3000, 4 if per_channel else 1).tolist()
        shift = rng.integers(12, 24, 4 if per_channel else 1).tolist()
    out_t = qtensor(shape, qelem("i8", 0.1, -4))
    y = run_requant(q, qtensor(shape, "i32"), out_t,
                    f'multiplier = array<i64: {arr(mult)}>, rshift = array<i64: {arr(shift)}>, quant_mode = #top.requant_mode<{mode}>')
    assert y.dtype == np.int8
    expect = np_requant_int(q, mode, mult, shift, 0, -4, -128, 127)
    np.testing.assert_array_equal(y, expect)
    assert (expect == 127).any() and (expect == -128).any()


@pytest.mark.parametrize("storage", ["i8", U8])
@pytest.mark.parametrize("mode", ["MultiplierShift", "TFLite"])
def test_requant_quantized_per_axis(mode, storage, rng):
    """Quantized input (its zero point is subtracted first) to a per-axis
    result on axis 0, with per-channel multipliers on dim 1."""
    shape = (3, 2, 5)
    q = rng.integers(-128, 128, shape, dtype=np.int8)
    mult = [1518500250, 1200000000] if mode == "TFLite" else [700, -900]
    shift = [3, 5]
    dtype, lo, hi = STORAGE[storage]
    out_zps = [0, 128, 255] if storage == "u8" else [-128, 0, 120]
    in_t = qtensor(shape, qelem("i8", 0.2, -7))
    out_t = qtensor(shape, qelem(storage, [0.1, 0.2, 0.3], out_zps, axis=0))
    y = run_requant(q, in_t, out_t,
                    f'multiplier = array<i64: {arr(mult)}>, rshift = array<i64: {arr(shift)}>, quant_mode = #top.requant_mode<{mode}>')
    assert y.dtype == dtype
    expect = np_requant_int(q, mode, mult, shift, -7, out_zps, lo, hi, out_axis=0)
    np.testing.assert_array_equal(y, expect)
    assert (expect == lo).any() and (expect == hi).any()


def test_requant_tflite_saturates_input_to_int32():
    # q - zp_in = 2^31 + 99 does not fit int32: it saturates before the multiply.
    q = np.array([[INT32_MAX - 100, INT32_MIN + 100, 0]], np.int32)
    in_t = qtensor(q.shape, qelem("i32", 1.0, -200))
    y = run_requant(q, in_t, "tensor<1x3xi32>",
                    'multiplier = array<i64: 1073741824>, rshift = array<i64: 0>, quant_mode = #top.requant_mode<TFLite>')
    np.testing.assert_array_equal(y, [[2**30, -2**30 + 150, 100]])
    np.testing.assert_array_equal(
        y, np_requant_int(q, "TFLite", [2**30], [0], -200, 0, INT32_MIN, INT32_MAX))


def test_requant_multiplier_shift_large_product():
    # x = q - zp_in reaches 2^32 - 1; x * (2^31 - 1) plus the rounding half
    # 2^61 overflows int64, so the product must be wider.
    q = np.array([[INT32_MAX, 0, INT32_MIN]], np.int32)
    in_t = qtensor(q.shape, qelem("i32", 1.0, INT32_MIN))
    y = run_requant(q, in_t, "tensor<1x3xi32>",
                    f"multiplier = array<i64: {INT32_MAX}>, rshift = array<i64: 62>")
    # (2^32 - 1)(2^31 - 1) / 2^62 = 1.99..., 2^31 (2^31 - 1) / 2^62 = 0.99...
    np.testing.assert_array_equal(y, [[2, 1, 0]])
    np.testing.assert_array_equal(y, np_requant_int(q, "MultiplierShift", [INT32_MAX], [62],
                                                    INT32_MIN, 0, INT32_MIN, INT32_MAX))


@pytest.mark.parametrize("storage", ["i8", U8])
@pytest.mark.parametrize("in_axis", [None, 1])
def test_requant_float(in_axis, storage, rng):
    """Float mode: dequantize with the input type, quantize with the output type."""
    shape = (2, 3, 4)
    q = rng.integers(-128, 128, shape, dtype=np.int8)
    if in_axis is None:
        in_s, in_z = 0.07, 3
        in_t = qtensor(shape, qelem("i8", in_s, in_z))
    else:
        in_s, in_z = [0.05, 0.11, 0.3], [3, -10, 0]
        in_t = qtensor(shape, qelem("i8", in_s, in_z, axis=1))
    dtype, lo, hi = STORAGE[storage]
    out_s = [0.04, 0.09, 0.15, 0.2]
    out_z = [100, 0, 255, 128] if storage == "u8" else [-100, 0, 127, -128]
    out_t = qtensor(shape, qelem(storage, out_s, out_z, axis=2))
    y = run_requant(q, in_t, out_t, 'quant_mode = #top.requant_mode<Float>')
    assert y.dtype == dtype
    s = along(in_s, in_axis, 3, np.float64)
    z = along(in_z, in_axis, 3, np.int64)
    real = (q.astype(np.int64) - z) * s
    expect = np_quantize(real, out_s, out_z, storage, axis=2)
    np.testing.assert_array_equal(y, expect)
    assert (expect == lo).any() and (expect == hi).any()


# ----------------------------------------------------------------------------
# conv_v2-style chain
# ----------------------------------------------------------------------------

def test_conv_int8_requant_dequant_chain(rng):
    """int8 input and weight with zero points -> top.Conv (int32) ->
    Requant (TFLite, per output channel) -> int8 -> Dequant -> f32."""
    sx, zx = 0.04, -3       # input
    sw, zw = 0.02, 2        # weight (per-tensor zero point)
    sy, zy = 0.1, 5         # output
    n, c, o, h = 1, 3, 4, 6
    x = rng.integers(-128, 128, (n, c, h, h), dtype=np.int8)
    w = rng.integers(-128, 128, (o, c, 3, 3), dtype=np.int8)
    b = rng.integers(-3000, 3000, o, dtype=np.int32)   # in units of sx * sw
    ws = [1.0, 0.5, 2.0, 0.75]                         # per-channel extra factor
    mult, shift = zip(*[quantize_multiplier(sx * sw * f / sy) for f in ws])

    x_t = qtensor(x.shape, qelem("i8", sx, zx))
    w_t = qtensor(w.shape, qelem("i8", sw, zw))
    out_shape = (n, o, h, h)
    acc_t = mlir_type(out_shape, np.int32)
    y_t = qtensor(out_shape, qelem("i8", sy, zy))
    f_t = mlir_type(out_shape, np.float32)
    m = Model({"x": x}, {"w": w, "b": b}, types={"x": x_t, "w": w_t})
    m.op(f"%acc = top.Conv(%x, %w, %b) {{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, "
         f"input_zp = array<i64: {zx}>, weight_zp = array<i64: {zw}>}} : ({x_t}, {w_t}, tensor<{o}xi32>) -> {acc_t}")
    m.op(f"%q = top.Requant(%acc) {{multiplier = array<i64: {arr(mult)}>, rshift = array<i64: {arr(shift)}>, "
         f"quant_mode = #top.requant_mode<TFLite>}} : ({acc_t}) -> {y_t}")
    m.op(f"%y = top.Dequant(%q) : ({y_t}) -> {f_t}")
    out = run_ok(m, [("%acc", "acc", acc_t), ("%q", "q", y_t), ("%y", "y", f_t)])

    acc = conv_nd(x, w, b, [1, 1], [1, 1, 1, 1], [1, 1], 1, zx, zw)
    np.testing.assert_array_equal(out["acc"], acc.astype(np.int32))
    q = np_requant_int(acc, "TFLite", list(mult), list(shift), 0, zy, -128, 127)
    np.testing.assert_array_equal(out["q"], q.astype(np.int8))
    np.testing.assert_array_equal(out["y"], np_dequantize(q, sy, zy))

    # Sanity: the chain approximates the real-valued conv within half an
    # output step (plus the double rounding of SRDHM then the shift).
    real = acc.astype(np.float64) * sx * sw * np.array(ws).reshape(1, o, 1, 1)
    clipped = np.clip(real, (-128 - zy) * sy, (127 - zy) * sy)
    assert np.max(np.abs(out["y"] - clipped)) <= 0.51 * sy


# ----------------------------------------------------------------------------
# Other ops on quantized tensors compute on the storage integers
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("storage", ["u8", "i8"])
def test_max_on_quantized_storage(storage, rng):
    """top.Max of two quantized tensors of one type: the larger storage
    integer, compared with the storage's signedness (u8 200 > 100)."""
    dtype, lo, hi = STORAGE[storage]
    a = rng.integers(lo, hi + 1, (3, 5)).astype(dtype)
    b = rng.integers(lo, hi + 1, (3, 5)).astype(dtype)
    a[0, 0], b[0, 0] = (200, 100) if storage == "u8" else (-100, 100)
    t = qtensor(a.shape, qelem(storage, 0.25, 3))
    m = Model({"a": a, "b": b}, types={"a": t, "b": t})
    m.op(f"%y = top.Max(%a, %b) : ({t}, {t}) -> {t}")
    y = run_ok(m, [("%y", "y", t)])["y"]
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, np.maximum(a, b))
