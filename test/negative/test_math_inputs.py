"""ONNX math and signal nodes with bad attributes or inputs: `strata import`
(or `run-ref`, for values only known at run time) fails cleanly with a message
naming the node's op, the field and the value."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from negative_harness import assert_clean_failure, strata


def model(op, inputs, inits=None, opset=18, **attrs):
    """One `op` node; `inputs`: graph inputs name -> array; `inits`:
    initializers name -> array (listed after the inputs; None leaves an
    empty optional input)."""
    inits = inits or {}
    names = list(inputs) + [n if a is not None else "" for n, a in inits.items()]
    node = helper.make_node(op, names, ["y"], **attrs)
    g_in = [helper.make_tensor_value_info(
        n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for n, a in inputs.items()]
    graph = helper.make_graph(
        [node], "g", g_in, [helper.make_empty_tensor_value_info("y")],
        [numpy_helper.from_array(a, n) for n, a in inits.items()
         if a is not None])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = min(onnx.IR_VERSION, 10)
    return m


def import_model(tmp_path, m):
    onnx.save(m, tmp_path / "m.onnx")
    return strata("import", tmp_path / "m.onnx", "-o", tmp_path, "--name", "m")


X = np.zeros((1, 8, 1), np.float32)
CASES = [
    ("dft_length", model("DFT", {"x": X}, {"len": np.array(0, np.int64)},
                         opset=17), ["(DFT, opset 17)", "dft_length = 0"]),
    ("dft_axis", model("DFT", {"x": X}, opset=17, axis=-1),
     ["(DFT, opset 17)", "axis = -1 is out of range"]),
    ("stft_step", model("STFT", {"x": X}, {"step": np.array(0, np.int64)},
                        opset=17),
     ["'top.STFT' op attribute 'frame_step' = 0 must be >= 1"]),
    ("stft_frame", model("STFT", {"x": X}, {"step": np.array(1, np.int64),
                                            "w": None,
                                            "len": np.array(9, np.int64)},
                         opset=17),
     ["attribute 'frame_length' = 9 exceeds the signal length 8"]),
    ("window_size", model("HannWindow", {}, {"n": np.array(-3, np.int64)},
                          opset=17), ["attribute 'size' = -3 must be >= 0"]),
    ("window_datatype", model("HannWindow", {}, {"n": np.array(3, np.int64)},
                              opset=17, output_datatype=TensorProto.STRING),
     ["attribute 'output_datatype' = 8 (STRING)"]),
    ("lrn_size", model("LRN", {"x": np.zeros((1, 3, 2, 2), np.float32)},
                       size=0), ["attribute 'size' = 0 must be >= 1"]),
    ("det_shape", model("Det", {"x": np.zeros((2, 3), np.float32)}),
     ["operand 'input' shape [2, 3] must be [*, M, M]"]),
    ("bitshift_signed", model("BitShift", {"a": np.zeros(3, np.int32),
                                           "b": np.zeros(3, np.int32)},
                              direction="LEFT"),
     ["only unsigned integers are supported"]),
    ("bitwise_float", model("BitwiseAnd", {"a": np.zeros(3, np.float32),
                                           "b": np.zeros(3, np.float32)}),
     ["operand 'lhs' must have an integer element type, got 'f32'"]),
    ("lppool_p", model("LpPool", {"x": np.zeros((1, 1, 4, 4), np.float32)},
                       kernel_shape=[2, 2], p=0),
     ["(LpPool, opset 18)", "attribute 'p' = 0 must be >= 1"]),
    ("mel_bins", model("MelWeightMatrix", {}, {
        "n": np.array(0, np.int64), "l": np.array(16, np.int64),
        "r": np.array(8000, np.int64), "lo": np.array(0, np.float32),
        "hi": np.array(4000, np.float32)}, opset=17),
     ["attribute 'num_mel_bins' = 0 must be in [1, 2^24]"]),
]


@pytest.mark.parametrize("m,fragments", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_import_rejects(tmp_path, m, fragments):
    r = import_model(tmp_path, m)
    assert_clean_failure(r, *fragments)
    assert not (tmp_path / "m_origin.mlir").exists()


def test_mel_edges_checked_at_run_time(tmp_path):
    m = model("MelWeightMatrix", {"lo": np.array(0, np.float32),
                                  "hi": np.array(0, np.float32)},
              {"n": np.array(4, np.int64), "l": np.array(16, np.int64),
               "r": np.array(8000, np.int64)}, opset=17)
    # Inputs first in the node: reorder to the ONNX input order.
    m.graph.node[0].input[:] = ["n", "l", "r", "lo", "hi"]
    r = import_model(tmp_path, m)
    assert r.returncode == 0, r.stderr
    np.savez(tmp_path / "in.npz", lo=np.array(0, np.float32),
             hi=np.array(9000, np.float32))
    r = strata("run-ref", tmp_path / "m_origin.mlir", "--input",
               tmp_path / "in.npz", "--output", tmp_path / "out.npz")
    assert_clean_failure(r, "top.MelWeightMatrix",
                         "'upper_edge_hertz' = 9.000000e+03 maps to spectrum bin")
    assert not (tmp_path / "out.npz").exists()
