"""ONNX import of If, Loop and Scan (subgraphs as Top regions), checked
against ONNX Runtime."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnx_harness import check_against_ort, import_error, make_model, run_strata

RNG = np.random.default_rng(0)


def randf(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def vi(name, dtype=TensorProto.FLOAT, shape=None):
    return helper.make_tensor_value_info(name, dtype, shape)


def if_model(then_nodes, else_nodes, then_out, else_out, inputs, outputs):
    then_g = helper.make_graph(then_nodes, "then", [], [vi(n) for n in then_out])
    else_g = helper.make_graph(else_nodes, "else", [], [vi(n) for n in else_out])
    node = helper.make_node("If", ["c"], outputs, then_branch=then_g, else_branch=else_g)
    return make_model([node], inputs, outputs)


@pytest.mark.parametrize("cond", [True, False])
def test_if_reads_outer_scope(cond):
    x, y = randf(2, 3), randf(2, 3)
    model = if_model([helper.make_node("Add", ["x", "y"], ["t"])],
                     [helper.make_node("Mul", ["x", "y"], ["e"])], ["t"], ["e"],
                     {"c": np.array(cond), "x": x, "y": y}, ["r"])
    check_against_ort(model, {"c": np.array(cond), "x": x, "y": y})


@pytest.mark.parametrize("cond", [True, False])
def test_if_branches_with_different_shapes(cond):
    # The result's dim is dynamic; the interpreter sets it at run time.
    x = randf(4)
    then_nodes = [helper.make_node("Concat", ["x", "x"], ["t"], axis=0)]
    else_nodes = [helper.make_node("Relu", ["x"], ["e"])]
    model = if_model(then_nodes, else_nodes, ["t"], ["e"], {"c": np.array(cond), "x": x}, ["r"])
    check_against_ort(model, {"c": np.array(cond), "x": x})


def test_if_constant_condition_is_resolved_at_import():
    x = randf(3)
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [], [vi("t")])
    else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["e"])], "else", [], [vi("e")])
    nodes = [helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", TensorProto.BOOL, [], [False])),
             helper.make_node("If", ["c"], ["r"], then_branch=then_g, else_branch=else_g)]
    check_against_ort(make_model(nodes, {"x": x}, ["r"]), {"x": x})


def loop_model(body_nodes, body_in, body_out, loop_inputs, inputs, outputs, opset=17):
    body = helper.make_graph(body_nodes, "body", body_in, body_out)
    node = helper.make_node("Loop", loop_inputs, outputs, body=body)
    return make_model([node], inputs, outputs, opset=opset)


def test_loop_carried_and_scan_outputs():
    # y_{i+1} = y_i * 0.5 + x[i] (x read from the outer scope), scanned.
    x, y0 = randf(4, 3), randf(3)
    nodes = [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
             helper.make_node("Gather", ["x", "i"], ["xi"], axis=0),
             helper.make_node("Mul", ["y_in", "half"], ["h"]),
             helper.make_node("Add", ["h", "xi"], ["y_out"]),
             helper.make_node("Identity", ["y_out"], ["scan"])]
    half = helper.make_node("Constant", [], ["half"], value=helper.make_tensor("h", TensorProto.FLOAT, [], [0.5]))
    body_in = [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []), vi("y_in", shape=[3])]
    body_out = [vi("cond_out", TensorProto.BOOL, []), vi("y_out", shape=[3]), vi("scan", shape=[3])]
    body = helper.make_graph(nodes, "body", body_in, body_out)
    m = np.array(4, dtype=np.int64)
    loop = helper.make_node("Loop", ["m", "", "y0"], ["y", "s"], body=body)
    model = make_model([half, loop], {"m": m, "x": x, "y0": y0}, ["y", "s"])
    check_against_ort(model, {"m": m, "x": x, "y0": y0})


@pytest.mark.parametrize("limit", [0.0, 2.5, 7.0])
def test_loop_stops_on_condition(limit):
    # Runs while the carried sum is below `limit`; unbounded trip count.
    nodes = [helper.make_node("Add", ["s_in", "one"], ["s_out"]),
             helper.make_node("Less", ["s_out", "limit"], ["cond_out"]),
             helper.make_node("Identity", ["s_out"], ["scan"])]
    one = helper.make_node("Constant", [], ["one"], value=helper.make_tensor("o", TensorProto.FLOAT, [], [1.0]))
    body_in = [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []), vi("s_in", shape=[])]
    body_out = [vi("cond_out", TensorProto.BOOL, []), vi("s_out", shape=[]), vi("scan", shape=[])]
    body = helper.make_graph(nodes, "body", body_in, body_out)
    s0 = np.array(0.0, dtype=np.float32)
    c = np.array(limit > 0)
    lim = np.array(limit, dtype=np.float32)
    loop = helper.make_node("Loop", ["", "c", "s0"], ["s", "scan_all"], body=body)
    model = make_model([one, loop], {"c": c, "s0": s0, "limit": lim}, ["s", "scan_all"])
    check_against_ort(model, {"c": c, "s0": s0, "limit": lim})


def test_loop_nested_in_loop():
    # Inner loop adds the outer iteration number three times.
    inner_nodes = [helper.make_node("Identity", ["ci"], ["co"]),
                   helper.make_node("Cast", ["j"], ["jf"], to=TensorProto.FLOAT),
                   helper.make_node("Add", ["a_in", "jf"], ["a_out"])]
    inner = helper.make_graph(inner_nodes, "inner",
                              [vi("k", TensorProto.INT64, []), vi("ci", TensorProto.BOOL, []), vi("a_in", shape=[2])],
                              [vi("co", TensorProto.BOOL, []), vi("a_out", shape=[2])])
    outer_nodes = [helper.make_node("Identity", ["c_in"], ["c_out"]),
                   helper.make_node("Loop", ["three", "", "acc_in"], ["acc_out"], body=inner)]
    outer = helper.make_graph(outer_nodes, "outer",
                              [vi("j", TensorProto.INT64, []), vi("c_in", TensorProto.BOOL, []), vi("acc_in", shape=[2])],
                              [vi("c_out", TensorProto.BOOL, []), vi("acc_out", shape=[2])])
    three = helper.make_node("Constant", [], ["three"], value=helper.make_tensor("t", TensorProto.INT64, [], [3]))
    loop = helper.make_node("Loop", ["n", "", "a0"], ["a"], body=outer)
    n, a0 = np.array(5, dtype=np.int64), randf(2)
    check_against_ort(make_model([three, loop], {"n": n, "a0": a0}, ["a"]), {"n": n, "a0": a0})


def scan_model(body_nodes, body_in, body_out, inputs, outputs, attrs):
    body = helper.make_graph(body_nodes, "body", body_in, body_out)
    node = helper.make_node("Scan", list(inputs), outputs, body=body, **attrs)
    return make_model([node], inputs, outputs, opset=17)


@pytest.mark.parametrize("attrs", [
    {},
    {"scan_input_axes": [1]},
    {"scan_input_directions": [1]},
    {"scan_output_axes": [1]},
    {"scan_output_axes": [-1], "scan_output_directions": [1]},
    {"scan_input_axes": [-1], "scan_input_directions": [1], "scan_output_axes": [0]},
])
def test_scan_cumulative_sum(attrs):
    init, x = randf(2), randf(4, 2) if attrs.get("scan_input_axes", [0])[0] == 0 else randf(2, 4)
    nodes = [helper.make_node("Add", ["s_in", "xs"], ["s_out"]),
             helper.make_node("Identity", ["s_out"], ["y"])]
    model = scan_model(nodes, [vi("s_in", shape=[2]), vi("xs", shape=[2])],
                       [vi("s_out", shape=[2]), vi("y", shape=[2])],
                       {"init": init, "x": x}, ["s", "ys"], dict(num_scan_inputs=1, **attrs))
    check_against_ort(model, {"init": init, "x": x})


def test_scan_two_inputs_no_state():
    a, b = randf(3, 2, 2), randf(2, 2, 3)
    nodes = [helper.make_node("MatMul", ["ai", "bi"], ["p"])]
    model = scan_model(nodes, [vi("ai", shape=[2, 2]), vi("bi", shape=[2, 2])], [vi("p", shape=[2, 2])],
                       {"a": a, "b": b}, ["ps"],
                       dict(num_scan_inputs=2, scan_input_axes=[0, 2]))
    check_against_ort(model, {"a": a, "b": b})


def test_scan_bad_num_scan_inputs():
    x = randf(3, 2)
    nodes = [helper.make_node("Identity", ["xs"], ["y"])]
    model = scan_model(nodes, [vi("xs", shape=[2])], [vi("y", shape=[2])], {"x": x}, ["ys"],
                       dict(num_scan_inputs=2))
    err = import_error(model)
    assert "num_scan_inputs" in err and "2" in err


def test_scan_axis_out_of_range():
    x = randf(3, 2)
    nodes = [helper.make_node("Identity", ["xs"], ["y"])]
    model = scan_model(nodes, [vi("xs", shape=[2])], [vi("y", shape=[2])], {"x": x}, ["ys"],
                       dict(num_scan_inputs=1, scan_input_axes=[5]))
    err = import_error(model)
    assert "scan_input_axes" in err and "5" in err


def test_loop_body_output_count_mismatch():
    nodes = [helper.make_node("Identity", ["cond_in"], ["cond_out"])]
    body = helper.make_graph(nodes, "body", [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
                                             vi("y_in", shape=[1])],
                             [vi("cond_out", TensorProto.BOOL, [])])
    loop = helper.make_node("Loop", ["m", "", "y0"], ["y"], body=body)
    model = make_model([loop], {"m": np.array(2, np.int64), "y0": randf(1)}, ["y"])
    err = import_error(model)
    assert "Loop" in err and "outputs" in err


def test_if_missing_branch():
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [], [vi("t")])
    node = helper.make_node("If", ["c"], ["r"], then_branch=then_g)
    model = make_model([node], {"c": np.array(True), "x": randf(2)}, ["r"])
    err = import_error(model)
    assert "else_branch" in err


@pytest.mark.parametrize("start,limit,delta,dtype", [
    (1.0, 5.5, 0.75, np.float32), (3.0, -2.0, -1.5, np.float32), (2.0, 1.0, 1.0, np.float32),
    (-7, 12, 4, np.int64), (10, 3, -3, np.int32), (0.5, 2.0, 0.25, np.float64)])
def test_range_of_run_time_inputs(start, limit, delta, dtype):
    # Non-constant Range becomes a top.Range; its length is found at run time.
    inputs = {"s": np.array(start, dtype), "l": np.array(limit, dtype), "d": np.array(delta, dtype)}
    model = make_model([helper.make_node("Range", ["s", "l", "d"], ["y"])], inputs, ["y"], opset=11)
    check_against_ort(model, inputs)
