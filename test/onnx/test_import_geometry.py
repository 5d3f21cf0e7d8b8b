"""ONNX import of Resize's cubic/antialias/tf_crop_and_resize/aspect-ratio
features, GridSample, AffineGrid, Col2Im, RoiAlign and DeformConv, run
against ONNX Runtime. Where ONNX Runtime lacks the op (DeformConv) or
disagrees with the ONNX reference implementation that generated the ONNX
backend test data, the comparison is with the onnx package's reference
evaluator instead:
- Resize align_corners with a fractional output length (`scale * in`): the
  reference divides by `scale * in - 1`, ONNX Runtime by `out - 1`;
- Resize nearest half_pixel_symmetric when downsampling;
- GridSample cubic with border padding.
Inputs avoid exact rounding ties (the reference computes some coordinates in
float32, Strata in f64)."""
import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from onnx_harness import check_against_ort, import_error, make_model, run_strata

RNG = np.random.default_rng(7)


def randf(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def check_against_reference(model, inputs, rtol=1e-4, atol=1e-5):
    code, got, err = run_strata(model, inputs)
    assert code == 0, err
    want = ReferenceEvaluator(model).run(None, inputs)[0]
    assert got["y"].shape == want.shape
    np.testing.assert_allclose(got["y"], want, rtol=rtol, atol=atol)


def single(op, inputs, attrs=None, inits=None, opset=19, names=None):
    names = names if names is not None else list(inputs) + list(inits or {})
    node = helper.make_node(op, names, ["y"], **(attrs or {}))
    return make_model([node], inputs, ["y"], inits, opset)


# ---------------------------------------------------------------------------
# Resize
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("attrs", [
    {"mode": "cubic"},
    {"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1},
    {"mode": "cubic", "coordinate_transformation_mode": "align_corners"},
    {"mode": "cubic", "coordinate_transformation_mode": "asymmetric"},
    {"mode": "cubic", "antialias": 1},
    {"mode": "linear", "antialias": 1},
    {"mode": "linear", "antialias": 1, "coordinate_transformation_mode": "pytorch_half_pixel"},
    {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"},
    {"mode": "nearest", "coordinate_transformation_mode": "half_pixel_symmetric"},
], ids=str)
@pytest.mark.parametrize("scales", [[1, 1, 0.6, 0.35], [1, 1, 1.7, 2.0]], ids=["down", "up"])
def test_resize_filters(attrs, scales):
    x = randf(1, 2, 7, 9)
    inits = {"roi": np.zeros(0, np.float32), "scales": np.array(scales, np.float32)}
    m = single("Resize", {"x": x}, attrs, inits)
    ctm = attrs.get("coordinate_transformation_mode")
    if ctm == "align_corners" or (ctm == "half_pixel_symmetric" and attrs["mode"] == "nearest"):
        check_against_reference(m, {"x": x})
    else:
        check_against_ort(m, {"x": x})


@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
def test_resize_tf_crop_and_resize(mode):
    x = randf(1, 1, 6, 5)
    inits = {"roi": np.array([0.13, -0.21, 0.94, 0.83], np.float32), "sizes": np.array([4, 7], np.int64)}
    m = single("Resize", {"x": x}, {"mode": mode, "coordinate_transformation_mode": "tf_crop_and_resize",
                                    "extrapolation_value": 7.5, "axes": [2, 3]},
               inits, names=["x", "roi", "", "sizes"])
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("policy", ["not_larger", "not_smaller"])
@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_resize_keep_aspect_ratio(policy, mode):
    x = randf(1, 1, 2, 4)
    inits = {"sizes": np.array([3, 3], np.int64)}
    m = single("Resize", {"x": x}, {"mode": mode, "keep_aspect_ratio_policy": policy, "axes": [2, 3]},
               inits, names=["x", "", "", "sizes"])
    check_against_ort(m, {"x": x})


def test_resize_runtime_scales():
    x = randf(1, 1, 2, 3)
    inputs = {"x": x, "sc": np.array([1, 1, 2, 0.7], np.float32)}
    m = single("Resize", inputs, {"mode": "linear"}, names=["x", "", "sc"])
    check_against_ort(m, inputs)


@pytest.mark.parametrize("axes", [[2, 3], [3, 2]])
def test_resize_runtime_sizes_with_axes(axes):
    x = randf(1, 2, 3, 4)
    inputs = {"x": x, "sz": np.array([5, 2], np.int64)}
    m = single("Resize", inputs, {"mode": "cubic", "axes": axes}, names=["x", "", "", "sz"])
    check_against_ort(m, inputs)


def test_resize_non_constant_roi_names_the_value():
    x = randf(1, 1, 2, 2)
    m = single("Resize", {"x": x, "r": np.array([0, 0, 0, 0, 1, 1, 1, 1], np.float32)},
               {"coordinate_transformation_mode": "tf_crop_and_resize"},
               {"sz": np.array([1, 1, 3, 3], np.int64)}, names=["x", "r", "", "sz"])
    err = import_error(m)
    assert "the 'roi' input (value 'r') must be a constant" in err


def test_resize_antialias_nearest_is_an_error():
    x = randf(1, 1, 4, 4)
    inits = {"roi": np.zeros(0, np.float32), "scales": np.array([1, 1, 0.5, 0.5], np.float32)}
    err = import_error(single("Resize", {"x": x}, {"antialias": 1}, inits))
    assert "antialias" in err and "nearest" in err


# ---------------------------------------------------------------------------
# GridSample, AffineGrid
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_opset16(mode, padding, align):
    x = randf(2, 3, 5, 6)
    grid = RNG.uniform(-1.4, 1.4, (2, 4, 3, 2)).astype(np.float32)
    m = single("GridSample", {"x": x, "g": grid},
               {"mode": mode, "padding_mode": padding, "align_corners": align}, opset=16)
    if mode == "bicubic" and padding == "border":
        # the reference evaluator knows only the opset-20 name "cubic"
        code, got16, err = run_strata(m, {"x": x, "g": grid})
        assert code == 0, err
        m = single("GridSample", {"x": x, "g": grid},
                   {"mode": "cubic", "padding_mode": padding, "align_corners": align}, opset=20)
        check_against_reference(m, {"x": x, "g": grid})
        _, got20, _ = run_strata(m, {"x": x, "g": grid})
        np.testing.assert_array_equal(got16["y"], got20["y"])
    else:
        check_against_ort(m, {"x": x, "g": grid})


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("mode", ["linear", "nearest"])
def test_grid_sample_volumetric(mode, align):
    x = randf(1, 2, 3, 4, 5)
    grid = RNG.uniform(-1.2, 1.2, (1, 2, 3, 2, 3)).astype(np.float32)
    m = single("GridSample", {"x": x, "g": grid}, {"mode": mode, "align_corners": align}, opset=20)
    check_against_ort(m, {"x": x, "g": grid})


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("size", [[2, 3, 4, 5], [1, 2, 3, 4, 2]])
def test_affine_grid(size, align):
    r = len(size) - 2
    theta = randf(size[0], r, r + 1)
    m = single("AffineGrid", {"t": theta}, {"align_corners": align},
               {"size": np.array(size, np.int64)}, opset=20)
    check_against_ort(m, {"t": theta})


def test_affine_grid_size_must_be_constant():
    theta = randf(1, 2, 3)
    m = single("AffineGrid", {"t": theta, "s": np.array([1, 1, 2, 2], np.int64)}, opset=20)
    assert "the 'size' input (value 's') must be a constant" in import_error(m)


# ---------------------------------------------------------------------------
# Col2Im, RoiAlign, DeformConv
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("attrs,image,block,blocks", [
    ({}, [5, 5], [2, 2], 16),
    ({"strides": [2, 1], "pads": [1, 0, 1, 1], "dilations": [1, 2]}, [6, 5], [2, 2], 4 * 4),
    ({}, [3, 4, 2], [2, 2, 1], 2 * 3 * 2),
])
def test_col2im(attrs, image, block, blocks):
    x = randf(2, 3 * int(np.prod(block)), blocks)
    inits = {"i": np.array(image, np.int64), "b": np.array(block, np.int64)}
    check_against_ort(single("Col2Im", {"x": x}, attrs, inits, opset=18), {"x": x})


@pytest.mark.parametrize("ctm", ["half_pixel", "output_half_pixel"])
@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("sampling_ratio", [0, 2])
def test_roi_align(ctm, mode, sampling_ratio):
    x = randf(2, 3, 10, 8)
    rois = np.array([[0.0, 0.0, 7.0, 9.0], [1.5, 2.0, 4.0, 6.5], [-1.1, 3.0, 5.0, 12.0]], np.float32)
    batch = np.array([1, 0, 1], np.int64)
    m = single("RoiAlign", {"x": x, "r": rois, "b": batch},
               {"coordinate_transformation_mode": ctm, "mode": mode, "output_height": 3,
                "output_width": 4, "sampling_ratio": sampling_ratio, "spatial_scale": 0.8}, opset=16)
    check_against_ort(m, {"x": x, "r": rois, "b": batch})


def test_roi_align_bad_batch_index():
    x = randf(1, 1, 4, 4)
    rois = np.array([[0, 0, 2, 2]], np.float32)
    batch = np.array([3], np.int64)
    m = single("RoiAlign", {"x": x, "r": rois, "b": batch}, opset=16)
    code, _, err = run_strata(m, {"x": x, "r": rois, "b": batch})
    assert code != 0 and "batch_indices[0] = 3 is out of range [0, 1)" in err


@pytest.mark.parametrize("group,offset_group,with_mask,with_bias", [
    (1, 1, False, False), (2, 2, True, True), (1, 2, True, False)])
def test_deform_conv(group, offset_group, with_mask, with_bias):
    x = randf(1, 4, 5, 6)
    w = randf(4, 4 // group, 2, 3)
    oh, ow = 5 + 1 - 2 + 1, (6 - 3) // 2 + 1
    off = RNG.uniform(-1.5, 1.5, (1, offset_group * 6 * 2, oh, ow)).astype(np.float32)
    inputs = {"x": x, "w": w, "o": off}
    names = ["x", "w", "o", "", ""]
    if with_bias:
        inputs["b"] = randf(4)
        names[3] = "b"
    if with_mask:
        inputs["m"] = RNG.uniform(0, 1, (1, offset_group * 6, oh, ow)).astype(np.float32)
        names[4] = "m"
    m = single("DeformConv", inputs, {"group": group, "offset_group": offset_group,
                                      "kernel_shape": [2, 3], "pads": [1, 0, 0, 0], "strides": [1, 2]},
               opset=19, names=names)
    code, got, err = run_strata(m, inputs)
    assert code == 0, err
    np.testing.assert_allclose(got["y"], ReferenceEvaluator(m).run(None, inputs)[0],
                               rtol=1e-4, atol=1e-4)
