"""ONNX import of math, bitwise and signal ops (ConvertMath.cpp, float Mod):
Strata's reference run against ONNX Runtime (BatchNormalization training
mode against onnx.reference, which ONNX Runtime's inference build lacks)."""
import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from onnx_harness import check_against_ort, import_error, make_model, run_strata

RNG = np.random.default_rng(7)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def node_model(op, inputs, opset=18, inits=None, outputs=("y",), **attrs):
    names = list(inputs) + list(inits or {})
    node = helper.make_node(op, names, list(outputs), **attrs)
    return make_model([node], inputs, list(outputs), inits=inits, opset=opset)


TRIG = [("Sin", 3), ("Cos", 3), ("Tan", 1.2), ("Asin", 0.9), ("Acos", 0.9),
        ("Atan", 5), ("Sinh", 3), ("Cosh", 3), ("Asinh", 10), ("Atanh", 0.9)]


@pytest.mark.parametrize("op,scale", TRIG, ids=[t[0] for t in TRIG])
def test_trig(op, scale):
    x = np.clip(randn(3, 4) * scale, -scale, scale).astype(np.float32)
    check_against_ort(node_model(op, {"x": x}), {"x": x})


def test_acosh():
    x = np.abs(randn(3, 4)) * 5 + 1
    check_against_ort(node_model("Acosh", {"x": x}), {"x": x})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mod_fmod_float(dtype):
    a = (randn(2, 3, 4) * 10).astype(dtype)
    b = (randn(4) * 3).astype(dtype)
    check_against_ort(node_model("Mod", {"a": a, "b": b}, fmod=1),
                      {"a": a, "b": b}, rtol=0, atol=0)


def test_mod_float_without_fmod_is_rejected():
    a = randn(4)
    err = import_error(node_model("Mod", {"a": a, "b": a}))
    assert "attribute 'fmod' = 0 is invalid" in err


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8,
                                   np.uint16, np.uint64])
def test_bitwise(dtype):
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, (2, 3, 4), dtype=dtype)
    b = RNG.integers(info.min, info.max, (3, 4), dtype=dtype)
    for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
        check_against_ort(node_model(op, {"a": a, "b": b}), {"a": a, "b": b})
    check_against_ort(node_model("BitwiseNot", {"a": a}), {"a": a})


