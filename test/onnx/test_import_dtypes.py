"""ONNX import of the narrow element types (float8, float4e2m1, int4/uint4,
int2/uint2): graph inputs/outputs, packed initializers and Constant tensors,
Cast/CastLike `saturate`, QuantizeLinear/DequantizeLinear to and from these
types, BitCast — each compared with onnx.reference (which uses ml_dtypes;
ONNX Runtime lacks several of these kernels), bit-exactly for the narrow
outputs; float8e8m0 with every Cast round_mode. Also the errors for what stays unsupported."""
import io
import os
import subprocess
import tempfile
import zipfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from onnx_harness import STRATA

ml_dtypes = pytest.importorskip("ml_dtypes")


def save_npz(path, arrays):
    """np.savez keeping ml_dtypes names in the .npy headers (docs/cli.md)."""
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


def model(nodes, inputs, outputs, inits=(), opset=25):
    """inputs/outputs: (name, onnx elem type, shape); inits: TensorProtos."""
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 11
    return m


def run_strata(m, feeds):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.onnx")
        onnx.save(m, path)
        r = subprocess.run([STRATA, "import", path, "-o", d, "--name", "m"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return r.returncode, None, r.stderr
        inp, outp = os.path.join(d, "in.npz"), os.path.join(d, "out.npz")
        save_npz(inp, feeds)
        r = subprocess.run([STRATA, "run-ref", os.path.join(d, "m_origin.mlir"),
                            "--input", inp, "--output", outp], capture_output=True, text=True)
        if r.returncode != 0:
            return r.returncode, None, r.stderr
        with np.load(outp) as z:
            return 0, {n: z[n] for n in z.files}, ""


def check_exact(m, feeds):
    """Strata equals onnx.reference bit for bit (NaNs compared by bits too)."""
    code, got, err = run_strata(m, feeds)
    assert code == 0, err
    want = ReferenceEvaluator(m).run(None, feeds)
    for o, w in zip(m.graph.output, want):
        g = got[o.name]
        assert g.dtype == w.dtype and g.shape == w.shape, (o.name, g.dtype, w.dtype)
        narrow = w.dtype.type.__module__ == "ml_dtypes"
        if narrow and "int" in w.dtype.name:
            np.testing.assert_array_equal(g.astype(np.int8), w.astype(np.int8))
        elif narrow:
            np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))
        else:
            np.testing.assert_array_equal(g, w)
    return got


def expect_error(m, *needles):
    code, _, err = run_strata(m, {})
    assert code != 0
    assert "Assertion" not in err and "Stack dump" not in err, err
    for n in needles:
        assert n in err, err


F32 = TensorProto.FLOAT
X = np.array([0.3, -1.7, 500.0, -1e6, np.inf, -np.inf, np.nan, 1e-9, 3.1416, 240.5],
             dtype=np.float32)


@pytest.mark.parametrize("saturate", [0, 1])
@pytest.mark.parametrize("to", [TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ,
                                TensorProto.FLOAT8E5M2, TensorProto.FLOAT8E5M2FNUZ])
def test_cast_float8_saturate(to, saturate):
    n = helper.make_node("Cast", ["x"], ["y"], to=to, saturate=saturate)
    check_exact(model([n], [("x", F32, [10])], [("y", to, [10])]), {"x": X})


def test_bfloat16_input_and_output_keep_their_type():
    """bf16 values go in and come out as ml_dtypes bfloat16, not widened."""
    bf = TensorProto.BFLOAT16
    nodes = [helper.make_node("Cast", ["x"], ["b"], to=bf),
             helper.make_node("Add", ["b", "c"], ["y"])]
    m = model(nodes, [("x", F32, [10]), ("c", bf, [10])], [("b", bf, [10]), ("y", bf, [10])])
    x = np.nan_to_num(X, nan=0.0, posinf=0.0, neginf=0.0)
    got = check_exact(m, {"x": x, "c": np.linspace(-2, 2, 10).astype(ml_dtypes.bfloat16)})
    assert got["y"].dtype == ml_dtypes.bfloat16


@pytest.mark.parametrize("like", [TensorProto.FLOAT4E2M1, TensorProto.INT4, TensorProto.UINT2])
def test_castlike_narrow_round_trip(like):
    np_like = helper.tensor_dtype_to_np_dtype(like)
    nodes = [helper.make_node("CastLike", ["x", "l"], ["n"]),
             helper.make_node("CastLike", ["n", "x"], ["y"])]
    m = model(nodes, [("x", F32, [10]), ("l", like, [1])], [("n", like, [10]), ("y", F32, [10])])
    x = np.nan_to_num(X, nan=0.0, posinf=0.0, neginf=0.0)
    check_exact(m, {"x": x, "l": np.zeros(1, np_like)})


@pytest.mark.parametrize("tt", [TensorProto.INT4, TensorProto.UINT4, TensorProto.INT2,
                                TensorProto.UINT2, TensorProto.FLOAT4E2M1])
