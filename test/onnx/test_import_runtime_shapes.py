"""Shape-like inputs (axes, shapes, pads, repeats, k, ...) that are graph inputs,
not constants: they become runtime operands of the Top ops (`?` result dims) and
the reference interpreter computes them. Checked against ONNX Runtime; bad
runtime values must give an error naming the op and the operand."""
import numpy as np
import pytest
from onnx import helper

from onnx_harness import check_against_ort, make_model, run_strata

RNG = np.random.default_rng(7)


def randf(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def i64(*v):
    return np.array(v, np.int64)


def model(op, names, inputs, attrs=None, n_out=1, opset=18):
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, names, outs, **(attrs or {}))
    return make_model([node], inputs, outs, None, opset)


def run_error(m, inputs):
    code, _, err = run_strata(m, inputs)
    assert code != 0, "run unexpectedly succeeded"
    return err


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceL2",
                                "ReduceLogSumExp", "ReduceProd"])
@pytest.mark.parametrize("axes,keep", [(i64(1), 1), (i64(-1, 0), 0), (i64(2), 0)])
def test_reduce_runtime_axes(op, axes, keep):
    x = randf(2, 3, 4)
    inputs = {"x": x, "a": axes}
    check_against_ort(model(op, ["x", "a"], inputs, {"keepdims": keep}), inputs)


def test_reduce_runtime_axes_out_of_range():
    inputs = {"x": randf(2, 3), "a": i64(5)}
    err = run_error(model("ReduceSum", ["x", "a"], inputs), inputs)
    assert "top.Reduce" in err and "operand 'axes_value' holds axis 5" in err


@pytest.mark.parametrize("shape", [i64(3, -1), i64(0, 2, 2), i64(12)])
def test_reshape_runtime_shape(shape):
    inputs = {"x": randf(3, 4), "s": shape}
    check_against_ort(model("Reshape", ["x", "s"], inputs), inputs)


def test_reshape_runtime_negative_dim():
    inputs = {"x": randf(3, 4), "s": i64(-2, -6)}
    err = run_error(model("Reshape", ["x", "s"], inputs), inputs)
    assert "top.Reshape" in err and "operand 'shape_value' [-2, -6]" in err


@pytest.mark.parametrize("axes", [i64(0), i64(-1, 1)])
def test_unsqueeze_runtime_axes(axes):
    inputs = {"x": randf(3, 4), "a": axes}
    check_against_ort(model("Unsqueeze", ["x", "a"], inputs), inputs)


def test_squeeze_runtime_axes_and_error():
    inputs = {"x": randf(1, 3, 1), "a": i64(0, -1)}
    check_against_ort(model("Squeeze", ["x", "a"], inputs), inputs)
    bad = {"x": randf(1, 3, 1), "a": i64(1)}
    err = run_error(model("Squeeze", ["x", "a"], bad), bad)
    assert "top.Squeeze" in err and "cannot squeeze dim 1" in err


def test_expand_and_tile_runtime():
    inputs = {"x": randf(3, 1), "s": i64(2, 3, 4)}
    check_against_ort(model("Expand", ["x", "s"], inputs), inputs)
    inputs = {"x": randf(2, 3), "r": i64(2, 3)}
    check_against_ort(model("Tile", ["x", "r"], inputs), inputs)


def test_tile_runtime_overflow_is_an_error():
    inputs = {"x": randf(2, 3), "r": i64(2**40, 2**40)}
    err = run_error(model("Tile", ["x", "r"], inputs), inputs)
    assert "top.Tile" in err and "overflows" in err


def test_expand_runtime_too_large_is_an_error():
    inputs = {"x": randf(1), "s": i64(2**20, 2**20)}
    err = run_error(model("Expand", ["x", "s"], inputs), inputs)
    assert "top.Expand" in err and "more than 2^31 elements" in err


def test_constant_of_shape_runtime():
    inputs = {"s": i64(2, 0, 3)}
    check_against_ort(model("ConstantOfShape", ["s"], inputs), inputs)


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad_runtime_pads(mode):
    inputs = {"x": randf(3, 4), "p": i64(1, 2, 2, -1)}
    check_against_ort(model("Pad", ["x", "p"], inputs, {"mode": mode}), inputs)


def test_split_runtime_sizes():
    inputs = {"x": randf(5, 2), "s": i64(2, 3)}
    check_against_ort(model("Split", ["x", "s"], inputs, n_out=2, opset=13), inputs)
    bad = {"x": randf(5, 2), "s": i64(2, 2)}
    err = run_error(model("Split", ["x", "s"], bad, n_out=2, opset=13), bad)
    assert "top.Split" in err and "operand 'split_value' [2, 2] must sum to" in err


