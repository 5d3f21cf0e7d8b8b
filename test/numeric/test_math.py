"""Math, bitwise and signal ops of the Top dialect against numpy.

References: numpy's trigonometric functions, numpy.fmod, the numpy bitwise
functions, shifts on Python integers, numpy.linalg.det, numpy.fft, numpy's
window functions (written out for ONNX's Hamming coefficients), and direct
numpy formulas for LRN, STFT framing and the mel filter bank.

Tolerances (numpy.testing.assert_allclose):
  elementwise f32: rtol 1e-5, atol 1e-6; f64: rtol 1e-12, atol 1e-12;
    f16: rtol 1e-3, atol 1e-4 (results are rounded from f32)
  Det, DFT, STFT (f64 accumulation, then rounded): f32 rtol 1e-5, atol 1e-5
    (scaled by the input magnitude for DFT); f64 rtol 1e-10, atol 1e-10
Integer results are compared exactly.
"""
import numpy as np
import pytest

from numeric_harness import Model, mlir_type, run_ref

TOL = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-12),
       np.float16: (1e-3, 1e-4)}
SUM_TOL = {np.float32: (1e-5, 1e-5), np.float64: (1e-10, 1e-10)}


def run_single(op, operands, result_type, attrs=""):
    """Runs `%out = top.<op>(operands) {attrs}`; returns (code, out, err)."""
    m = Model(dict(operands))
    names = ", ".join(f"%{n}" if n != "none" else "%none" for n, _ in operands)
    types = ", ".join(mlir_type(a.shape, a.dtype) if a is not None else "none"
                      for _, a in operands)
    m.inputs = {n: a for n, a in operands if a is not None}
    attr = f" {{{attrs}}}" if attrs else ""
    m.op(f"%out = top.{op}({names}){attr} : ({types}) -> {result_type}")
    code, res, err = run_ref(m, [("%out", "out", result_type)])
    return code, (res or {}).get("out"), err


def run_op(op, operands, result_type, attrs=""):
    code, out, err = run_single(op, operands, result_type, attrs)
    assert code == 0, err
    return out


def close(got, expect, tol):
    assert got.shape == expect.shape, (got.shape, expect.shape)
    rtol, atol = tol
    np.testing.assert_allclose(got.astype(np.float64),
                               np.asarray(expect, np.float64),
                               rtol=rtol, atol=atol)


#===------------------------------------------------------------------------===#
# Trigonometric and hyperbolic functions
#===------------------------------------------------------------------------===#