@pytest.mark.parametrize("raw", [True, False])
def test_packed_initializer_odd_count(tt, raw):
    # 7 values: the last packed byte is padded. raw=False stores them packed in
    # int32_data, one byte per int32.
    npdt = helper.tensor_dtype_to_np_dtype(tt)
    vals = np.array([0, 1, -1, 1, 0, -2, 1] if "int" in npdt.name and npdt.name[0] == "i"
                    else [0, 1, 3, 2, 1, 0, 3], dtype=np.float32)
    if tt == TensorProto.FLOAT4E2M1:
        vals = np.array([0, 0.5, -6, 3, -1.5, 4, -0.5], dtype=np.float32)
    arr = vals.astype(npdt)
    if raw:
        init = numpy_helper.from_array(arr, "w")
        assert init.HasField("raw_data")
    else:
        init = helper.make_tensor("w", tt, [7], arr)
        per_byte = 4 if tt in (TensorProto.INT2, TensorProto.UINT2) else 2
        assert not init.HasField("raw_data") and len(init.int32_data) == -(-7 // per_byte)
    n = helper.make_node("Cast", ["w"], ["y"], to=F32)
    check_exact(model([n], [], [("y", F32, [7])], [init]), {})


def test_float8_constant_node():
    t = helper.make_tensor("c", TensorProto.FLOAT8E5M2, [4], [1.0, -448.0, 0.0078125, 57344.0])
    nodes = [helper.make_node("Constant", [], ["c"], value=t),
             helper.make_node("Cast", ["c"], ["y"], to=TensorProto.FLOAT16)]
    check_exact(model(nodes, [], [("y", TensorProto.FLOAT16, [4])]), {})


@pytest.mark.parametrize("block", [0, 2])
@pytest.mark.parametrize("zt", [TensorProto.INT4, TensorProto.UINT4, TensorProto.INT2])
def test_quantize_dequantize_narrow_int(zt, block, rng=np.random.default_rng(7)):
    x = (rng.standard_normal((3, 4)) * 6).astype(np.float32)
    if block:
        scale = np.array([[0.5, 1.5], [2.0, 0.25], [1.0, 3.0]], np.float32)
        zp_shape = [3, 2]
        attrs = {"axis": 1, "block_size": block}
    else:
        scale = np.array([0.5, 1.5, 2.0], np.float32)
        zp_shape = [3]
        attrs = {"axis": 0}
    npdt = helper.tensor_dtype_to_np_dtype(zt)
    zp = (np.ones(zp_shape) if npdt.name != "int2" else -np.ones(zp_shape)).astype(npdt)
    inits = [numpy_helper.from_array(scale, "s"), numpy_helper.from_array(zp, "z")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], **attrs),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], **attrs)]
    m = model(nodes, [("x", F32, [3, 4])], [("q", zt, [3, 4]), ("y", F32, [3, 4])], inits)
    check_exact(m, {"x": x})


@pytest.mark.parametrize("saturate", [0, 1])
@pytest.mark.parametrize("zt", [TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E5M2FNUZ,
                                TensorProto.FLOAT4E2M1])
def test_quantize_dequantize_small_float(zt, saturate):
    npdt = helper.tensor_dtype_to_np_dtype(zt)
    inits = [numpy_helper.from_array(np.array([0.5, 4.0], np.float32), "s"),
             numpy_helper.from_array(np.zeros(2, npdt), "z")]
    qattrs = {"axis": 1} if zt == TensorProto.FLOAT4E2M1 else {"axis": 1, "saturate": saturate}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], **qattrs),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1)]
    m = model(nodes, [("x", F32, [5, 2])], [("q", zt, [5, 2]), ("y", F32, [5, 2])], inits)
    check_exact(m, {"x": X.reshape(5, 2)})


def test_quantize_output_dtype_without_zero_point():
    nodes = [helper.make_node("QuantizeLinear", ["x", "s"], ["q"],
                              output_dtype=TensorProto.UINT4)]
    inits = [numpy_helper.from_array(np.array(0.5, np.float32), "s")]
    m = model(nodes, [("x", F32, [10])], [("q", TensorProto.UINT4, [10])], inits)
    # onnx.reference casts inf/NaN to int32 (undefined); finite values only.
    check_exact(m, {"x": np.nan_to_num(X, nan=0.0, posinf=100.0, neginf=-100.0)})


@pytest.mark.parametrize("src,to", [(F32, TensorProto.INT32), (TensorProto.UINT8, TensorProto.FLOAT8E4M3FN),
                                    (TensorProto.INT4, TensorProto.FLOAT4E2M1)])
