"""Pre-quantized ONNX models (docs/quantization.md, "Imported QDQ models"):
what ONNX Runtime's quantization tool writes, made here at test time from
a small seeded CNN (test_quantize.make_model) with
onnxruntime.quantization: quantize_static in QDQ format (per tensor and per
channel, a seeded CalibrationDataReader) and quantize_dynamic.

The QDQ Conv / Gemm become integer ops (top-fold-qdq, in top-optimize):
the optimized model holds top.Requant and no float Conv or MatMul. Its
results, through the interpreter and the compiled CPU artifact, must match
ONNX Runtime within 1 LSB of the output's quantization step (measured: 0).
The compiled artifact must equal the interpreter exactly."""
import os
import subprocess
import sys

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
quantization = pytest.importorskip("onnxruntime.quantization")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_quantize import make_model, ok, strata  # noqa: E402


class Reader(quantization.CalibrationDataReader):
    def __init__(self, seed=1, n=4):
        rng = np.random.default_rng(seed)
        self.data = [{"x": (rng.standard_normal((1, 3, 5, 5)) + 0.3).astype(np.float32)}
                     for _ in range(n)]
        self.i = 0

    def get_next(self):
        if self.i >= len(self.data):
            return None
        self.i += 1
        return self.data[self.i - 1]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("qdq")
    make_model(d / "small.onnx")
    out = {}
    for per_channel in (False, True):
        name = "static_pc" if per_channel else "static"
        quantization.quantize_static(
            str(d / "small.onnx"), str(d / f"{name}.onnx"), Reader(),
            quant_format=quantization.QuantFormat.QDQ, per_channel=per_channel,
            activation_type=quantization.QuantType.QUInt8,
            weight_type=quantization.QuantType.QInt8)
        out[name] = d / f"{name}.onnx"
    quantization.quantize_dynamic(str(d / "small.onnx"), str(d / "dynamic.onnx"),
                                  weight_type=quantization.QuantType.QInt8)
    out["dynamic"] = d / "dynamic.onnx"
    return d, out


def output_scale(path):
    """The scale of the last DequantizeLinear (the output's step)."""
    m = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    last = [n for n in m.graph.node if n.op_type == "DequantizeLinear"][-1]
    return float(inits[last.input[1]])


@pytest.mark.parametrize("name", ["static", "static_pc", "dynamic"])
def test_matches_onnxruntime(models, tmp_path, name):
    d, paths = models
    model = paths[name]
    ok(strata("compile", model, "-o", tmp_path / "top", "--name", "m"))
    text = (tmp_path / "top" / "m.mlir").read_text()
    if name != "dynamic":
        assert text.count("top.Requant") == 3
        assert "xf32>) -> tensor<1x4x5x5xf32>" not in text  # no float conv
        lsb = output_scale(model)
    else:
        lsb = 0.0  # runtime scales: integer Conv/MatMul, f32 rescaling
    ok(strata("compile", model, "--target", "cpu", "-o", tmp_path / "m.strata"))
    sess = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(11)
    for i in range(4):
        x = (rng.standard_normal((1, 3, 5, 5)) + 0.3).astype(np.float32)
        np.savez(tmp_path / "in.npz", x=x)
        ok(strata("run-ref", tmp_path / "top" / "m.mlir", "--input", tmp_path / "in.npz",
                  "--output", tmp_path / "ref.npz"))
        ok(strata("run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
                  "--output", tmp_path / "cpu.npz"))
        got = np.load(tmp_path / "ref.npz")["y"]
        want = sess.run(None, {"x": x})[0]
        np.testing.assert_allclose(got, want, rtol=0, atol=lsb * 1.0001 + 1e-6)
        np.testing.assert_array_equal(np.load(tmp_path / "cpu.npz")["y"], got)


def test_quantize_qdq_needs_no_table(models, tmp_path):
    _, paths = models
    ok(strata("quantize", paths["static_pc"], "--quantize", "int8", "-o", tmp_path / "q",
              "--name", "m"))
    assert (tmp_path / "q" / "m.mlir").read_text().count("top.Requant") == 3


def test_zero_scale_is_an_error(tmp_path):
    w = numpy_helper.from_array(np.ones((2, 2), np.int8), "w")
    s = numpy_helper.from_array(np.array(0.0, np.float32), "s")
    node = helper.make_node("DequantizeLinear", ["w", "s"], ["y"], name="dq")
    graph = helper.make_graph([node], "g", [],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])],
                              [w, s])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, str(tmp_path / "zero.onnx"))
    r = strata("compile", tmp_path / "zero.onnx", "-o", tmp_path / "out")
    assert r.returncode == 1
    assert "node 'dq' (DequantizeLinear" in r.stderr
    assert "scale 's' holds 0" in r.stderr and "must be positive and finite" in r.stderr
