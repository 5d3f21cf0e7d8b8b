"""top.Resize's cubic / antialias / exclude_outside / tf_crop_and_resize /
half_pixel_symmetric / coordinate_scales, and the geometry ops
(GridSample, AffineGrid, Col2Im, RoiAlign, DeformConv) against the numpy
references in reference_geometry.py, on randomized data.

Tolerances: results are computed in f64 and rounded once to f32, the
references in f64: rtol 1e-5 / atol 1e-5 (DeformConv and Col2Im sum many
terms: atol 1e-4); nearest modes exact."""
import numpy as np
import pytest

from numeric_harness import COMPILED, Model, mlir_type, run_ok
import reference_geometry as ref


def arr(a):
    return ", ".join(str(int(v)) for v in a)


def farr(a):
    return ", ".join(repr(float(v)) for v in a)


def run(inputs, line, out_dtype=np.float32):
    """Runs one op `%y = ...` whose result type is left unranked."""
    m = Model(inputs, {})
    t = "tensor<*x" + mlir_type((), out_dtype)[7:]
    m.op(line.replace("RESULT", t))
    return run_ok(m, [("%y", "y", t)])["y"]


# ---------------------------------------------------------------------------
# Resize extensions
# ---------------------------------------------------------------------------

RESIZE_CASES = [
    # (input shape, output sizes or None, scales or None)
    ((1, 2, 5, 6), None, (1.0, 1.0, 0.6, 1.7)),
    ((1, 1, 8, 7), None, (1.0, 1.0, 0.25, 0.4)),     # strong downsampling
    ((2, 3, 4), (2, 3, 9), None),
    ((1, 1, 3, 4, 5), (1, 1, 2, 6, 3), None),         # 3 resized dims
    ((1, 1, 1, 4), (1, 1, 3, 2), None),               # size-1 dims
]
CTMS = ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric"]


def resize_line(shape, sizes, scales, extra, dtype=np.float32):
    attrs = list(extra)
    if sizes is not None:
        attrs.append(f"sizes = array<i64: {arr(sizes)}>")
    if scales is not None:
        attrs.append(f"scales = array<f64: {farr(scales)}>")
    return f"%y = top.Resize(%x) {{{', '.join(attrs)}}} : ({mlir_type(shape, dtype)}) -> RESULT"


def out_shape(shape, sizes, scales):
    return list(sizes) if sizes is not None else [int(np.floor(d * s)) for d, s in zip(shape, scales)]


@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("exclude", [False, True])
@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize("ctm", CTMS)
@pytest.mark.parametrize("case", range(len(RESIZE_CASES)), ids=str)
def test_resize_filters(case, ctm, mode, exclude, antialias, rng):
    shape, sizes, scales = RESIZE_CASES[case]
    x = rng.standard_normal(shape).astype(np.float32)
    attrs = [f'mode = #top.interpolation<{mode}>', f'coordinate_transformation_mode = #top.coordinate_mode<{ctm}>',
             f"exclude_outside = {str(exclude).lower()}", f"antialias = {str(antialias).lower()}"]
    out = run({"x": x}, resize_line(shape, sizes, scales, attrs))
    expect = ref.resize(x, out_shape(shape, sizes, scales), scales, mode=mode, ctm=ctm,
                        exclude=exclude, antialias=antialias)
    assert out.shape == expect.shape
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


def test_resize_cubic_coeff(rng):
    x = rng.standard_normal((1, 1, 4, 4)).astype(np.float32)
    attrs = ['mode = #top.interpolation<cubic>', "cubic_coeff_a = -5.000000e-01 : f64", "exclude_outside = true"]
    out = run({"x": x}, resize_line(x.shape, None, (1, 1, 2.0, 0.75), attrs))
    expect = ref.resize(x, [1, 1, 8, 3], [1, 1, 2.0, 0.75], mode="cubic", a=-0.5, exclude=True)
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)
    # a different coefficient gives a different result: the attribute is used
    plain = ref.resize(x, [1, 1, 8, 3], [1, 1, 2.0, 0.75], mode="cubic", exclude=True)
    assert not np.allclose(plain, expect, atol=1e-3)


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_tf_crop_and_resize(mode, rng):
    x = rng.standard_normal((1, 2, 6, 5)).astype(np.float32)
    roi = [0.0, 0.0, -0.2, 0.3, 1.0, 1.0, 0.7, 1.4]
    attrs = [f'mode = #top.interpolation<{mode}>', 'coordinate_transformation_mode = #top.coordinate_mode<tf_crop_and_resize>',
             f"roi = array<f64: {farr(roi)}>", "extrapolation_value = 2.500000e+00 : f64"]
    out = run({"x": x}, resize_line(x.shape, (1, 2, 7, 4), None, attrs))
    expect = ref.resize(x, [1, 2, 7, 4], None, extrapolation=2.5, roi=roi, mode=mode,
                        ctm="tf_crop_and_resize")
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)
    assert (out == 2.5).any() and (out != 2.5).any()


