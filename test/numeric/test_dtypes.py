"""The narrow element types (float8 E4M3FN/E4M3FNUZ/E5M2/E5M2FNUZ, float4
E2M1FN, int4/uint4/int2/uint2) through top.Cast and top.BitCast against
ml_dtypes, which ONNX's reference implementation uses. Every comparison is
bit-exact: both sides round the exact input value once to nearest even.

Arrays of these types are exchanged in npz files with the ml_dtypes name as
the .npy 'descr' (numpy alone would write raw bytes '<V1'); see docs/cli.md.
"""
import io
import os
import subprocess
import tempfile
import zipfile

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")

from numeric_harness import BIN, COMPILED, Model, run_ok  # noqa: E402

# MLIR element type per ml_dtypes / numpy type name.
MLIR = {"float8_e4m3fn": "f8E4M3FN", "float8_e4m3fnuz": "f8E4M3FNUZ",
        "float8_e5m2": "f8E5M2", "float8_e5m2fnuz": "f8E5M2FNUZ",
        "float4_e2m1fn": "f4E2M1FN", "int4": "i4", "uint4": "ui4", "int2": "i2",
        "uint2": "ui2", "float32": "f32", "float16": "f16", "float64": "f64",
        "int8": "i8", "uint8": "ui8", "int32": "i32", "int64": "i64", "bool": "i1"}
FLOAT8 = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"]
SMALL_FLOATS = FLOAT8 + ["float4_e2m1fn"]
NARROW_INTS = ["int4", "uint4", "int2", "uint2"]


def ttype(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + MLIR[np.dtype(dtype).name] + ">"


def save_npz(path, arrays):
    """np.savez keeping ml_dtypes names in the headers."""
    with zipfile.ZipFile(path, "w") as z:
        for name, a in arrays.items():
            a = np.asarray(a, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
            buf = io.BytesIO()
            if a.dtype.type.__module__ == "ml_dtypes":  # numpy writes "<V1" or "<f1"
                np.lib.format.write_array_header_1_0(
                    buf, {"descr": a.dtype.name, "fortran_order": False, "shape": a.shape})
                buf.write(a.tobytes())
            else:
                np.lib.format.write_array(buf, a)
            z.writestr(name + ".npy", buf.getvalue())


def run(x, body, out_dtype, extra_inputs=None):
    """Runs `body` (lines using %x, defining %y) on input x; returns y."""
    inputs = {"x": x, **(extra_inputs or {})}
    m = Model(inputs=inputs, types={k: ttype(v.shape, v.dtype) for k, v in inputs.items()})
    for line in body:
        m.op(line)
    outputs = [("%y", "y", ttype(x.shape, out_dtype))]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "m.mlir"), "w") as f:
            f.write(m.text(outputs))
        save_npz(os.path.join(d, "w.npz"), {})
        save_npz(os.path.join(d, "in.npz"), inputs)
        out = os.path.join(d, "out.npz")
        model = os.path.join(d, "m.mlir")
        if COMPILED:  # the artifact takes and gives the narrow types (format 1.1)
            model = os.path.join(d, "m.strata")
            c = subprocess.run([os.path.join(BIN, "strata"), "compile", os.path.join(d, "m.mlir"),
                                "--target", "cpu", "-o", model],
                               capture_output=True, text=True, timeout=300)
            if "has no CPU code-generation lowering yet" in c.stderr:
                pytest.xfail(c.stderr.strip().splitlines()[0])
            assert c.returncode == 0, c.stderr
        r = subprocess.run([os.path.join(BIN, "strata"), "run" if COMPILED else "run-ref", model,
                            "--input", os.path.join(d, "in.npz"), "--output", out],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        with np.load(out) as z:
            y = z["y"]
    assert y.dtype == np.dtype(out_dtype) and y.shape == x.shape
    return y


def cast(x, to, saturate=True):
    attr = "" if saturate else " {saturate = false}"
    return run(x, [f"%y = top.Cast(%x){attr} : ({ttype(x.shape, x.dtype)}) -> "
                   f"{ttype(x.shape, to)}"], to)


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def interesting_floats(dtype, rng):
    """Specials, every value of `dtype`, the midpoints between neighbours (ties),
    values just beside them, out-of-range values and random ones."""
    t = np.dtype(dtype)
    info = ml_dtypes.finfo(t)
    every = np.arange(256 if t.itemsize == 1 and "float4" not in t.name else 16,
                      dtype=np.uint8).view(t).astype(np.float64)
    every = np.unique(every[np.isfinite(every)])
    mids = (every[1:] + every[:-1]) / 2
    big = float(info.max)
    vals = np.concatenate([
        [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, big * 1.03, big * 1.1, -big * 1.1,
         big * 2, 1e30, -1e30, float(info.smallest_subnormal) / 2,
         -float(info.smallest_subnormal) / 2, float(info.smallest_subnormal) / 3],
        every, mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf),
        (every[-1] + (every[-1] - every[-2]) / 2) * np.array([1, -1]),
        rng.standard_normal(300) * big / 4,
        rng.standard_normal(300) * float(info.smallest_normal) * 4])
    return vals.astype(np.float32)


@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("to", SMALL_FLOATS)
def test_f32_to_small_float(to, saturate, rng):
    x = interesting_floats(to, rng)
    t = np.dtype(to)
    if saturate and to in FLOAT8:  # onnx.numpy_helper.saturate_cast
        info = ml_dtypes.finfo(t)
        want = np.clip(x, info.min, info.max).astype(t)
    else:
        want = x.astype(t)
    got = cast(x, t, saturate)
    np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("to", FLOAT8)
