//===- TopGeometryOps.td - sampling grids, RoI and patch ops -*- tablegen -*-===//
//
// Image-geometry ops: resampling at data-dependent positions (GridSample,
// RoiAlign, DeformConv), building sampling grids (AffineGrid) and folding
// patches back into images (Col2Im). Layout is channel-first (N, C, spatial
// dims...). Interpolation runs in f64; results are cast to the output's
// element type. top.Resize (a regular grid) lives in TopNNOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_GEOMETRY_OPS
#define STRATA_TOP_GEOMETRY_OPS

def Top_GridSampleOp : Top_Op<"GridSample", [Pure]> {
  let summary = "Samples an image at normalized grid positions (ONNX)";
  let description = [{
    `input` is `N x C x D1 x ... x Dr` (r >= 1 spatial dims), `grid` is
    `N x H1 x ... x Hr x r`; the output is `N x C x H1 x ... x Hr`. The last
    grid dim holds normalized coordinates in `[-1, 1]`, the first entry for
    the LAST spatial dim (x, then y, then z). A coordinate `g` on a dim of
    size `len` maps to the pixel coordinate
    - `align_corners = true`: `(g + 1) / 2 * (len - 1)` (-1 and 1 are the
      centres of the corner pixels);
    - `align_corners = false` (default): `((g + 1) * len - 1) / 2` (-1 and 1
      are the outer edges of the corner pixels).

    `mode`: `"linear"` (default; N-linear), `"nearest"` (round half to
    even) or `"cubic"` (Keys kernel with a = -0.75 on 4 pixels per dim).
    `padding_mode` says what lies outside the image: `"zeros"` (default),
    `"border"` (coordinates clamped to the image, and so are sample
    indices), `"reflection"` (coordinates and sample indices reflected at
    the borders: the pixel edges, or the corner centres with
    align_corners).
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$grid,
    Top_DefaultEnum<Top_InterpolationAttr, "Linear">:$mode,
    Top_DefaultEnum<Top_GridPaddingAttr, "Zeros">:$padding_mode,
    DefaultValuedAttr<BoolAttr, "false">:$align_corners
  );
  let results = (outs Top_Tensor:$output);
}

def Top_AffineGridOp : Top_Op<"AffineGrid", [Pure]> {
  let summary = "Sampling grid of an affine transform (ONNX AffineGrid)";
  let description = [{
    `theta` is `N x 2 x 3` (2-d) or `N x 3 x 4` (3-d) and `size` the
    target shape `[N, C, H, W]` or `[N, C, D, H, W]`. The output is the
    `N x H x W x 2` (or `N x D x H x W x 3`) grid for top.GridSample:
    `out[n, ..., :] = theta[n] @ [x, y, (z,) 1]` where `x, y, z` are the
    normalized coordinates of the output position along W, H, D, i.e.
    `-1 + (2 i + 1) / len` for index `i` of a dim of size `len`, or with
    `align_corners = true`, `-1 + 2 i / (len - 1)` (0 when `len == 1`).
  }];
  let arguments = (ins
    Top_Tensor:$theta,
    DenseI64ArrayAttr:$size,
    DefaultValuedAttr<BoolAttr, "false">:$align_corners
  );
  let results = (outs Top_Tensor:$output);
}

def Top_Col2ImOp : Top_Op<"Col2Im", [Pure]> {
  let summary = "Sums sliding-window columns back into an image (ONNX)";
  let description = [{
    The inverse layout of im2col. `input` is `N x (C * prod(block_shape)) x
    L` where `L` is the number of sliding blocks of shape `block_shape` over
    the padded image of shape `image_shape` (r >= 1 dims) with `strides`,
    `dilations` (default all 1) and `pads` (2r values, all begins then all
    ends; default 0). The output `N x C x image_shape...` is zero
    everywhere, plus, for every block `l` and kernel offset `k`, the column
    value `input[n, c * K + k, l]` added at the image position it covers
    (positions in the padding are dropped).
  }];
  let arguments = (ins
    Top_Tensor:$input,
    DenseI64ArrayAttr:$image_shape,
    DenseI64ArrayAttr:$block_shape,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$dilations
  );
  let results = (outs Top_Tensor:$output);
}

def Top_RoiAlignOp : Top_Op<"RoiAlign", [Pure]> {
  let summary = "Bilinear pooling of regions of interest (ONNX RoiAlign)";
  let description = [{
    `input` is `N x C x H x W`, `rois` is `R x 4` (`x1, y1, x2, y2` in input
    coordinates before `spatial_scale`), `batch_indices` (`R`, integers in
    `[0, N)`) picks each region's image. The output is `R x C x
    output_height x output_width`. Each region, scaled by `spatial_scale`
    and shifted by -0.5 when `coordinate_transformation_mode` is
    `"half_pixel"` (default; `"output_half_pixel"` does not shift but makes
    the region at least 1 x 1), is split into output bins; each bin takes
    `sampling_ratio` (or, when 0, `ceil(bin size)`) regularly spaced
    samples per dim, each bilinearly interpolated (samples beyond one pixel
    outside the image count as 0; others are clamped to the image), and
    combines them by `mode`: `"avg"` (default, the mean) or `"max"` (the
    largest of the four weighted corner terms of each sample).
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$rois,
    Top_Tensor:$batch_indices,
    Top_DefaultEnum<Top_RoiCoordinateModeAttr, "HalfPixel">:$coordinate_transformation_mode,
    Top_DefaultEnum<Top_RoiPoolModeAttr, "Avg">:$mode,
    DefaultValuedAttr<I64Attr, "1">:$output_height,
    DefaultValuedAttr<I64Attr, "1">:$output_width,
    DefaultValuedAttr<I64Attr, "0">:$sampling_ratio,
    DefaultValuedAttr<F64Attr, "1.0">:$spatial_scale
  );
  let results = (outs Top_Tensor:$output);
}

def Top_DeformConvOp : Top_Op<"DeformConv", [Pure]> {
  let summary = "Deformable 2-d convolution (ONNX DeformConv)";
  let description = [{
    A grouped 2-d convolution (`input` `N x C x H x W`, `filter` `M x C/group
    x kH x kW`, optional `bias` `M`) whose kernel taps are moved by learned
    offsets. `offset` is `N x (offset_group * kH * kW * 2) x oH x oW` with
    `oH, oW` the usual convolution output size (`strides`, `pads` (4
    values: begins then ends), `dilations`); for output `(i, j)` and kernel
    tap `(a, b)` of offset group `g` it holds `(dy, dx)`, and the tap samples
    the input at `(i * sH - padT + a * dH + dy, j * sW - padL + b * dW + dx)`
    by bilinear interpolation (zero outside the image). Input channels are
    split evenly into `offset_group` groups. The optional `mask` (`N x
    (offset_group * kH * kW) x oH x oW`, default all ones) scales each
    sample.
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$filter,
    Top_Tensor:$offset,
    Top_TensorOrNone:$bias,
    Top_TensorOrNone:$mask,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    DefaultValuedAttr<I64Attr, "1">:$group,
    DefaultValuedAttr<I64Attr, "1">:$offset_group
  );
  let results = (outs Top_Tensor:$output);
}

#endif // STRATA_TOP_GEOMETRY_OPS
