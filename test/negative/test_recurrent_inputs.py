"""Bad ONNX LSTM / GRU / RNN nodes and bad run-time sequence lengths: a clear
error naming the node, op and field, non-zero exit, no crash."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from negative_harness import assert_clean_failure, strata


def lstm_model(x_shape=(3, 2, 4), hidden=5, attrs=None, outputs=("y", "yh"),
               w_shape=None, with_seq_lens=False, op="LSTM"):
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    w_shape = w_shape or (1, gates * hidden, x_shape[-1])
    inits = [numpy_helper.from_array(np.zeros(w_shape, np.float32), "w"),
             numpy_helper.from_array(np.zeros((1, gates * hidden, hidden), np.float32), "r")]
    inputs = ["x", "w", "r"]
    g_in = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))]
    if with_seq_lens:
        inputs += ["", "sl"]
        g_in.append(helper.make_tensor_value_info("sl", TensorProto.INT32, [x_shape[1]]))
    a = {"hidden_size": hidden, **(attrs or {})}
    node = helper.make_node(op, inputs, list(outputs), name="rec", **a)
    g_out = [helper.make_empty_tensor_value_info(o) for o in outputs if o]
    graph = helper.make_graph([node], "g", g_in, g_out, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def import_model(tmp_path, model, *extra):
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    return strata("import", path, "-o", tmp_path / "out", "--name", "m", *extra)


@pytest.mark.parametrize("attrs,op,fragments", [
    ({"direction": "up"}, "LSTM", ["node 'rec' (LSTM", "attribute 'direction' = \"up\""]),
    ({"activations": ["Sigmoid", "Mish"]}, "GRU", ["node 'rec' (GRU", "unknown activation 'Mish'"]),
    ({"activations": ["Tanh", "Tanh"]}, "RNN", ["attribute 'activations' has 2 entries, expected 1"]),
    ({"activations": [1, 2, 3]}, "LSTM", ["attribute 'activations' has type INTS; LSTM-14 takes STRINGS"]),
    ({"clip": -1.0}, "LSTM", ["attribute 'clip' = -1", "must be positive"]),
    ({"layout": 3}, "GRU", ["attribute 'layout' = 3 must be 0 or 1"]),
    ({"activations": ["Affine"], "activation_alpha": [float("inf")]}, "RNN",
     ["non-finite alpha"]),
])
def test_bad_attributes(tmp_path, attrs, op, fragments):
    outputs = ("y", "yh")
    assert_clean_failure(import_model(tmp_path, lstm_model(attrs=attrs, op=op, outputs=outputs)),
                         *fragments)
    assert not (tmp_path / "out" / "m_origin.mlir").exists()


def test_zero_hidden_size(tmp_path):
    m = lstm_model(hidden=0, w_shape=(1, 0, 4))
    assert_clean_failure(import_model(tmp_path, m), "attribute 'hidden_size' = 0")


def test_input_rank(tmp_path):
    m = lstm_model(x_shape=(3, 4), w_shape=(1, 20, 4))
    assert_clean_failure(import_model(tmp_path, m), "operand 'input' must have rank 3")


def test_weight_shape(tmp_path):
    m = lstm_model(w_shape=(1, 20, 3))
    assert_clean_failure(import_model(tmp_path, m),
                         "operand 'weight' must have shape [1, 20, 4], got [1, 20, 3]")


def test_too_many_outputs(tmp_path):
    m = lstm_model(op="GRU", outputs=("y", "yh", "extra"))
    assert_clean_failure(import_model(tmp_path, m), "node 'rec' (GRU", "has 3 outputs", "at most 2")


def test_symbolic_sequence_length_unfixed(tmp_path):
    m = lstm_model()
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "seq"
    r = import_model(tmp_path, m)
    assert_clean_failure(r, "seq")


def test_sequence_length_out_of_range_at_run_time(tmp_path):
    m = lstm_model(with_seq_lens=True)
    r = import_model(tmp_path, m)
    assert r.returncode == 0, r.stderr
    np.savez(tmp_path / "in.npz", x=np.zeros((3, 2, 4), np.float32),
             sl=np.array([3, 4], np.int32))
    r = strata("run-ref", tmp_path / "out" / "m_origin.mlir", "--input", tmp_path / "in.npz",
               "--output", tmp_path / "o.npz")
    assert_clean_failure(r, "top.LSTM", "sequence_lens[1] = 4 is out of range [0, 3]")
    assert not (tmp_path / "o.npz").exists()