def test_resize_coordinate_scales(rng):
    """keep_aspect_ratio_policy: sizes rounded from one scale that drives the
    mapping; differs from out / in."""
    x = rng.standard_normal((1, 1, 2, 5)).astype(np.float32)
    attrs = ['mode = #top.interpolation<linear>', "coordinate_scales = array<f64: 1.0, 1.0, 0.75, 0.75>"]
    out = run({"x": x}, resize_line(x.shape, (1, 1, 2, 4), None, attrs))
    expect = ref.resize(x, [1, 1, 2, 4], [1, 1, 0.75, 0.75], mode="linear")
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)
    assert not np.allclose(out, ref.resize(x, [1, 1, 2, 4], None, mode="linear"), atol=1e-3)


def test_resize_cubic_int_truncates(rng):
    x = rng.integers(-50, 50, (1, 1, 3, 3)).astype(np.int32)
    out = run({"x": x}, resize_line(x.shape, (1, 1, 5, 4), None, ['mode = #top.interpolation<cubic>'], np.int32), np.int32)
    expect = ref.resize(x, [1, 1, 5, 4], None, mode="cubic")
    np.testing.assert_array_equal(out, np.trunc(expect).astype(np.int32))


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_resize_uint8_saturates(mode, rng):
    """Cubic overshoot beyond [0, 255] saturates; results are truncated."""
    x = rng.choice(np.array([0, 255], np.uint8), (1, 1, 4, 4))
    out = run({"x": x}, resize_line(x.shape, (1, 1, 7, 9), None, [f'mode = #top.interpolation<{mode}>'], np.uint8),
              np.uint8)
    expect = ref.resize(x.astype(np.float64), [1, 1, 7, 9], None, mode=mode)
    np.testing.assert_array_equal(out, np.trunc(np.clip(expect, 0, 255)).astype(np.uint8))


# ---------------------------------------------------------------------------
# GridSample, AffineGrid
# ---------------------------------------------------------------------------