def test_f16_to_float8(to, rng):
    x = interesting_floats(to, rng).astype(np.float16)
    got = cast(x, np.dtype(to))
    info = ml_dtypes.finfo(np.dtype(to))
    want = np.clip(x.astype(np.float32), info.min, info.max).astype(np.dtype(to))
    np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("to", ["float32", "float16", "float64"])
@pytest.mark.parametrize("src", SMALL_FLOATS)
def test_small_float_to_wide(src, to):
    n = 16 if "float4" in src else 256
    x = np.arange(n, dtype=np.uint8).view(np.dtype(src))
    got = cast(x, np.dtype(to))
    want = x.astype(np.dtype(to))
    np.testing.assert_array_equal(got, want)  # NaN == NaN here
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("to", NARROW_INTS)
def test_float_to_narrow_int_wraps(to, rng):
    x = np.concatenate([[np.nan, np.inf, -np.inf, 1e10, -1e10, 2.5, -2.5, 7.9, -8.9, 16, -17],
                        rng.uniform(-40, 40, 200)]).astype(np.float32)
    got = cast(x, np.dtype(to))
    want = x.astype(np.dtype(to))
    np.testing.assert_array_equal(got.astype(np.int8), want.astype(np.int8))


@pytest.mark.parametrize("to", NARROW_INTS)
def test_int_to_narrow_int_wraps(to, rng):
    x = rng.integers(-300, 300, 200).astype(np.int32)
    got = cast(x, np.dtype(to))
    np.testing.assert_array_equal(got.astype(np.int8), x.astype(np.dtype(to)).astype(np.int8))


@pytest.mark.parametrize("to", ["float32", "int8", "int64", "float16"])
@pytest.mark.parametrize("src", NARROW_INTS)
def test_narrow_int_to_wide(src, to):
    info = ml_dtypes.iinfo(np.dtype(src))
    x = np.arange(int(info.min), int(info.max) + 1).astype(np.dtype(src))
    np.testing.assert_array_equal(cast(x, np.dtype(to)), x.astype(np.dtype(to)))


def test_narrow_int_npz_input_high_bits_ignored():
    # ml_dtypes reads only the low bits of an int4 byte: 0x0F and 0xFF are both -1.
    x = np.array([0x0F, 0xFF, 0x08, 0x07, 0xF7], dtype=np.uint8).view(ml_dtypes.int4)
    got = cast(x, np.dtype(np.int8))
    np.testing.assert_array_equal(got, [-1, -1, -8, 7, 7])


def test_small_float_to_small_float(rng):
    x = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e5m2)
    got = cast(x, np.dtype(ml_dtypes.float8_e4m3fn), saturate=False)
    want = x.astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("src,to", [("float32", "int32"), ("int32", "float32"),
                                    ("float64", "int64"), ("uint8", "int8"),
                                    ("bool", "uint8"), ("uint8", "float8_e4m3fn"),
                                    ("float8_e5m2", "int8"), ("int4", "float4_e2m1fn"),
                                    ("float4_e2m1fn", "uint4"), ("uint2", "int2"),
                                    ("uint4", "int4"), ("float4_e2m1fn", "int4")])
def test_bitcast(src, to, rng):
    n = 64
    raw = rng.integers(0, 256, n * np.dtype(src).itemsize, dtype=np.uint8)
    if src == "bool":
        x = raw % 2 == 1
    elif src in ("int4", "uint4", "float4_e2m1fn"):
        x = (raw & 0x0F).view(np.dtype(src))
    elif src in ("int2", "uint2"):
        x = (raw & 0x03).view(np.dtype(src))
    else:
        x = raw.view(np.dtype(src))
    got = run(x, [f"%y = top.BitCast(%x) : ({ttype(x.shape, x.dtype)}) -> "
                  f"{ttype(x.shape, to)}"], np.dtype(to))
    if src in ("int4", "uint4", "float4_e2m1fn", "int2", "uint2"):
        width = 2 if "2" in src and "e2m1" not in src else 4
        low = x.view(np.uint8) & ((1 << width) - 1)
        want = low.view(np.dtype(to))
        np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))
    else:
        want = x.view(np.dtype(to))
        np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("to", SMALL_FLOATS)
def test_small_float_round_trip_in_model(to, saturate, rng):
    """f32 -> small float -> f32 inside one model (f32 inputs and outputs,
    the small float an intermediate; compiled, an arena buffer of a narrow
    dtype): every value, tie and out-of-range case of interesting_floats,
    against ml_dtypes, bit exact with NaN's sign."""
    x = interesting_floats(to, rng)
    t = np.dtype(to)
    n = x.size
    m = Model(inputs={"x": x})
    attr = "" if saturate else " {saturate = false}"
    m.op(f"%s = top.Cast(%x){attr} : (tensor<{n}xf32>) -> tensor<{n}x{MLIR[to]}>")
    m.op(f"%y = top.Cast(%s) : (tensor<{n}x{MLIR[to]}>) -> tensor<{n}xf32>")
    got = run_ok(m, [("%y", "y", f"tensor<{n}xf32>")])["y"]
    if saturate and to in FLOAT8:  # onnx.numpy_helper.saturate_cast
        info = ml_dtypes.finfo(t)
        want = np.clip(x, info.min, info.max).astype(t)
    else:
        want = x.astype(t)
    want = want.astype(np.float32)
    np.testing.assert_array_equal(got, want)  # NaN == NaN here
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