UNARY = [
    ("Sin", np.sin, (-10, 10)), ("Cos", np.cos, (-10, 10)),
    ("Tan", np.tan, (-1.5, 1.5)), ("Asin", np.arcsin, (-1, 1)),
    ("Acos", np.arccos, (-1, 1)), ("Atan", np.arctan, (-20, 20)),
    ("Sinh", np.sinh, (-5, 5)), ("Cosh", np.cosh, (-5, 5)),
    ("Asinh", np.arcsinh, (-50, 50)), ("Acosh", np.arccosh, (1, 50)),
    ("Atanh", np.arctanh, (-0.99, 0.99)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("op,fn,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary(op, fn, domain, dtype, rng):
    x = rng.uniform(*domain, size=(3, 5)).astype(dtype)
    t = mlir_type(x.shape, dtype)
    got = run_op(op, [("x", x)], t)
    assert got.dtype == dtype
    close(got, fn(x.astype(np.float64)).astype(dtype), TOL[dtype])


def test_unary_out_of_domain():
    x = np.array([2.0, -2.0, 1.0, -1.0], np.float32)
    t = mlir_type(x.shape, np.float32)
    assert np.isnan(run_op("Asin", [("x", x)], t)[:2]).all()
    np.testing.assert_array_equal(run_op("Acosh", [("x", x)], t),
                                  np.float32([np.arccosh(2.0), np.nan, 0.0, np.nan]))
    np.testing.assert_array_equal(run_op("Atanh", [("x", x)], t)[2:],
                                  [np.inf, -np.inf])


#===------------------------------------------------------------------------===#
# Fmod
#===------------------------------------------------------------------------===#

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_fmod(dtype, rng):
    a = rng.uniform(-20, 20, size=(2, 3, 4)).astype(dtype)
    b = rng.uniform(-6, 6, size=(3, 1)).astype(dtype)
    b[0, 0] = 0  # NaN
    got = run_op("Fmod", [("a", a), ("b", b)], mlir_type((2, 3, 4), dtype))
    with np.errstate(invalid="ignore"):
        expect = np.fmod(a, b)  # exact in every float type
    np.testing.assert_array_equal(got, expect)


#===------------------------------------------------------------------------===#
# Bitwise ops
#===------------------------------------------------------------------------===#

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64]


def random_ints(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype,
                        endpoint=True)


@pytest.mark.parametrize("dtype", INTS)
def test_bitwise(dtype, rng):
    a = random_ints(rng, dtype, (2, 3, 4))
    b = random_ints(rng, dtype, (3, 1))
    t = mlir_type((2, 3, 4), dtype)
    for op, fn in [("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or),
                   ("BitwiseXor", np.bitwise_xor)]:
        got = run_op(op, [("a", a), ("b", b)], t)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, fn(a, b), err_msg=op)
    got = run_op("BitwiseNot", [("a", a)], t)
    np.testing.assert_array_equal(got, np.invert(a))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
def test_bitshift(dtype, direction, rng):
    bits = np.iinfo(dtype).bits
    x = random_ints(rng, dtype, (4, 6))
    s = np.arange(0, bits + 6, (bits + 6) // 6 or 1)[:6].astype(dtype)
    s[-1] = bits  # a shift by the full width gives 0
    got = run_op("BitShift", [("x", x), ("s", s)], mlir_type((4, 6), dtype),
                 f'direction = #top.shift_direction<{direction}>')
    mask = (1 << bits) - 1
    expect = np.array(
        [[(int(v) << int(k) if direction == "LEFT" else int(v) >> int(k)) & mask
          if int(k) < bits else 0 for v, k in zip(row, s)] for row in x],
        dtype=dtype)
    np.testing.assert_array_equal(got, expect)


#===------------------------------------------------------------------------===#
# Det and LRN
#===------------------------------------------------------------------------===#

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_det(dtype, rng):
    m = rng.standard_normal((2, 3, 4, 4)).astype(dtype)
    m[0, 1, 3] = m[0, 1, 0] * 2  # singular
    got = run_op("Det", [("m", m)], mlir_type((2, 3), dtype))
    close(got, np.linalg.det(m.astype(np.float64)), SUM_TOL[dtype])
    assert abs(got[0, 1]) < 1e-5


def test_det_empty_matrix():
    m = np.zeros((3, 0, 0), np.float32)
    np.testing.assert_array_equal(run_op("Det", [("m", m)], "tensor<3xf32>"),
                                  np.ones(3, np.float32))


@pytest.mark.parametrize("size", [1, 3, 4, 9])
def test_lrn(size, rng):
    x = rng.standard_normal((2, 5, 3, 2)).astype(np.float32)
    alpha, beta, bias = 2e-3, 0.6, 1.5
    got = run_op("LRN", [("x", x)], mlir_type(x.shape, np.float32),
                 f"size = {size} : i64, alpha = {alpha} : f64, "
                 f"beta = {beta} : f64, bias = {bias} : f64")
    sq = np.zeros_like(x, dtype=np.float64)
    lo_off, hi_off = (size - 1) // 2, size - 1 - (size - 1) // 2
    for c in range(x.shape[1]):
        lo, hi = max(0, c - lo_off), min(x.shape[1] - 1, c + hi_off)
        sq[:, c] = (x[:, lo:hi + 1].astype(np.float64) ** 2).sum(axis=1)
    close(got, x / (bias + alpha / size * sq) ** beta, TOL[np.float32])


#===------------------------------------------------------------------------===#
# Windows and the mel filter bank
#===------------------------------------------------------------------------===#

def window_reference(kind, size, periodic):
    n = np.arange(size, dtype=np.float64)
    period = size if periodic else size - 1
    if period == 0:
        return np.ones(size)
    phase = 2 * np.pi * n / period
    if kind == "hann":
        return 0.5 - 0.5 * np.cos(phase)
    if kind == "hamming":
        return 25 / 46 - 21 / 46 * np.cos(phase)
    return 0.42 - 0.5 * np.cos(phase) + 0.08 * np.cos(2 * phase)


@pytest.mark.parametrize("kind", ["hann", "hamming", "blackman"])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("size", [1, 7, 10])
def test_window(kind, periodic, size):
    got = run_op("Window", [], f"tensor<{size}xf32>",
                 f'kind = #top.window_kind<{kind}>, size = {size} : i64, '
                 f"periodic = {str(periodic).lower()}")
    close(got, window_reference(kind, size, periodic), TOL[np.float32])


def test_window_matches_numpy():
    # numpy's symmetric Hann and Blackman windows are the ONNX ones.
    got = run_op("Window", [], "tensor<9xf64>",
                 'kind = #top.window_kind<hann>, size = 9 : i64, periodic = false')
    close(got, np.hanning(9), TOL[np.float64])
    # A periodic window is the symmetric one of size + 1 without its end.
    got = run_op("Window", [], "tensor<9xf64>",
                 'kind = #top.window_kind<blackman>, size = 9 : i64, periodic = true')
    close(got, np.blackman(10)[:9], (1e-12, 1e-12))


def mel_reference(mels, length, rate, lo, hi):
    to_mel = lambda hz: 2595 * np.log10(1 + hz / 700)
    pts = np.arange(mels + 2) * (to_mel(hi) - to_mel(lo)) / (mels + 2) \
        + to_mel(lo)
    hz = 700 * (10 ** (pts / 2595) - 1)
    bins = np.floor((length + 1) * hz / rate).astype(int)
    out = np.zeros((length // 2 + 1, mels))
    for i in range(mels):
        a, c, b = bins[i], bins[i + 1], bins[i + 2]
        if c == a:
            out[c, i] = 1
        else:
            out[a:c + 1, i] = (np.arange(a, c + 1) - a) / (c - a)
        if b > c:
            out[c:b, i] = (b - np.arange(c, b)) / (b - c)
    return out


@pytest.mark.parametrize("mels,length,rate,lo,hi",
                         [(8, 16, 8192, 0, 4096), (10, 64, 16000, 100, 7000),
                          (4, 256, 22050, 300.5, 3000)])
def test_mel_weight_matrix(mels, length, rate, lo, hi):
    shape = (length // 2 + 1, mels)
    got = run_op("MelWeightMatrix", [("lo", np.float32(lo).reshape(())),
                                     ("hi", np.float32(hi).reshape(1))],
                 mlir_type(shape, np.float32),
                 f"num_mel_bins = {mels} : i64, dft_length = {length} : i64, "
                 f"sample_rate = {rate} : i64")
    close(got, mel_reference(mels, length, rate, np.float32(lo),
                             np.float32(hi)), TOL[np.float32])


@pytest.mark.interpreter_only  # compiled code clamps the corner bins instead
@pytest.mark.parametrize("lo,hi,message", [
    (500, 100, "operands 'lower_edge_hertz' = 5.000000e+02 and "
               "'upper_edge_hertz' = 1.000000e+02 must satisfy"),
    (0, 8000, "operand 'upper_edge_hertz' = 8.000000e+03 maps to spectrum bin"),
])
def test_mel_weight_matrix_bad_edges(lo, hi, message):
    code, _, err = run_single(
        "MelWeightMatrix", [("lo", np.float32(lo).reshape(())),
                            ("hi", np.float32(hi).reshape(()))],
        "tensor<9x4xf32>",
        "num_mel_bins = 4 : i64, dft_length = 16 : i64, sample_rate = 8000 : i64")
    assert code != 0
    assert message in err, err


#===------------------------------------------------------------------------===#
# DFT and STFT
#===------------------------------------------------------------------------===#

def as_complex(x):
    return x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0]


def as_pairs(z):
    return np.stack([z.real, z.imag], axis=-1)


def dft_attrs(axis, length, inverse=False, onesided=False):
    return (f"axis = {axis} : i64, dft_length = {length} : i64, "
            f"inverse = {str(inverse).lower()}, "
            f"onesided = {str(onesided).lower()}")


def fft_tol(dtype, x):
    rtol, atol = SUM_TOL[dtype]
    return rtol, atol * max(1.0, float(np.abs(x).max()) * x.shape[1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("length", [8, 12, 5, 16])
@pytest.mark.parametrize("channels", [1, 2])
def test_dft_forward(dtype, length, channels, rng):
    x = rng.standard_normal((2, 10, 3, channels)).astype(dtype)
    z = as_complex(x.astype(np.float64))
    for axis in (1, 2):
        for onesided in (False, True):
            expect = np.fft.fft(z, n=length, axis=axis)
            if onesided:
                expect = np.take(expect, np.arange(length // 2 + 1), axis=axis)
            shape = list(x.shape)
            shape[axis], shape[-1] = expect.shape[axis], 2
            got = run_op("DFT", [("x", x)], mlir_type(shape, dtype),
                         dft_attrs(axis, length, onesided=onesided))
            close(got, as_pairs(expect), fft_tol(dtype, x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("length", [8, 9])
def test_dft_inverse(dtype, length, rng):
    x = rng.standard_normal((3, 7, 2)).astype(dtype)
    z = as_complex(x.astype(np.float64))
    got = run_op("DFT", [("x", x)], mlir_type((3, length, 2), dtype),
                 dft_attrs(1, length, inverse=True))
    close(got, as_pairs(np.fft.ifft(z, n=length, axis=1)), fft_tol(dtype, x))
    # Inverse real FFT of a onesided spectrum.
    got = run_op("DFT", [("x", x)], mlir_type((3, length, 1), dtype),
                 dft_attrs(1, length, inverse=True, onesided=True))
    close(got, np.fft.irfft(z, n=length, axis=1)[..., None], fft_tol(dtype, x))


def test_dft_batch_axis(rng):
    x = rng.standard_normal((6, 4, 1)).astype(np.float64)
    got = run_op("DFT", [("x", x)], "tensor<6x4x2xf64>", dft_attrs(0, 6))
    close(got, as_pairs(np.fft.fft(x[..., 0], axis=0)), SUM_TOL[np.float64])


def stft_reference(x, step, length, window, onesided):
    z = as_complex(x.astype(np.float64))
    frames = (z.shape[1] - length) // step + 1
    out = np.stack([np.fft.fft(z[:, f * step:f * step + length] * window,
                               axis=1) for f in range(frames)], axis=1)
    if onesided:
        out = out[:, :, :length // 2 + 1]
    return as_pairs(out)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("channels,onesided", [(1, True), (1, False),
                                               (2, False)])
@pytest.mark.parametrize("with_window", [True, False])
def test_stft(dtype, channels, onesided, with_window, rng):
    x = rng.standard_normal((2, 50, channels)).astype(dtype)
    step, length = 7, 12
    w = np.hanning(length).astype(dtype) if with_window else None
    expect = stft_reference(x, step, length,
                            w.astype(np.float64) if with_window else 1.0,
                            onesided)
    got = run_op("STFT", [("x", x), ("w" if with_window else "none", w)],
                 mlir_type(expect.shape, dtype),
                 f"frame_step = {step} : i64, frame_length = {length} : i64, "
                 f"onesided = {str(onesided).lower()}")
    close(got, expect, fft_tol(dtype, x))


#===------------------------------------------------------------------------===#
# BitCast (through the numeric harness, so it also runs compiled)
#===------------------------------------------------------------------------===#

@pytest.mark.parametrize("src,to", [("float32", "int32"), ("int32", "float32"),
                                    ("float64", "int64"), ("float16", "int16"),
                                    ("uint8", "int8"), ("int8", "uint8"),
                                    ("bool", "uint8"), ("uint8", "bool"),
                                    ("int16", "float16")])
def test_bitcast_matches_numpy_view(src, to, rng):
    """numpy's reinterpretation (`view`); a bool result is the byte != 0."""
    raw = rng.integers(0, 256, (3, 8 * np.dtype(src).itemsize), dtype=np.uint8)
    x = (raw % 2 == 1) if src == "bool" else raw.view(np.dtype(src))
    if src == "uint8" and to == "bool":
        x[0, :4] = 0  # some false bytes
    got = run_op("BitCast", [("x", x)], mlir_type(x.shape, np.dtype(to)))
    want = (x != 0) if to == "bool" else x.view(np.dtype(to))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
