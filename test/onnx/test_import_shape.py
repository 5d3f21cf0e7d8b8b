"""ONNX import of shape and data-movement ops, checked against ONNX Runtime."""
import numpy as np
import pytest
from onnx import helper, numpy_helper

from onnx_harness import check_against_ort, import_error, make_model, run_strata

RNG = np.random.default_rng(0)


def randf(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def single(op, inputs, attrs=None, inits=None, n_out=1, opset=17):
    names = list(inputs) + list(inits or {})
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, names, outs, **(attrs or {}))
    return make_model([node], inputs, outs, inits, opset)


def node_with(op, input_names, inputs, inits, attrs=None, n_out=1, opset=17):
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, input_names, outs, **(attrs or {}))
    return make_model([node], inputs, outs, inits, opset)


@pytest.mark.parametrize("perm", [None, [0, 2, 1], [2, 0, 1]])
def test_transpose(perm):
    x = randf(2, 3, 4)
    attrs = {"perm": perm} if perm else {}
    check_against_ort(single("Transpose", {"x": x}, attrs), {"x": x})


def test_concat_negative_axis():
    a, b = randf(2, 3), randf(2, 5)
    check_against_ort(single("Concat", {"a": a, "b": b}, {"axis": -1}), {"a": a, "b": b})


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_split_equal(opset):
    x = randf(6, 2)
    attrs = {"axis": 0}
    if opset >= 18:
        attrs["num_outputs"] = 3
    check_against_ort(single("Split", {"x": x}, attrs, n_out=3, opset=opset), {"x": x})


def test_split_num_outputs_uneven():
    x = randf(2, 7)
    m = single("Split", {"x": x}, {"axis": 1, "num_outputs": 3}, n_out=3, opset=18)
    check_against_ort(m, {"x": x})
    _, got, _ = run_strata(m, {"x": x})
    assert [got[f"y{i}"].shape[1] for i in range(3)] == [3, 3, 1]


def test_split_sizes_input():
    x = randf(5, 2)
    m = node_with("Split", ["x", "s"], {"x": x}, {"s": np.array([2, 3], np.int64)},
                  n_out=2, opset=13)
    check_against_ort(m, {"x": x})


def test_split_sizes_attribute_opset11():
    x = randf(5, 2)
    m = single("Split", {"x": x}, {"axis": 0, "split": [1, 4]}, n_out=2, opset=11)
    check_against_ort(m, {"x": x})


def test_slice_opset9_attributes():
    x = randf(4, 6)
    m = single("Slice", {"x": x}, {"starts": [1, -4], "ends": [3, 1000], "axes": [0, 1]}, opset=9)
    check_against_ort(m, {"x": x})


def test_slice_negative_steps():
    x = randf(4, 6)
    inits = {"s": np.array([-1, 5], np.int64), "e": np.array([-(2**63), 0], np.int64),
             "a": np.array([0, -1], np.int64), "st": np.array([-1, -2], np.int64)}
    m = node_with("Slice", ["x", "s", "e", "a", "st"], {"x": x}, inits)
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad_modes(mode):
    x = randf(3, 4)
    inits = {"p": np.array([1, 2, 2, 1], np.int64)}
    m = node_with("Pad", ["x", "p"], {"x": x}, inits, {"mode": mode})
    check_against_ort(m, {"x": x})


def test_pad_runtime_constant_value_and_axes():
    x, v = randf(2, 3, 4), np.array(2.5, np.float32)
    inits = {"p": np.array([1, -1, 0, 2], np.int64), "a": np.array([2, 0], np.int64)}
    m = node_with("Pad", ["x", "p", "v", "a"], {"x": x, "v": v}, inits, opset=18)
    check_against_ort(m, {"x": x, "v": v})


def test_pad_opset7_attributes():
    x = randf(2, 3)
    m = single("Pad", {"x": x}, {"pads": [0, 1, 1, 0], "value": 1.5}, opset=7)
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("pads", [[0, 1, 0, 1], [2, 7, 3, 8], [1, 0, 0, 0]])
def test_pad_wrap_matches_numpy(pads):
    """Pads larger than the dim wrap around more than once (np.pad 'wrap')."""
    x = randf(2, 3)
    m = node_with("Pad", ["x", "p"], {"x": x}, {"p": np.array(pads, np.int64)},
                  {"mode": "wrap"}, opset=19)
    code, got, err = run_strata(m, {"x": x})
    assert code == 0, err
    want = np.pad(x, [(pads[0], pads[2]), (pads[1], pads[3])], mode="wrap")
    np.testing.assert_array_equal(next(iter(got.values())), want)


def test_pad_wrap_before_opset19_is_an_error():
    x = randf(2, 3)
    m = node_with("Pad", ["x", "p"], {"x": x}, {"p": np.array([0, 1, 0, 1], np.int64)},
                  {"mode": "wrap"}, opset=18)
    assert "'wrap' (before Pad-19)" in import_error(m)


def test_gather_negative_indices():
    x = randf(5, 3)
    inits = {"i": np.array([[0, -1], [2, 4]], np.int64)}
    check_against_ort(node_with("Gather", ["x", "i"], {"x": x}, inits, {"axis": 0}), {"x": x})


def test_gather_runtime_indices_axis1():
    x, i = randf(2, 5), np.array([4, 0, 1], np.int32)
    check_against_ort(single("Gather", {"x": x, "i": i}, {"axis": 1}), {"x": x, "i": i})


def test_tile_and_expand():
    x = randf(3, 1)
    tile = node_with("Tile", ["x", "r"], {"x": x}, {"r": np.array([2, 3], np.int64)})
    check_against_ort(tile, {"x": x})
    expand = node_with("Expand", ["x", "s"], {"x": x}, {"s": np.array([2, 1, 4], np.int64)})
    check_against_ort(expand, {"x": x})