@pytest.mark.parametrize("names,values", [
    (["x", "s", "e"], [i64(1, 0), i64(3, -1)]),
    (["x", "s", "e", "a", "st"], [i64(-1, 0), i64(-(2**63), 10), i64(1, 0), i64(-2, 1)]),
])
def test_slice_runtime(names, values):
    inputs = {"x": randf(4, 6), **dict(zip(names[1:], values))}
    check_against_ort(model("Slice", names, inputs), inputs)


def test_slice_runtime_zero_step_is_an_error():
    inputs = {"x": randf(4), "s": i64(0), "e": i64(3), "a": i64(0), "st": i64(0)}
    err = run_error(model("Slice", ["x", "s", "e", "a", "st"], inputs), inputs)
    assert "top.Slice" in err and "bounds_value" in err


def test_topk_trilu_cumsum_runtime():
    x = randf(3, 5)
    inputs = {"x": x, "k": i64(2)}
    check_against_ort(model("TopK", ["x", "k"], inputs, n_out=2), inputs)
    inputs = {"x": x, "k": np.array(-1, np.int64)}
    check_against_ort(model("Trilu", ["x", "k"], inputs, {"upper": 0}), inputs)
    inputs = {"x": x, "a": np.array(-1, np.int32)}
    check_against_ort(model("CumSum", ["x", "a"], inputs, {"exclusive": 1}), inputs)


def test_topk_runtime_k_too_large_is_an_error():
    inputs = {"x": randf(3, 5), "k": i64(6)}
    err = run_error(model("TopK", ["x", "k"], inputs, n_out=2), inputs)
    assert "top.TopK" in err and "operand 'k_value' = 6 must be in [0, 5]" in err


def test_gather_elements_runtime_indices():
    inputs = {"x": randf(3, 4), "i": i64(0, -1, 2, 1, 3, 0).reshape(3, 2)}
    check_against_ort(model("GatherElements", ["x", "i"], inputs, {"axis": 1}), inputs)
    bad = {"x": randf(3, 4), "i": i64(4, 0, 0, 0, 0, 0).reshape(3, 2)}
    err = run_error(model("GatherElements", ["x", "i"], bad, {"axis": 1}), bad)
    assert "top.GatherElements" in err and "index 4" in err


def test_pad_runtime_pads_value_and_axes():
    x = randf(2, 3, 4)
    inputs = {"x": x, "p": i64(1, 0, 2, 1), "v": np.array(1.5, np.float32), "a": i64(-1, 0)}
    check_against_ort(model("Pad", ["x", "p", "v", "a"], inputs), inputs)
    inputs = {"x": x, "p": i64(1, 2, 0, 1, 1, 1), "v": np.array(-2.0, np.float32)}
    check_against_ort(model("Pad", ["x", "p", "v"], inputs), inputs)


def test_pad_runtime_axis_out_of_range_is_an_error():
    inputs = {"x": randf(2, 3), "p": i64(1, 1), "a": i64(2)}
    err = run_error(model("Pad", ["x", "p", "", "a"], inputs), inputs)
    assert "top.ScatterElements" in err and "index 2" in err


@pytest.mark.parametrize("axes,shape", [(None, i64(3, 7, 2)), ([-1, 0], i64(5, 1))])
def test_center_crop_pad_runtime_shape(axes, shape):
    # Crop and pad in one node; the Pad's input (a runtime Slice) has `?` dims.
    x = randf(4, 5, 3)
    inputs = {"x": x, "s": shape}
    attrs = {"axes": axes} if axes else {}
    check_against_ort(model("CenterCropPad", ["x", "s"], inputs, attrs), inputs)


@pytest.mark.parametrize("second", ["Pad", "ReduceSum"])
def test_runtime_op_after_runtime_reshape(second):
    # The second op's input has `?` dims from the runtime Reshape.
    x = randf(2, 6)
    extra = {"Pad": ("p", i64(1, 0, 0, 2)), "ReduceSum": ("a", i64(0))}[second]
    nodes = [helper.make_node("Reshape", ["x", "s"], ["r"]),
             helper.make_node(second, ["r", extra[0]], ["y0"])]
    inputs = {"x": x, "s": i64(3, -1), extra[0]: extra[1]}
    check_against_ort(make_model(nodes, inputs, ["y0"], None, 18), inputs)
