"""Errors name the model node they come from (docs/cli.md "Limits" and
"Errors"): every run-time error of the reference interpreter, and every
limit error, names the Top op and the ONNX node (name and op type) and value
it was imported from, also when one ONNX node became several Top ops (Mod is
Div, Mul and Sub). Range with a run-time delta of 0 is an error of top.Range.
"""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from negative_harness import assert_clean_failure, strata

F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


def onnx_model(nodes, inputs, outputs):
    g = helper.make_graph(nodes, "g",
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def run(tmp_path, model, inputs, *extra):
    """Imports `model` (no optimization) and runs it with run-ref."""
    (tmp_path / "m.onnx").write_bytes(model.SerializeToString())
    r = strata("import", tmp_path / "m.onnx", "-o", tmp_path / "out", "--name", "m",
               "--no-optimize")
    assert r.returncode == 0, r.stderr
    np.savez(tmp_path / "in.npz", **inputs)
    return strata("run-ref", tmp_path / "out" / "m_origin.mlir", "--input",
                  tmp_path / "in.npz", "--output", tmp_path / "o.npz", *extra)


def test_mod_by_zero_names_the_mod_node(tmp_path):
    m = onnx_model([helper.make_node("Mod", ["a", "b"], ["y"], name="mod_node")],
                   [("a", I32, [3]), ("b", I32, [3])], [("y", I32, [3])])
    r = run(tmp_path, m, {"a": np.array([1, 2, 3], np.int32),
                          "b": np.array([1, 0, 3], np.int32)})
    assert_clean_failure(r, "integer division by zero", "element 1 is 0",
                         "(ONNX node 'mod_node' (Mod), value 'y')")
    assert not (tmp_path / "o.npz").exists()


def test_unnamed_node_is_named_by_its_op_type(tmp_path):
    m = onnx_model([helper.make_node("Mod", ["a", "b"], ["y"])],
                   [("a", I64, [2]), ("b", I64, [2])], [("y", I64, [2])])
    r = run(tmp_path, m, {"a": np.array([1, 2], np.int64), "b": np.array([0, 1], np.int64)})
    assert_clean_failure(r, "(unnamed ONNX node (Mod), value 'y')")


@pytest.mark.parametrize("dtype,onnx_type", [(np.int64, I64), (np.float32, F)])
def test_range_with_a_run_time_delta_of_zero(tmp_path, dtype, onnx_type):
    m = onnx_model([helper.make_node("Range", ["s", "l", "d"], ["y"], name="range_node")],
                   [("s", onnx_type, []), ("l", onnx_type, []), ("d", onnx_type, [])],
                   [("y", onnx_type, None)])
    inputs = {"s": np.array(0, dtype), "l": np.array(5, dtype), "d": np.array(0, dtype)}
    r = run(tmp_path, m, inputs)
    assert_clean_failure(r, "'top.Range' op operand 'delta' is 0",
                         "(ONNX node 'range_node' (Range), value 'y')")
    assert not (tmp_path / "o.npz").exists()
    inputs["d"] = np.array(2, dtype)
    r = run(tmp_path, m, inputs)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "o.npz")["y"], np.arange(0, 5, 2, dtype))


def test_range_over_the_element_limit_names_the_node(tmp_path):
    m = onnx_model([helper.make_node("Range", ["s", "l", "d"], ["y"], name="rng")],
                   [("s", I64, []), ("l", I64, []), ("d", I64, [])], [("y", I64, None)])
    r = run(tmp_path, m, {"s": np.array(0, np.int64), "l": np.array(5000, np.int64),
                          "d": np.array(1, np.int64)}, "--max-elements=1000")
    assert_clean_failure(r, "'top.Range' op", "[5000]", "element limit", "--max-elements",
                         "(ONNX node 'rng' (Range), value 'y')")


# --- limits name the node ------------------------------------------------------------

def test_run_time_element_limit_names_the_node(tmp_path):
    m = onnx_model([helper.make_node("Expand", ["x", "s"], ["y"], name="expand_node")],
                   [("x", F, [1]), ("s", I64, [2])], [("y", F, None)])
    r = run(tmp_path, m, {"x": np.ones(1, np.float32), "s": np.array([100, 100], np.int64)},
            "--max-elements=1000")
    assert_clean_failure(r, "'top.Expand' op", "more than 1000 elements",
                         "(ONNX node 'expand_node' (Expand), value 'y')")


def test_static_element_limit_names_the_node(tmp_path):
    m = onnx_model([helper.make_node("Expand", ["x", "s"], ["y"], name="expand_node")],
                   [("x", F, [1])], [("y", F, None)])
    m.graph.initializer.append(numpy_helper.from_array(np.array([100, 100], np.int64), "s"))
    (tmp_path / "m.onnx").write_bytes(m.SerializeToString())
    r = strata("import", tmp_path / "m.onnx", "-o", tmp_path / "out", "--name", "m",
               "--no-optimize", "--max-elements=1000")
    assert_clean_failure(r, "'top.Expand' (ONNX node 'expand_node' (Expand), value 'y')",
                         "[100, 100]", "element limit of 1000")


def test_loop_iteration_limit_names_the_node(tmp_path):
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Identity", ["v_in"], ["v_out"])], "body",
        [helper.make_tensor_value_info("i", I64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_in", F, [3])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", F, [3])])
    m = onnx_model([helper.make_node("Loop", ["n", "", "v"], ["y"], name="loop_node",
                                     body=body)],
                   [("n", I64, []), ("v", F, [3])], [("y", F, [3])])
    r = run(tmp_path, m, {"n": np.array(2**40, np.int64), "v": np.zeros(3, np.float32)},
            "--max-loop-iterations=100")
    assert_clean_failure(r, "'top.Loop' op has run 100 iterations", "loop limit of 100",
                         "(ONNX node 'loop_node' (Loop), value 'y')")