def test_bitcast(src, to):
    x = np.arange(-4, 4).astype(helper.tensor_dtype_to_np_dtype(src))
    m = model([helper.make_node("BitCast", ["x"], ["y"], to=to)], [("x", src, [8])],
              [("y", to, [8])], opset=26)
    code, got, err = run_strata(m, {"x": x})
    assert code == 0, err
    if src == TensorProto.INT4:  # the low 4 bits of each sign-extended byte
        want = (x.astype(np.int8).view(np.uint8) & 0x0F).view(ml_dtypes.float4_e2m1fn)
    else:
        want = x.view(helper.tensor_dtype_to_np_dtype(to))
    np.testing.assert_array_equal(got["y"].view(np.uint8), want.view(np.uint8))


def test_bitcast_width_mismatch_is_an_error():
    m = model([helper.make_node("BitCast", ["x"], ["y"], to=TensorProto.INT64, name="bc")],
              [("x", F32, [4])], [("y", TensorProto.INT64, [4])], opset=26)
    expect_error(m, "bc", "BitCast", "float32 (32 bits)", "INT64, 64 bits")


E8M0_X = np.array([0.0, -0.0, 1.0, 1.5, 1.75, 3.0, -3.0, 0.124, 1e-40, 1e-45, 2.0 ** 127,
                   3e38, np.finfo(np.float32).max, np.inf, -np.inf, np.nan, 6.0, 1.25],
                  dtype=np.float32)


@pytest.mark.parametrize("saturate", [0, 1])
@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
@pytest.mark.parametrize("src", [TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE])
def test_cast_to_float8e8m0(src, round_mode, saturate):
    """Every rounding mode, saturation, zeros, subnormals, Inf, NaN, the top binade:
    bit-exact against onnx.reference; then back to float."""
    e8 = TensorProto.FLOAT8E8M0
    x = E8M0_X.astype(helper.tensor_dtype_to_np_dtype(src))
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=e8, round_mode=round_mode,
                              saturate=saturate),
             helper.make_node("Cast", ["y"], ["z"], to=TensorProto.FLOAT)]
    m = model(nodes, [("x", src, [x.size])], [("y", e8, [x.size]), ("z", F32, [x.size])])
    got = check_exact(m, {"x": x})
    assert got["y"].dtype == ml_dtypes.float8_e8m0fnu


def test_float8e8m0_input_and_bad_round_mode():
    e8 = TensorProto.FLOAT8E8M0
    m = model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT16)],
              [("x", e8, [4])], [("y", TensorProto.FLOAT16, [4])])
    check_exact(m, {"x": np.array([0.5, 1.0, 2.0 ** 100, 2.0 ** -127], np.float32).astype(ml_dtypes.float8_e8m0fnu)})
    m = model([helper.make_node("Cast", ["x"], ["y"], to=e8, round_mode="zero", name="c")],
              [("x", F32, [4])], [("y", e8, [4])])
    expect_error(m, "(Cast, opset 25)", "attribute 'round_mode' = 'zero' must be 'up', 'down' "
                 "or 'nearest'")


def test_string_input_is_rejected():
    m = model([helper.make_node("Cast", ["x"], ["y"], to=F32)],
              [("x", TensorProto.STRING, [4])], [("y", F32, [4])])
    expect_error(m, "'x' has unsupported element type STRING")


def test_float8_quantize_nonzero_zero_point_is_rejected():
    inits = [numpy_helper.from_array(np.array(1.0, np.float32), "s"),
             helper.make_tensor("z", TensorProto.FLOAT8E4M3FN, [], [2.0])]
    m = model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="q8")],
              [("x", F32, [4])], [("q", TensorProto.FLOAT8E4M3FN, [4])], inits)
    expect_error(m, "q8", "float8_e4m3fn zero point must be 0, got 2")


@pytest.mark.parametrize("tt", [TensorProto.INT4, TensorProto.UINT2, TensorProto.FLOAT8E4M3FNUZ,
                                TensorProto.FLOAT4E2M1])
def test_narrow_weight_and_input_through_concat(tt):
    # Not constant-folded: the initializer goes through the weight npz and the
    # graph input through the input npz, both in the narrow type.
    npdt = helper.tensor_dtype_to_np_dtype(tt)
    w = np.array([1, 0, 1], dtype=np.float32).astype(npdt)
    x = np.array([[0, 1, 1], [1, 1, 0]], dtype=np.float32).astype(npdt)
    n = helper.make_node("Concat", ["x", "w2"], ["y"], axis=0)
    r = helper.make_node("Reshape", ["w", "shape"], ["w2"])
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array([1, 3]), "shape")]
    m = model([r, n], [("x", tt, [2, 3])], [("y", tt, [3, 3])], inits)
    check_exact(m, {"x": x})


def test_float8_dequantize_nonzero_zero_point_is_rejected():
    inits = [numpy_helper.from_array(np.array(1.0, np.float32), "s"),
             helper.make_tensor("z", TensorProto.FLOAT8E5M2, [], [-1.0])]
    m = model([helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq8")],
              [("x", TensorProto.FLOAT8E5M2, [4])], [("y", F32, [4])], inits)
    expect_error(m, "dq8", "float8_e5m2 zero point must be 0, got -1")
