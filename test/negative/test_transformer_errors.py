"""Bad ONNX Attention, RMSNormalization, RotaryEmbedding, loss and Dropout
nodes: `strata import` (or `run-ref` for data-dependent errors) exits
non-zero without a crash, naming the node or op, the field and the value."""
import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from negative_harness import assert_clean_failure, strata


def save_model(tmp_path, op, inputs, attrs=None, inits=None, opset=23, outs=("y",),
               names=None):
    inits = inits or {}
    g_in = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in inputs.items()]
    node = helper.make_node(op, names or list(inputs) + list(inits), list(outs),
                            name="bad_node", **(attrs or {}))
    graph = helper.make_graph([node], "g", g_in,
                              [helper.make_empty_tensor_value_info(o) for o in outs],
                              [numpy_helper.from_array(a, n) for n, a in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    return path


def f32(*shape):
    return np.zeros(shape, np.float32)


CASES = [
    ("Attention", {"q": f32(1, 3, 8), "k": f32(1, 3, 8), "v": f32(1, 3, 8)},
     {"q_num_heads": 3, "kv_num_heads": 1}, {}, 23,
     ["'top.Attention' op", "query hidden size 8 is not divisible by attribute 'q_num_heads' = 3"]),
    ("Attention", {"q": f32(1, 1, 2, 4), "k": f32(1, 1, 2, 4), "v": f32(1, 1, 2, 4)},
     {"qk_matmul_output_mode": 5}, {}, 23,
     ["attribute 'qk_matmul_output_mode' = 5 must be in [0, 3]"]),
    ("Attention", {"q": f32(1, 1, 2, 4), "k": f32(1, 1, 2, 4), "v": f32(1, 1, 2, 4)},
     {"softmax_precision": 6}, {}, 23,
     ["node 'bad_node' (Attention, opset 23)", "attribute 'softmax_precision' = 6"]),
    ("Attention", {"q": f32(1, 1, 2, 4), "k": f32(1, 1, 2, 4), "v": f32(1, 1, 2, 4),
                   "m": np.zeros((2, 2), np.int32)}, {}, {}, 23,
     ["attn_mask must have a float or i1 element type, got 'i32'"]),
    ("RMSNormalization", {"x": f32(2, 3)}, {"axis": 2}, {"s": f32(3)}, 23,
     ["'top.RMSNorm' op attribute 'axis' = 2 is out of range"]),
    ("RMSNormalization", {"x": f32(2, 3)}, {"stash_type": 7}, {"s": f32(3)}, 23,
     ["node 'bad_node' (RMSNormalization, opset 23)", "attribute 'stash_type' = 7"]),
    ("RotaryEmbedding", {"x": f32(1, 2, 3, 4), "c": f32(1, 3, 2), "s": f32(1, 3, 2)},
     {"rotary_embedding_dim": 3}, {}, 23,
     ["attribute 'rotary_embedding_dim' = 3 must be 0 or even"]),
    ("NegativeLogLikelihoodLoss", {"x": f32(2, 3), "t": np.zeros(2, np.int64)},
     {"reduction": "avg"}, {}, 13,
     ["node 'bad_node' (NegativeLogLikelihoodLoss, opset 13)", "attribute 'reduction' = 'avg'"]),
    ("NegativeLogLikelihoodLoss", {"x": f32(2, 3), "t": np.zeros(2, np.int64)}, {},
     {"w": f32(4)}, 13, ["weight must have shape [3], got [4]"]),
    ("NegativeLogLikelihoodLoss", {"x": f32(2, 3), "t": np.zeros(2, np.float32)}, {}, {}, 13,
     ["target must be an integer tensor, got 'f32'"]),
    ("SoftmaxCrossEntropyLoss", {"x": f32(3), "t": np.zeros(3, np.int64)}, {}, {}, 13,
     ["node 'bad_node' (SoftmaxCrossEntropyLoss, opset 13)", "rank >= 2"]),
    ("Dropout", {"x": f32(2, 3)}, {},
     {"r": np.array(0.5, np.float32), "t": np.array(True)}, 22,
     ["node 'bad_node' (Dropout, opset 22)", "training mode with ratio 5.000000e-01"]),
    ("Dropout", {"x": f32(2, 3), "t": np.array(True)}, {}, {}, 22,
     ["node 'bad_node' (Dropout, opset 22)", "'training_mode' input must be a constant"]),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_bad_node_is_rejected(tmp_path, case):
    op, inputs, attrs, inits, opset, fragments = case
    names = None
    if op == "Dropout" and "t" in inputs:
        names = ["x", "", "t"]
    path = save_model(tmp_path, op, inputs, attrs, inits, opset, names=names)
    r = strata("import", path, "-o", tmp_path / "out", "--name", "m")
    assert_clean_failure(r, *fragments)
    assert not (tmp_path / "out" / "m_origin.mlir").exists()


def test_rotary_position_out_of_range_at_run(tmp_path):
    inputs = {"x": f32(1, 1, 2, 4), "p": np.array([[0, 5]], np.int64)}
    path = save_model(tmp_path, "RotaryEmbedding", inputs, {},
                      {"c": f32(3, 2), "s": f32(3, 2)}, 23, names=["x", "c", "s", "p"])
    r = strata("import", path, "-o", tmp_path, "--name", "m")
    assert r.returncode == 0, r.stderr
    np.savez(tmp_path / "in.npz", **inputs)
    r = strata("run-ref", tmp_path / "m_origin.mlir", "--input", tmp_path / "in.npz",
               "--output", tmp_path / "out.npz")
    assert_clean_failure(r, "'top.RotaryEmbedding' op position_ids[0, 1] = 5 is out of range [0, 3)")