@pytest.mark.parametrize("opset", [11, 13])
def test_squeeze_unsqueeze(opset):
    x = randf(1, 3, 1, 2)
    if opset < 13:
        sq = single("Squeeze", {"x": x}, {"axes": [0, -2]}, opset=opset)
        un = single("Unsqueeze", {"x": x}, {"axes": [-1, 1]}, opset=opset)
    else:
        sq = node_with("Squeeze", ["x", "a"], {"x": x}, {"a": np.array([0, -2], np.int64)},
                       opset=opset)
        un = node_with("Unsqueeze", ["x", "a"], {"x": x}, {"a": np.array([-1, 1], np.int64)},
                       opset=opset)
    check_against_ort(sq, {"x": x})
    check_against_ort(un, {"x": x})
    check_against_ort(single("Squeeze", {"x": x}, opset=opset), {"x": x})


def test_unsqueeze_empty_tensor():
    x = randf(0, 3)
    m = node_with("Unsqueeze", ["x", "a"], {"x": x}, {"a": np.array([0], np.int64)})
    check_against_ort(m, {"x": x})


def test_shape_size_constant_of_shape():
    x = randf(2, 3, 4)
    check_against_ort(single("Shape", {"x": x}, {"start": 1, "end": -1}, opset=15), {"x": x})
    check_against_ort(single("Size", {"x": x}), {"x": x})
    value = numpy_helper.from_array(np.array([7], np.int32), "v")
    m = node_with("ConstantOfShape", ["s"], {}, {"s": np.array([2, 3], np.int64)},
                  {"value": value})
    check_against_ort(m, {})


@pytest.mark.parametrize("dtype,args", [(np.int64, (1, 10, 3)), (np.int32, (10, 1, -4)),
                                        (np.float32, (0.5, 2.0, 0.25))])
def test_range_constant(dtype, args):
    inits = {n: np.array(v, dtype) for n, v in zip("sld", args)}
    check_against_ort(node_with("Range", ["s", "l", "d"], {}, inits, opset=11), {})


REDUCES = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
           "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"]


@pytest.mark.parametrize("op", REDUCES)
@pytest.mark.parametrize("opset", [11, 18])
def test_reduce(op, opset):
    x = np.abs(randf(2, 3, 4)) + 0.1
    axes = [0, -1]
    inputs = {"x": x}
    if opset >= 18 or (op == "ReduceSum" and opset >= 13):
        m = node_with(op, ["x", "a"], inputs, {"a": np.array(axes, np.int64)},
                      {"keepdims": 0}, opset=opset)
    else:
        m = single(op, inputs, {"axes": axes, "keepdims": 0}, opset=opset)
    check_against_ort(m, inputs)


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceL2", "ReduceLogSumExp"])
def test_reduce_noop_with_empty_axes(op):
    x = randf(2, 3)
    m = single(op, {"x": x}, {"noop_with_empty_axes": 1}, opset=18)
    check_against_ort(m, {"x": x})


def test_reduce_all_axes_keepdims():
    x = randf(2, 3)
    check_against_ort(single("ReduceMean", {"x": x}, opset=18), {"x": x})


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8])
@pytest.mark.parametrize("last", [0, 1])
def test_arg(op, dtype, last):
    if dtype == np.float32:
        x = RNG.integers(-3, 3, (3, 5)).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = RNG.choice(np.array([info.min, info.max, 0, 1], dtype), (3, 5))
    m = single(op, {"x": x}, {"axis": -1, "keepdims": 0, "select_last_index": last})
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduce_log_sum_exp_large_values(keepdims):
    x = np.array([[100.0, 99.0, -np.inf], [1.0, np.inf, 2.0]], np.float32)
    m = single("ReduceLogSumExp", {"x": x}, {"axes": [1], "keepdims": keepdims}, opset=13)
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_elements(axis):
    x = randf(3, 4)
    idx = RNG.integers(-3, 3, (2, 3)).astype(np.int64)
    m = node_with("GatherElements", ["x", "i"], {"x": x}, {"i": idx}, {"axis": axis})
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("src,shape", [((0, 3, 4), [3, 4, 0]), ((2, 0), [0, 5, 7]),
                                       ((0,), [0])])
def test_reshape_allowzero_literal_zero(src, shape):
    """allowzero = 1 keeps a 0 as a zero dim: the result is the empty tensor of that
    shape (onnx.reference gives the same shape)."""
    from onnx.reference import ReferenceEvaluator
    x = np.zeros(src, np.float32)
    m = node_with("Reshape", ["x", "s"], {"x": x}, {"s": np.array(shape, np.int64)},
                  {"allowzero": 1}, opset=19)
    code, got, err = run_strata(m, {"x": x})
    assert code == 0, err
    want = ReferenceEvaluator(m).run(None, {"x": x})[0]
    assert got["y0"].shape == want.shape == tuple(shape)
    assert got["y0"].dtype == np.float32


@pytest.mark.parametrize("src,shape,message", [
    ((2, 3), [3, 0], "input shape [2, 3] is not empty, but shape [3, 0] with allowzero = 1"),
    ((0, 3), [0, -1], "allowzero = 1 with a 0 in shape [0, -1] allows no negative dims"),
])
def test_reshape_allowzero_errors(src, shape, message):
    x = np.zeros(src, np.float32)
    m = node_with("Reshape", ["x", "s"], {"x": x}, {"s": np.array(shape, np.int64)},
                  {"allowzero": 1}, opset=19)
    err = import_error(m)
    assert "(Reshape, opset 19)" in err and message in err, err
