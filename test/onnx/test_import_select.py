"""ONNX import of index and selection ops (Trilu, CumSum, CumProd,
ScatterElements, Scatter, ScatterND, GatherND, TopK, OneHot,
ReverseSequence, MaxPool's Indices, MaxUnpool, EyeLike, CenterCropPad,
Compress, NonZero, Unique), checked against ONNX Runtime. Inputs that fix
an output shape (k, axis, depth, condition) are initializers, as in
exported models."""
import numpy as np
import pytest
from onnx import helper

from onnx_harness import check_against_ort, import_error, make_model, run_strata

RNG = np.random.default_rng(0)


def randf(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def model(op, input_names, inputs, inits=None, attrs=None, n_out=1, opset=17):
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, input_names, outs, **(attrs or {}))
    return make_model([node], inputs, outs, inits, opset)


@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("k", [-2, 0, 3])
def test_trilu(upper, k):
    x = randf(2, 4, 5)
    m = model("Trilu", ["x", "k"], {"x": x}, {"k": np.array(k, np.int64)}, {"upper": upper})
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("exclusive,reverse", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("axis", [0, -1])
def test_cumsum(exclusive, reverse, axis):
    x = randf(3, 5)
    m = model("CumSum", ["x", "axis"], {"x": x}, {"axis": np.array(axis, np.int32)},
              {"exclusive": exclusive, "reverse": reverse}, opset=14)
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "min", "max"])
def test_scatter_elements(reduction):
    data, upd = randf(3, 4), randf(3, 2)
    idx = np.array([[0, -1], [2, 2], [3, 1]], np.int64)
    if reduction == "none":
        idx = np.array([[0, -1], [2, 1], [3, 1]], np.int64)  # ORT: no duplicates
    m = model("ScatterElements", ["d", "i", "u"], {"d": data, "i": idx, "u": upd},
              attrs={"axis": 1, "reduction": reduction}, opset=18)
    check_against_ort(m, {"d": data, "i": idx, "u": upd})


@pytest.mark.parametrize("reduction", ["none", "add", "max"])
def test_scatter_nd(reduction):
    data, upd = randf(4, 3, 2), randf(2, 2)
    idx = np.array([[1, 2], [-1, 0]], np.int64)
    m = model("ScatterND", ["d", "i", "u"], {"d": data, "i": idx, "u": upd},
              attrs={"reduction": reduction}, opset=18)
    check_against_ort(m, {"d": data, "i": idx, "u": upd})


@pytest.mark.parametrize("batch_dims", [0, 1])
def test_gather_nd(batch_dims):
    data = randf(2, 3, 4)
    idx = np.array([[1, 2], [0, -1]], np.int64) if batch_dims == 0 else \
        np.array([[2], [0]], np.int64)
    m = model("GatherND", ["d", "i"], {"d": data, "i": idx}, attrs={"batch_dims": batch_dims},
              opset=13)
    check_against_ort(m, {"d": data, "i": idx})


@pytest.mark.parametrize("largest", [0, 1])
@pytest.mark.parametrize("axis", [0, -1])
def test_topk(largest, axis):
    x = RNG.integers(0, 5, (4, 6)).astype(np.float32)  # ties
    m = model("TopK", ["x", "k"], {"x": x}, {"k": np.array([3], np.int64)},
              {"axis": axis, "largest": largest}, n_out=2, opset=11)
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_onehot(axis):
    idx = np.array([[0, -1, 4], [2, 7, -6]], np.int64)
    m = model("OneHot", ["i", "depth", "v"], {"i": idx},
              {"depth": np.array(5, np.int64), "v": np.array([0.5, 3.0], np.float32)},
              {"axis": axis}, opset=11)
    check_against_ort(m, {"i": idx})


def test_onehot_runtime_depth():
    # ORT implements OneHot for (int64 indices, int64 depth, float values).
    idx = np.array([[1, -2], [3, 0]], np.int64)
    ins = {"i": idx, "depth": np.array(4, np.int64),
           "v": np.array([1.0, 9.0], np.float32)}
    check_against_ort(model("OneHot", ["i", "depth", "v"], ins, attrs={"axis": -2}, opset=11), ins)


def test_reverse_sequence():
    x = randf(5, 3, 2)
    lens = np.array([5, 1, 3], np.int64)  # ORT leaves garbage for length 0
    m = model("ReverseSequence", ["x", "l"], {"x": x, "l": lens},
              attrs={"batch_axis": 1, "time_axis": 0}, opset=10)
    check_against_ort(m, {"x": x, "l": lens})


def test_maxpool_indices_then_unpool():
    x = randf(2, 3, 6, 5)
    nodes = [helper.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2],
                              pads=[0, 0, 0, 1]),
             helper.make_node("MaxUnpool", ["p", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                              pads=[0, 0, 0, 1])]
    check_against_ort(make_model(nodes, {"x": x}, ["p", "i", "y"], opset=12), {"x": x})