GRID_CASES = [((2, 3, 4, 5), (2, 3, 6, 2)), ((1, 2, 3, 4, 2), (1, 2, 3, 2, 3)), ((1, 2, 5), (1, 4, 1))]


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
@pytest.mark.parametrize("case", range(len(GRID_CASES)), ids=str)
def test_grid_sample(case, mode, padding, align, rng):
    xs, gs = GRID_CASES[case]
    x = rng.standard_normal(xs).astype(np.float32)
    grid = rng.uniform(-1.6, 1.6, gs).astype(np.float32)   # some points outside
    line = (f'%y = top.GridSample(%x, %g) {{mode = #top.interpolation<{mode}>, padding_mode = #top.grid_padding<{padding}>, '
            f"align_corners = {str(align).lower()}}} : ({mlir_type(xs, np.float32)}, "
            f"{mlir_type(gs, np.float32)}) -> RESULT")
    out = run({"x": x, "g": grid}, line)
    expect = ref.grid_sample(x, grid, mode, padding, align)
    assert out.shape == expect.shape
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 3, 1, 4), (2, 1, 1, 3)])
def test_affine_grid(size, align, rng):
    r = len(size) - 2
    theta = rng.standard_normal((size[0], r, r + 1)).astype(np.float32)
    line = (f"%y = top.AffineGrid(%t) {{size = array<i64: {arr(size)}>, align_corners = "
            f"{str(align).lower()}}} : ({mlir_type(theta.shape, np.float32)}) -> RESULT")
    out = run({"t": theta}, line)
    np.testing.assert_allclose(out, ref.affine_grid(theta, size, align), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Col2Im, RoiAlign, DeformConv
# ---------------------------------------------------------------------------

COL2IM_CASES = [
    # (N, C, image, block, strides, pads, dilations)
    (1, 2, (5, 5), (2, 2), None, None, None),
    (2, 1, (6, 7), (3, 2), (2, 1), (1, 0, 1, 2), (1, 2)),
    (1, 3, (3, 4, 5), (2, 1, 2), (1, 2, 1), None, (1, 1, 2)),
    (1, 1, (7,), (3,), (2,), (2, 1), None),
]


@pytest.mark.parametrize("case", range(len(COL2IM_CASES)), ids=str)
def test_col2im(case, rng):
    n, c, image, block, strides, pads, dil = COL2IM_CASES[case]
    r = len(image)
    s, p, d = strides or [1] * r, pads or [0] * (2 * r), dil or [1] * r
    nb = [(image[i] + p[i] + p[r + i] - d[i] * (block[i] - 1) - 1) // s[i] + 1 for i in range(r)]
    x = rng.standard_normal((n, c * int(np.prod(block)), int(np.prod(nb)))).astype(np.float32)
    attrs = [f"image_shape = array<i64: {arr(image)}>", f"block_shape = array<i64: {arr(block)}>"]
    for name, v in (("strides", strides), ("pads", pads), ("dilations", dil)):
        if v is not None:
            attrs.append(f"{name} = array<i64: {arr(v)}>")
    out = run({"x": x}, f"%y = top.Col2Im(%x) {{{', '.join(attrs)}}} : ({mlir_type(x.shape, np.float32)}) -> RESULT")
    np.testing.assert_allclose(out, ref.col2im(x, image, block, strides, pads, dil), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("half_pixel", [True, False])
@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("sampling_ratio", [0, 2])
def test_roi_align(sampling_ratio, mode, half_pixel, rng):
    x = rng.standard_normal((2, 3, 8, 9)).astype(np.float32)
    rois = np.array([[0.5, 1.0, 6.0, 7.5], [-2.0, -1.0, 3.0, 2.0], [4.0, 3.0, 4.2, 3.1],
                     [1.0, 2.0, 17.0, 15.0]], np.float32)
    batch = np.array([0, 1, 1, 0], np.int64)
    ctm = "half_pixel" if half_pixel else "output_half_pixel"
    line = (f'%y = top.RoiAlign(%x, %r, %b) {{coordinate_transformation_mode = #top.roi_coordinate_mode<{ctm}>, mode = #top.roi_pool_mode<{mode}>, '
            f"output_height = 3 : i64, output_width = 2 : i64, sampling_ratio = {sampling_ratio} : i64, "
            f"spatial_scale = 5.000000e-01 : f64}} : ({mlir_type(x.shape, np.float32)}, "
            f"{mlir_type(rois.shape, np.float32)}, {mlir_type(batch.shape, np.int64)}) -> RESULT")
    out = run({"x": x, "r": rois, "b": batch}, line)
    expect = ref.roi_align(x, rois, batch, 3, 2, sampling_ratio, 0.5, mode, half_pixel)
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not COMPILED, reason="the interpreter reports the index")
def test_roi_align_batch_index_clamped_when_compiled(rng):
    """Compiled code clamps an out-of-range batch index into [0, N) instead
    of reading outside the input (docs/codegen-misc.md)."""
    x = rng.standard_normal((2, 3, 8, 9)).astype(np.float32)
    rois = np.array([[0.5, 1.0, 6.0, 7.5], [1.0, 2.0, 5.0, 6.0]], np.float32)
    batch = np.array([7, -3], np.int64)
    line = (f"%y = top.RoiAlign(%x, %r, %b) {{output_height = 2 : i64, output_width = 2 : i64}} : "
            f"({mlir_type(x.shape, np.float32)}, {mlir_type(rois.shape, np.float32)}, "
            f"{mlir_type(batch.shape, np.int64)}) -> RESULT")
    out = run({"x": x, "r": rois, "b": batch}, line)
    expect = ref.roi_align(x, rois, np.clip(batch, 0, 1), 2, 2, 0, 1.0, "avg", True)
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5)


DEFORM_CASES = [
    # (N, C, H, W, M, k, strides, pads, dilations, group, offset_group, bias, mask)
    (1, 2, 5, 5, 3, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, 1, True, False),
    (2, 4, 6, 5, 4, (2, 2), (2, 1), (0, 1, 1, 0), (1, 2), 2, 2, False, True),
    (1, 2, 4, 4, 2, (1, 2), (1, 1), (0, 0, 0, 0), (1, 1), 1, 2, True, True),
]


@pytest.mark.parametrize("case", range(len(DEFORM_CASES)), ids=str)
def test_deform_conv(case, rng):
    n, c, h, w, m, k, s, p, d, g, og, has_b, has_m = DEFORM_CASES[case]
    oh = (h + p[0] + p[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + p[1] + p[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((m, c // g, *k)).astype(np.float32)
    off = rng.uniform(-2, 2, (n, og * k[0] * k[1] * 2, oh, ow)).astype(np.float32)
    b = rng.standard_normal((m,)).astype(np.float32)
    mask = rng.uniform(0, 1, (n, og * k[0] * k[1], oh, ow)).astype(np.float32)
    inputs = {"x": x, "w": wt, "o": off}
    types = [mlir_type(a.shape, np.float32) for a in (x, wt, off)]
    operands = ["%x", "%w", "%o"]
    for flag, name, a in ((has_b, "b", b), (has_m, "m", mask)):
        if flag:
            inputs[name] = a
            operands.append("%" + name)
            types.append(mlir_type(a.shape, np.float32))
        else:
            operands.append("%none")
            types.append("none")
    line = (f"%y = top.DeformConv({', '.join(operands)}) {{strides = array<i64: {arr(s)}>, "
            f"pads = array<i64: {arr(p)}>, dilations = array<i64: {arr(d)}>, group = {g} : i64, "
            f"offset_group = {og} : i64}} : ({', '.join(types)}) -> RESULT")
    out = run(inputs, line)
    expect = ref.deform_conv(x, wt, off, b if has_b else None, mask if has_m else None, s, p, d, g, og)
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-4)


def test_deform_conv_non_finite_offsets(rng):
    """A NaN or infinite offset puts the tap outside the image: it samples 0
    (the reference gets the same from a far-away finite offset)."""
    x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    wt = rng.standard_normal((3, 2, 2, 2)).astype(np.float32)
    off = rng.uniform(-1, 1, (1, 8, 4, 4)).astype(np.float32)
    off[0, 0, 0, 0] = np.nan
    off[0, 3, 1, 2] = np.inf
    off[0, 4, 2, 2] = -np.inf
    far = np.where(np.isfinite(off), off, np.float32(1e6))
    line = ("%y = top.DeformConv(%x, %w, %o, %none, %none) {pads = array<i64: 1, 1, 0, 0>} : "
            "(tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32>, tensor<1x8x4x4xf32>, none, none) -> RESULT")
    out = run({"x": x, "w": wt, "o": off}, line)
    expect = ref.deform_conv(x, wt, far, None, None, (1, 1), (1, 1, 0, 0), (1, 1), 1, 1)
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("exclude", [False, True])
def test_resize_far_outside_coordinates(exclude, rng):
    """A tiny mapping scale sends coordinates to ~1e300: edge values (0 with
    exclude_outside), no overflow."""
    x = rng.standard_normal((1, 1, 1, 4)).astype(np.float32)
    attrs = ['mode = #top.interpolation<cubic>', 'coordinate_transformation_mode = #top.coordinate_mode<asymmetric>',
             f"exclude_outside = {str(exclude).lower()}",
             "coordinate_scales = array<f64: 1.0, 1.0, 1.0, 1.0e-300>"]
    out = run({"x": x}, resize_line(x.shape, (1, 1, 1, 3), None, attrs))
    edge = 0.0 if exclude else x[0, 0, 0, 3]
    np.testing.assert_allclose(out[0, 0, 0], [x[0, 0, 0, 0], edge, edge], rtol=1e-6, atol=1e-6)
