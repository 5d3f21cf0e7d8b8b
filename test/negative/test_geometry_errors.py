"""Bad Resize / GridSample / AffineGrid / Col2Im / RoiAlign / DeformConv
models and inputs: `strata import` or `strata run-ref` exits non-zero with a
message naming the node or op, the field and the value, and never crashes."""
import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from negative_harness import assert_clean_failure, strata


def model(op, inputs, attrs=None, inits=None, opset=19, names=None):
    """A one-node model; `inputs` name -> array are graph inputs."""
    inits = inits or {}
    names = names if names is not None else list(inputs) + list(inits)
    node = helper.make_node(op, names, ["y"], name="n0", **(attrs or {}))
    g_in = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in inputs.items()]
    graph = helper.make_graph([node], "g", g_in, [helper.make_empty_tensor_value_info("y")],
                              [numpy_helper.from_array(a, n) for n, a in inits.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m


def import_model(m, tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    return strata("import", path, "-o", tmp_path, "--name", "m")


X = np.zeros((1, 1, 4, 4), np.float32)
EMPTY = np.zeros(0, np.float32)


@pytest.mark.parametrize("attrs,inits,fragments", [
    ({"mode": "bicubic"}, {"roi": EMPTY, "scales": np.array([1, 1, 2, 2], np.float32)},
     ["node 'n0' (Resize", "attribute 'mode' = 'bicubic' is invalid"]),
    ({"mode": "nearest", "antialias": 1}, {"roi": EMPTY, "scales": np.array([1, 1, .5, .5], np.float32)},
     ["attribute 'antialias' = 1 requires mode 'linear' or 'cubic'"]),
    ({"antialias": 2, "mode": "linear"}, {"roi": EMPTY, "scales": np.array([1, 1, .5, .5], np.float32)},
     ["attribute 'antialias' = 2 is invalid"]),
    ({"coordinate_transformation_mode": "tf_crop_and_resize"},
     {"roi": EMPTY, "scales": np.array([1, 1, 2, 2], np.float32)},
     ["'tf_crop_and_resize' requires the 'roi' input"]),
    ({"coordinate_transformation_mode": "tf_crop_and_resize"},
     {"roi": np.array([0, 1], np.float32), "scales": np.array([1, 1, 2, 2], np.float32)},
     ["'roi' has 2 values, expected 8"]),
    ({"mode": "linear"}, {"roi": EMPTY, "scales": np.array([1, 1, 2, -2], np.float32)},
     ["'scales' value -2.000000e+00 must be finite and positive"]),
    ({"axes": [2, 2]}, {"roi": EMPTY, "scales": np.array([2, 2], np.float32)},
     ["attribute 'axes' repeats axis 2"]),
    ({"keep_aspect_ratio_policy": "fit", "axes": [2, 3]}, {"sizes": np.array([2, 2], np.int64)},
     ["attribute 'keep_aspect_ratio_policy' = 'fit' is invalid"]),
])
def test_resize_bad_attributes(tmp_path, attrs, inits, fragments):
    names = ["x", "roi", "scales"] if "scales" in inits else ["x", "", "", "sizes"]
    r = import_model(model("Resize", {"x": X}, attrs, inits, names=names), tmp_path)
    assert_clean_failure(r, *fragments)


def test_resize_graph_input_sizes_with_aspect_policy(tmp_path):
    m = model("Resize", {"x": X, "s": np.array([2, 2], np.int64)},
              {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"}, names=["x", "", "", "s"])
    assert_clean_failure(import_model(m, tmp_path),
                         "the 'sizes' input (value 's') must be a constant", "--freeze-inputs")


@pytest.mark.parametrize("op,inputs,attrs,inits,opset,fragments", [
    ("GridSample", {"x": X, "g": np.zeros((1, 2, 2, 2), np.float32)}, {"mode": "linear"}, None, 16,
     ["(GridSample, opset 16): attribute 'mode' = 'linear' is invalid (bilinear, nearest or bicubic)"]),
    ("GridSample", {"x": X, "g": np.zeros((1, 2, 2, 2), np.float32)}, {"padding_mode": "wrap"}, None, 20,
     ["attribute 'padding_mode' = 'wrap' is invalid"]),
    ("GridSample", {"x": X, "g": np.zeros((1, 2, 2, 3), np.float32)}, {}, None, 20,
     ["grid shape [1, 2, 2, 3] must be [N = 1, 2 output spatial dims, 2]"]),
    ("GridSample", {"x": X, "g": np.zeros((1, 2, 2, 2), np.float32)}, {"align_corners": 3}, None, 20,
     ["attribute 'align_corners' = 3 is invalid (0 or 1)"]),
    ("AffineGrid", {"t": np.zeros((1, 2, 3), np.float32)}, {},
     {"s": np.array([2, 1, 4, 4], np.int64)}, 20, ["attribute 'size' batch 2 must equal theta's batch 1"]),
    ("Col2Im", {"x": np.zeros((1, 4, 5), np.float32)}, {},
     {"i": np.array([3, 3], np.int64), "b": np.array([2, 2], np.int64)}, 18,
     ["input dim 2 (5) must equal the number of sliding blocks [2, 2] = 4"]),
    ("Col2Im", {"x": np.zeros((1, 4, 4), np.float32)}, {"strides": [0, 1]},
     {"i": np.array([3, 3], np.int64), "b": np.array([2, 2], np.int64)}, 18,
     ["attribute 'strides' value 0 at index 0 must be >= 1"]),
    ("RoiAlign", {"x": X, "r": np.zeros((2, 4), np.float32), "b": np.zeros(2, np.int64)},
     {"mode": "median"}, None, 16, ["attribute 'mode' must be one of \"avg\", \"max\", got \"median\""]),
    ("RoiAlign", {"x": X, "r": np.zeros((2, 4), np.float32), "b": np.zeros(2, np.int64)},
     {"sampling_ratio": 100000}, None, 16, ["attribute 'sampling_ratio' = 100000 must be in [0, 4096]"]),
    ("DeformConv", {"x": X, "w": np.zeros((2, 1, 2, 2), np.float32), "o": np.zeros((1, 8, 2, 2), np.float32)},
     {}, None, 19, ["offset shape [1, 8, 2, 2] must be [1, 8, 3, 3]"]),
    ("DeformConv", {"x": X, "w": np.zeros((2, 1, 2, 2), np.float32), "o": np.zeros((1, 8, 3, 3), np.float32)},
     {"kernel_shape": [3, 3]}, None, 19, ["attribute 'kernel_shape' [3, 3] does not match the weight shape"]),
])
def test_geometry_bad_models(tmp_path, op, inputs, attrs, inits, opset, fragments):
    r = import_model(model(op, inputs, attrs, inits, opset), tmp_path)
    assert_clean_failure(r, op, *fragments)


def test_roi_align_batch_index_out_of_range(tmp_path):
    m = model("RoiAlign", {"x": X, "r": np.zeros((1, 4), np.float32), "b": np.zeros(1, np.int64)}, {},
              opset=16)
    assert import_model(m, tmp_path).returncode == 0
    np.savez(tmp_path / "in.npz", x=X, r=np.array([[0, 0, 2, 2]], np.float32), b=np.array([-1], np.int64))
    r = strata("run-ref", tmp_path / "m_origin.mlir", "--input", tmp_path / "in.npz",
               "--output", tmp_path / "out.npz")
    assert_clean_failure(r, "top.RoiAlign", "batch_indices[0] = -1 is out of range [0, 1)")


def test_grid_sample_non_finite_grid_gives_nan(tmp_path):
    """NaN / huge grid coordinates are data, not errors: no crash, NaN out."""
    m = model("GridSample", {"x": X, "g": np.zeros((1, 1, 3, 2), np.float32)},
              {"mode": "nearest", "padding_mode": "reflection"}, opset=20)
    assert import_model(m, tmp_path).returncode == 0
    g = np.array([[[[np.nan, 0], [1e30, -1e30], [np.inf, 0]]]], np.float32)
    np.savez(tmp_path / "in.npz", x=np.ones_like(X), g=g)
    r = strata("run-ref", tmp_path / "m_origin.mlir", "--input", tmp_path / "in.npz",
               "--output", tmp_path / "out.npz")
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "out.npz")["y"]
    assert np.isnan(y[0, 0, 0, 0]) and y[0, 0, 0, 1] == 1.0 and np.isnan(y[0, 0, 0, 2])
