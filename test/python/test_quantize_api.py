"""strata.calibrate / quantize / compile(quantize=...) on the installed package:
a small CNN (conv, relu, conv, relu, global pool, matmul) built with
onnx.helper, quantized to int8 through the same C++ code as `strata calibrate`
and `strata compile --quantize` (lib/Pipelines/Quantize.cpp). The int8
artifact is compared with the float one (cosine >= 0.99) and bit-exactly with
the reference interpreter on the quantized model (strata.quantize + run_ref)."""

import numpy as np
import pytest

import strata
from python_bad_input_runner import check_errors

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RNG = np.random.default_rng(7)


def _cnn():
    def init(name, shape, scale):
        return numpy_helper.from_array(
            (RNG.standard_normal(shape) * scale).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("MatMul", ["f", "w3"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [init("w1", (8, 3, 3, 3), 0.3), init("b1", (8,), 0.1),
         init("w2", (16, 8, 3, 3), 0.15), init("b2", (16,), 0.1),
         init("w3", (16, 10), 0.3)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return strata.import_onnx(model)


def _samples(n):
    return [{"x": RNG.uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32)} for _ in range(n)]


def _cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.parametrize("symmetric", [False, True])
def test_int8_compile_matches_float_and_interpreter(tmp_path, symmetric):
    model = _cnn()
    calib = _samples(8)
    x = {"x": RNG.uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32)}
    f32 = strata.Session(strata.compile(model), threads=1).run(x)["y"]
    # Samples calibrated in memory, and a table written by strata.calibrate:
    # the same table, so the same results.
    art = strata.compile(model, quantize="int8", calibration=calib, symmetric=symmetric)
    table = strata.calibrate(model, calib, tmp_path / "t.txt")
    text = open(table).read()
    assert "percentile" in text and "samples" in text.lower(), text[:200]
    q = strata.Session(art, threads=1).run(x)["y"]
    if not symmetric:  # once is enough for the table-file route
        art2 = strata.compile(model, quantize="int8", calibration=table)
        np.testing.assert_array_equal(q, strata.Session(art2, threads=1).run(x)["y"])
    cos = _cosine(q, f32)
    assert cos >= 0.99, f"int8 vs f32 cosine {cos}"
    assert not np.array_equal(q, f32)  # the int8 path really ran
    # The quantized Top model in the reference interpreter: bit-exact.
    qmodel = strata.quantize(model, "int8", calibration=table, symmetric=symmetric)
    mlir = qmodel.text()
    assert "top.Requant" in mlir and "i8" in mlir
    ref = strata.run_ref(qmodel, x)["y"]
    np.testing.assert_array_equal(q, ref)


@pytest.mark.parametrize("mode", ["bf16", "f16"])
def test_float16_modes(mode):
    model = _cnn()
    x = {"x": RNG.uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32)}
    f32 = strata.Session(strata.compile(model), threads=1).run(x)["y"]
    got = strata.Session(strata.compile(model, quantize=mode), threads=1).run(x)["y"]
    assert _cosine(got, f32) >= 0.999
    ref = strata.run_ref(strata.quantize(model, mode), x)["y"]
    np.testing.assert_allclose(got, ref, rtol=1e-2, atol=1e-3)


def test_keep_float_and_calibration_methods(tmp_path):
    model = _cnn()
    calib = _samples(4)
    x = _samples(1)[0]
    for method in ("minmax", "kl"):
        strata.calibrate(model, calib, tmp_path / f"{method}.txt", method=method)
    table = str(tmp_path / "minmax.txt")
    names = [line.split()[0] for line in open(table) if line.strip() and line[0] != "#"]
    q_all = strata.quantize(model, calibration=table)
    # Keeping every tensor float leaves no integer op.
    q_none = strata.quantize(model, calibration=table, keep_float=names)
    assert "top.Requant" in q_all.text()
    assert "top.Requant" not in q_none.text()
    np.testing.assert_allclose(strata.run_ref(q_none, x)["y"],
                               strata.run_ref(model, x)["y"], rtol=1e-4, atol=1e-5)


def _bad_cases():
    return [
        (dict(quantize="int4", calibration=_samples(1)), "'int4' must be int8, bf16 or f16"),
        (dict(quantize="int8"), "needs calibration="),
        (dict(quantize="bf16", calibration="t.txt"),
         "calibration is only used by quantize int8 (not bf16)"),
        (dict(quantize="int8", calibration="/nonexistent/t.txt"), "does not exist"),
        (dict(quantize="int8", calibration=[{"y": np.zeros(3, np.float32)}]),
         "has no array 'x'"),
        (dict(quantize="int8", calibration=_samples(1), calibration_method="mse"),
         "calibration_method 'mse' must be minmax, percentile or kl"),
        (dict(quantize="int8", calibration=_samples(1), keep_float=["a,b"]),
         "keep_float name 'a,b'"),
        (dict(quantize="int8", calibration=_samples(1), optimize=False),
         "quantize needs the optimized model"),
        (dict(keep_float=["x"]), "need quantize="),
        (dict(calibration=_samples(1)), "need quantize="),
        (dict(quantize="int8", calibration=[3]), "sample 0 must be a dict"),
        (dict(quantize="int8", calibration=[{"x": np.zeros((1, 3, 16, 16), np.float64)}]),
         "sample 0 failed: input 'x' has dtype float64 but float32 is expected"),
    ]


BAD_SCRIPT = """
import test_quantize_api as T
model = T._cnn()
for kwargs, _ in T._bad_cases():
    attempt(lambda: strata.compile(model, **kwargs))
"""


def test_quantize_bad_settings():
    check_errors(BAD_SCRIPT, [message for _, message in _bad_cases()])
