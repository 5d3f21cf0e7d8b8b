"""`strata quantize --search-sensitive --search-activations`: the search's
candidates are the fused activations made int8 tables (`<name>_preact`);
the ones it keeps are float while every conv stays int8. The output cosine
it reaches is recomputed from `strata run-ref` outputs (numpy) against the
f32 model."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from quant_harness import ok, strata  # noqa: E402


def make_model(path):
    """conv3x3 -> HardSwish -> conv1x1 -> HardSwish -> conv1x1 (no act)."""
    rng = np.random.default_rng(7)
    arrays = {
        "w1": rng.standard_normal((8, 3, 3, 3)) * 0.5,
        "b1": rng.standard_normal(8) * 0.3,
        "w2": rng.standard_normal((8, 8, 1, 1)) * 0.6,
        "b2": rng.standard_normal(8) * 0.3,
        "w3": rng.standard_normal((4, 8, 1, 1)) * 0.5,
        "b3": rng.standard_normal(4) * 0.1,
    }
    inits = [numpy_helper.from_array(a.astype(np.float32), n) for n, a in arrays.items()]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("HardSwish", ["c1"], ["h1"]),
        helper.make_node("Conv", ["h1", "w2", "b2"], ["c2"]),
        helper.make_node("HardSwish", ["c2"], ["h2"]),
        helper.make_node("Conv", ["h2", "w3", "b3"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "acts", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]),
              str(path))


def test_search_activations(tmp_path):
    make_model(tmp_path / "acts.onnx")
    (tmp_path / "cal").mkdir()
    rng = np.random.default_rng(3)
    for i in range(3):
        np.savez(tmp_path / "cal" / f"s{i}.npz",
                 x=(rng.standard_normal((1, 3, 6, 6)) * 2).astype(np.float32))
    ok(strata("calibrate", tmp_path / "acts.onnx", "--data", tmp_path / "cal",
              "--method", "minmax", "-o", tmp_path / "t.txt"))
    ok(strata("compile", tmp_path / "acts.onnx", "-o", tmp_path / "f", "--name", "m"))

    def min_cosine(model_dir):
        worst = 1.0
        for i in range(3):
            outs = []
            for m in (tmp_path / "f", model_dir):
                ok(strata("run-ref", m / "m.mlir", "--input", tmp_path / "cal" / f"s{i}.npz",
                          "--output", tmp_path / "o.npz"))
                outs.append(np.load(tmp_path / "o.npz")["y"].ravel().astype(np.float64))
            a, b = outs
            worst = min(worst, a @ b / np.linalg.norm(a) / np.linalg.norm(b))
        return worst

    def count(model_dir, what):
        return (model_dir / "m.mlir").read_text().count(what)

    ok(strata("quantize", tmp_path / "acts.onnx", "--quantize", "int8", "--calibration",
              tmp_path / "t.txt", "-o", tmp_path / "all", "--name", "m"))
    ok(strata("quantize", tmp_path / "acts.onnx", "--quantize", "int8", "--calibration",
              tmp_path / "t.txt", "--float-activations", "-o", tmp_path / "fa", "--name", "m"))
    full, float_acts = min_cosine(tmp_path / "all"), min_cosine(tmp_path / "fa")
    # Two tables (their Requants to the pre-activation), three int8 convs.
    assert count(tmp_path / "all", "_preact") >= 2
    convs = count(tmp_path / "all", "top.Conv")
    assert convs == 3
    assert float_acts > full, (full, float_acts)
    # A target between the two: at least one table kept float, every conv int8.
    target = (full + float_acts) / 2
    r = ok(strata("quantize", tmp_path / "acts.onnx", "--quantize", "int8", "--calibration",
                  tmp_path / "t.txt", "--search-sensitive", "--search-activations",
                  "--data", tmp_path / "cal", "--target-cosine", target,
                  "-o", tmp_path / "s", "--name", "m"))
    assert "activation table sensitivity" in r.stdout
    kept = [ln for ln in (tmp_path / "s" / "m_keep_float.txt").read_text().split("\n")
            if ln and not ln.startswith("#")]
    assert 1 <= len(kept) <= 2 and all(k.endswith("_preact") for k in kept), kept
    assert f"kept in float: {len(kept)} of 2 activation tables" in r.stdout
    assert min_cosine(tmp_path / "s") >= target
    # Every conv still int8 (an int8 input with its zero point, an int32
    # accumulator named "<layer>_acc").
    text = (tmp_path / "s" / "m.mlir").read_text()
    assert text.count("top.Conv") == convs and text.count("input_zp") == convs
    assert text.count("_acc\"") == convs