@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.uint64])
@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
def test_bitshift(dtype, direction):
    bits = np.iinfo(dtype).bits
    x = RNG.integers(0, np.iinfo(dtype).max, (3, 5), dtype=dtype)
    s = np.array([0, 1, 3, bits // 2, bits - 1], dtype=dtype)
    check_against_ort(node_model("BitShift", {"x": x, "s": s},
                                 direction=direction), {"x": x, "s": s})


def test_bitshift_bad_direction():
    x = np.ones(3, np.uint8)
    err = import_error(node_model("BitShift", {"x": x, "s": x},
                                  direction="UP"))
    assert "attribute 'direction' = \"UP\"" in err


@pytest.mark.parametrize("lambd,bias", [(0.5, 0.0), (1.0, 0.3)])
def test_shrink(lambd, bias):
    x = randn(4, 5) * 2
    check_against_ort(node_model("Shrink", {"x": x}, lambd=lambd, bias=bias),
                      {"x": x})


@pytest.mark.parametrize("dtype", [np.int32, np.uint8])
def test_shrink_integer(dtype):
    x = np.arange(-6, 6).astype(dtype).reshape(3, 4)
    check_against_ort(node_model("Shrink", {"x": x}, lambd=1.5, bias=1.0),
                      {"x": x})


def test_shrink_integer_fractional_bias_is_rejected():
    x = np.arange(4).astype(np.int32)
    err = import_error(node_model("Shrink", {"x": x}, bias=0.5))
    assert "attribute 'bias' = 5.000000e-01 must be integral" in err


def test_det():
    x = randn(3, 4, 4)
    check_against_ort(node_model("Det", {"x": x}), {"x": x})


def test_lrn():
    x = randn(2, 7, 3, 3)
    check_against_ort(node_model("LRN", {"x": x}, size=3, alpha=1e-3,
                                 beta=0.8, bias=2.0), {"x": x})


@pytest.mark.parametrize("p,attrs", [
    (2, dict(kernel_shape=[3, 3])),
    (3, dict(kernel_shape=[2, 2], strides=[2, 1], pads=[1, 0, 0, 1])),
    (1, dict(kernel_shape=[3, 2], auto_pad="SAME_UPPER")),
])
def test_lppool(p, attrs):
    x = randn(1, 2, 6, 5)
    check_against_ort(node_model("LpPool", {"x": x}, p=p, **attrs), {"x": x})


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow",
                                "BlackmanWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
def test_windows(op, periodic):
    size = np.array(10, np.int64)
    model = node_model(op, {}, opset=17, inits={"size": size},
                       periodic=periodic)
    check_against_ort(model, {})


def test_window_output_datatype():
    model = node_model("HannWindow", {}, opset=17,
                       inits={"size": np.array(8, np.int32)},
                       output_datatype=TensorProto.DOUBLE)
    check_against_ort(model, {}, rtol=1e-12, atol=1e-12)


def test_window_needs_constant_size():
    model = node_model("HannWindow", {"size": np.array(8, np.int64)},
                       opset=17)
    assert "must be a constant integer scalar" in import_error(model)


def test_mel_weight_matrix():
    inits = {"n": np.array(8, np.int64), "len": np.array(64, np.int64),
             "rate": np.array(16000, np.int64),
             "lo": np.array(100, np.float32), "hi": np.array(6000, np.float32)}
    check_against_ort(node_model("MelWeightMatrix", {}, opset=17,
                                 inits=inits), {})


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("onesided,channels", [(0, 1), (0, 2), (1, 1)])
def test_dft(opset, onesided, channels):
    x = randn(2, 12, 3, channels)
    inits = {"len": np.array(12, np.int64)}
    attrs = dict(onesided=onesided)
    if opset >= 20:
        inits["axis"] = np.array(1, np.int64)
    else:
        attrs["axis"] = 1
    check_against_ort(node_model("DFT", {"x": x}, opset=opset, inits=inits,
                                 **attrs), {"x": x}, rtol=1e-4, atol=1e-4)


def test_dft_inverse_axis2():
    x = randn(2, 3, 8, 2)
    model = node_model("DFT", {"x": x}, opset=20,
                       inits={"len": np.array(8, np.int64),
                              "axis": np.array(2, np.int64)}, inverse=1)
    check_against_ort(model, {"x": x}, rtol=1e-4, atol=1e-5)


def test_dft_onesided_complex_is_rejected():
    x = randn(2, 8, 2)
    model = node_model("DFT", {"x": x}, opset=17, onesided=1)
    assert "onesided DFT needs a real input" in import_error(model)


def test_dft_axis_out_of_range():
    x = randn(2, 8, 1)
    model = node_model("DFT", {"x": x}, opset=17, axis=2)
    assert "axis = 2 is out of range for rank 3" in import_error(model)


@pytest.mark.parametrize("with_window", [False, True])
def test_stft(with_window):
    x = randn(2, 64, 1)
    inits = {"step": np.array(8, np.int64), "len": np.array(16, np.int64)}
    if with_window:
        inits["window"] = np.hanning(16).astype(np.float32)
    node_inputs = ["x", "step", "window" if with_window else "", "len"]
    node = helper.make_node("STFT", node_inputs, ["y"], onesided=1)
    model = make_model([node], {"x": x}, ["y"], inits=inits, opset=17)
    check_against_ort(model, {"x": x}, rtol=1e-4, atol=1e-4)


def test_batchnorm_training_mode():
    x = randn(3, 4, 2, 5)
    inits = {"scale": randn(4), "bias": randn(4), "mean": randn(4),
             "var": np.abs(randn(4)) + 0.5}
    model = node_model("BatchNormalization", {"x": x}, opset=15, inits=inits,
                       outputs=("y", "running_mean", "running_var"),
                       training_mode=1, momentum=0.8, epsilon=1e-3)
    code, got, err = run_strata(model, {"x": x})
    assert code == 0, err
    want = ReferenceEvaluator(model).run(None, {"x": x})
    for name, w in zip(("y", "running_mean", "running_var"), want):
        assert got[name].shape == w.shape, name
        np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-5,
                                   err_msg=name)