@pytest.mark.parametrize("k,dtype", [(0, None), (2, 1), (-1, 7)])
def test_eyelike(k, dtype):
    x = randf(3, 5)
    attrs = {"k": k}
    if dtype is not None:
        attrs["dtype"] = dtype
    check_against_ort(model("EyeLike", ["x"], {"x": x}, attrs=attrs), {"x": x})


@pytest.mark.parametrize("shape,axes", [([7, 3], None), ([2, 8], [0, 1]), ([9], [-2])])
def test_center_crop_pad(shape, axes):
    x = randf(5, 4)
    attrs = {"axes": axes} if axes else {}
    m = model("CenterCropPad", ["x", "s"], {"x": x}, {"s": np.array(shape, np.int64)}, attrs,
              opset=18)
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("axis", [None, 0, -1])
def test_compress(axis):
    x = randf(3, 4)
    cond = np.array([True, False, True], bool)
    attrs = {} if axis is None else {"axis": axis}
    m = model("Compress", ["x", "c"], {"x": x}, {"c": cond}, attrs, opset=11)
    check_against_ort(m, {"x": x})


def test_compress_runtime_condition_fails():
    x, cond = randf(3, 4), np.array([True, False, True], bool)
    err = import_error(model("Compress", ["x", "c"], {"x": x, "c": cond}, opset=11))
    assert "Compress" in err and "'condition' input must be a constant" in err


def test_nonzero_and_unique_of_constants():
    c = np.array([[3, 0, 1], [0, 0, 2], [1, 3, 3]], np.int64)
    nodes = [helper.make_node("NonZero", ["c"], ["nz"]),
             helper.make_node("Unique", ["c"], ["u", "ui", "uinv", "uc"], sorted=1),
             helper.make_node("Unique", ["c"], ["r", "ri", "rinv", "rc"], sorted=0, axis=0),
             helper.make_node("Cast", ["nz"], ["nzf"], to=1),
             helper.make_node("ReduceSum", ["nzf", "x"], ["y"])]
    x = np.array([1], np.int64)
    m = make_model(nodes, {}, ["nz", "u", "ui", "uinv", "uc", "r", "ri", "rinv", "rc", "y"],
                   {"c": c, "x": x}, opset=13)
    check_against_ort(m, {})


def test_data_dependent_outputs_at_run_time():
    x = np.array([[0.0, 1.5, 0.0], [2.0, np.nan, 1.5]], np.float32)
    nodes = [helper.make_node("NonZero", ["x"], ["nz"]),
             helper.make_node("Unique", ["x"], ["u", "ui", "uinv", "uc"], sorted=0),
             helper.make_node("Unique", ["x"], ["s", "si", "sinv", "sc"], sorted=1, axis=-1)]
    m = make_model(nodes, {"x": x}, ["nz", "u", "ui", "uinv", "uc", "s", "si", "sinv", "sc"],
                   opset=13)
    # ORT's Unique treats NaNs as distinct: compare without them.
    x = np.array([[0.0, 1.5, 0.0], [2.0, -1.0, 1.5]], np.float32)
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("center", [0, 1])
@pytest.mark.parametrize("with_score", [False, True])
def test_non_max_suppression(center, with_score):
    rng = np.random.default_rng(center)
    xy = rng.uniform(0, 10, (2, 8, 2))
    wh = rng.uniform(1, 5, (2, 8, 2))
    boxes = (np.concatenate([xy, wh], -1) if center else
             np.concatenate([xy, xy + wh], -1)).astype(np.float32)
    scores = rng.uniform(0, 1, (2, 3, 8)).astype(np.float32)
    inputs = {"b": boxes, "s": scores, "m": np.array([3], np.int64),
              "iou": np.array([0.3], np.float32)}
    names = ["b", "s", "m", "iou"]
    if with_score:
        inputs["st"] = np.array([0.4], np.float32)
        names.append("st")
    m = model("NonMaxSuppression", names, inputs, attrs={"center_point_box": center}, opset=11)
    check_against_ort(m, inputs)


def test_data_dependent_result_feeds_other_ops():
    """NonZero's row count is known only at run time; the interpreter fixes
    the `?` dim when it computes it, so later ops can use the result."""
    x = np.array([0.0, 1.5, 0.0, -2.0, 3.0], np.float32)
    nodes = [helper.make_node("NonZero", ["x"], ["nz"]),
             helper.make_node("Cast", ["nz"], ["c"], to=1),
             helper.make_node("Add", ["c", "c"], ["y"])]
    check_against_ort(make_model(nodes, {"x": x}, ["y"], opset=13), {"x": x})
