// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of GridSample, AffineGrid, Col2Im, RoiAlign,
// DeformConv and of top.Resize's filter attributes, one case per split.

func.func @resize_tf_crop_no_roi(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{coordinate_transformation_mode "tf_crop_and_resize" requires attribute 'roi'}}
  %0 = top.Resize(%x) {coordinate_transformation_mode = #top.coordinate_mode<tf_crop_and_resize>, sizes = array<i64: 1, 2, 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_roi_length(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{attribute 'roi' must have 2 * rank = 8 values, got 4}}
  %0 = top.Resize(%x) {coordinate_transformation_mode = #top.coordinate_mode<tf_crop_and_resize>, roi = array<f64: 0.0, 0.0, 1.0, 1.0>, sizes = array<i64: 1, 2, 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_roi_nan(%x: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'roi' value nan at index 1 must be finite}}
  %0 = top.Resize(%x) {coordinate_transformation_mode = #top.coordinate_mode<tf_crop_and_resize>, roi = array<f64: 0.0, 0x7FF8000000000000>, sizes = array<i64: 4>} : (tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_antialias_nearest(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{attribute 'antialias' requires mode "linear" or "cubic", got "nearest"}}
  %0 = top.Resize(%x) {antialias = true, sizes = array<i64: 1, 2, 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_cubic_coeff(%x: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'cubic_coeff_a' = INF must be finite}}
  %0 = top.Resize(%x) {mode = #top.interpolation<cubic>, cubic_coeff_a = 0x7FF0000000000000 : f64, sizes = array<i64: 4>} : (tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_extrapolation(%x: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'extrapolation_value' = nan must be finite}}
  %0 = top.Resize(%x) {extrapolation_value = 0x7FF8000000000000 : f64, sizes = array<i64: 4>} : (tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_coordinate_scales_length(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{attribute 'coordinate_scales' must have 4 values, got 2}}
  %0 = top.Resize(%x) {coordinate_scales = array<f64: 2.0, 2.0>, sizes = array<i64: 1, 2, 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_coordinate_scales_value(%x: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'coordinate_scales' value -1.000000e+00 at index 0 must be finite and > 0}}
  %0 = top.Resize(%x) {coordinate_scales = array<f64: -1.0>, sizes = array<i64: 4>} : (tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_mode(%x: tensor<1x2x4x4xf32>, %g: tensor<1x3x3x2xf32>) {
  // expected-error @+2 {{failed to parse Top_InterpolationAttr parameter 'value'}}
  // expected-error @+1 {{unknown interpolation 'bilinear', expected one of: nearest, linear, cubic}}
  %0 = top.GridSample(%x, %g) {mode = #top.interpolation<bilinear>} : (tensor<1x2x4x4xf32>, tensor<1x3x3x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_padding(%x: tensor<1x2x4x4xf32>, %g: tensor<1x3x3x2xf32>) {
  // expected-error @+2 {{failed to parse Top_GridPaddingAttr parameter 'value'}}
  // expected-error @+1 {{unknown grid_padding 'wrap', expected one of: zeros, border, reflection}}
  %0 = top.GridSample(%x, %g) {padding_mode = #top.grid_padding<wrap>} : (tensor<1x2x4x4xf32>, tensor<1x3x3x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_int(%x: tensor<1x2x4x4xi32>, %g: tensor<1x3x3x2xf32>) {
  // expected-error @+1 {{operand 'input'}}
  %0 = top.GridSample(%x, %g) : (tensor<1x2x4x4xi32>, tensor<1x3x3x2xf32>) -> tensor<*xi32>
  return
}

// -----

func.func @grid_sample_rank(%x: tensor<2x4xf32>, %g: tensor<2x3xf32>) {
  // expected-error @+1 {{input must have rank >= 3 (N, C, spatial...), got shape [2, 4]}}
  %0 = top.GridSample(%x, %g) : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_grid_shape(%x: tensor<1x2x4x4xf32>, %g: tensor<1x3x3x3xf32>) {
  // expected-error @+1 {{grid shape [1, 3, 3, 3] must be [N = 1, 2 output spatial dims, 2] for input shape [1, 2, 4, 4]}}
  %0 = top.GridSample(%x, %g) : (tensor<1x2x4x4xf32>, tensor<1x3x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_batch(%x: tensor<2x2x4x4xf32>, %g: tensor<1x3x3x2xf32>) {
  // expected-error @+1 {{grid shape [1, 3, 3, 2] must be [N = 2, 2 output spatial dims, 2] for input shape [2, 2, 4, 4]}}
  %0 = top.GridSample(%x, %g) : (tensor<2x2x4x4xf32>, tensor<1x3x3x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @affine_grid_theta(%t: tensor<1x2x4xf32>) {
  // expected-error @+1 {{theta must have shape [N, 2, 3] or [N, 3, 4], got [1, 2, 4]}}
  %0 = top.AffineGrid(%t) {size = array<i64: 1, 1, 4, 4>} : (tensor<1x2x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @affine_grid_size_length(%t: tensor<1x3x4xf32>) {
  // expected-error @+1 {{attribute 'size' must have 5 values, got 4 [1, 1, 4, 4]}}
  %0 = top.AffineGrid(%t) {size = array<i64: 1, 1, 4, 4>} : (tensor<1x3x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @affine_grid_size_negative(%t: tensor<1x2x3xf32>) {
  // expected-error @+1 {{attribute 'size' value -4 at index 2 must be >= 0 (got [1, 1, -4, 4])}}
  %0 = top.AffineGrid(%t) {size = array<i64: 1, 1, -4, 4>} : (tensor<1x2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @affine_grid_batch(%t: tensor<2x2x3xf32>) {
  // expected-error @+1 {{attribute 'size' batch 1 must equal theta's batch 2}}
  %0 = top.AffineGrid(%t) {size = array<i64: 1, 1, 4, 4>} : (tensor<2x2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @col2im_rank(%x: tensor<8x12xf32>) {
  // expected-error @+1 {{input must have rank 3 (N, C * prod(block), L), got shape [8, 12]}}
  %0 = top.Col2Im(%x) {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>} : (tensor<8x12xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @col2im_block_length(%x: tensor<1x8x12xf32>) {
  // expected-error @+1 {{attribute 'block_shape' must have 2 values, got 1 [2]}}
  %0 = top.Col2Im(%x) {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2>} : (tensor<1x8x12xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @col2im_image_zero(%x: tensor<1x8x12xf32>) {
  // expected-error @+1 {{attribute 'image_shape' value 0 at index 0 must be >= 1 (got [0, 5])}}
  %0 = top.Col2Im(%x) {image_shape = array<i64: 0, 5>, block_shape = array<i64: 2, 2>} : (tensor<1x8x12xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @col2im_strides(%x: tensor<1x8x12xf32>) {
  // expected-error @+1 {{attribute 'strides' value 0 at index 1 must be >= 1 (got [1, 0])}}
  %0 = top.Col2Im(%x) {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>, strides = array<i64: 1, 0>} : (tensor<1x8x12xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @col2im_channels(%x: tensor<1x6x12xf32>) {
  // expected-error @+1 {{input dim 1 (6) must be divisible by prod(block_shape) = 4}}
  %0 = top.Col2Im(%x) {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>} : (tensor<1x6x12xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @col2im_blocks(%x: tensor<1x8x10xf32>) {
  // expected-error @+1 {{input dim 2 (10) must equal the number of sliding blocks [3, 4] = 12}}
  %0 = top.Col2Im(%x) {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>} : (tensor<1x8x10xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @col2im_block_too_big(%x: tensor<1x8x12xf32>) {
  // expected-error @+1 {{block extent 5 exceeds the padded image 4 in dim 0}}
  %0 = top.Col2Im(%x) {image_shape = array<i64: 4, 5>, block_shape = array<i64: 5, 2>} : (tensor<1x8x12xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_mode(%x: tensor<1x2x4x4xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{failed to parse Top_RoiPoolModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown roi_pool_mode 'sum', expected one of: avg, max}}
  %0 = top.RoiAlign(%x, %r, %b) {mode = #top.roi_pool_mode<sum>} : (tensor<1x2x4x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_ctm(%x: tensor<1x2x4x4xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{failed to parse Top_RoiCoordinateModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown roi_coordinate_mode 'asymmetric', expected one of: half_pixel, output_half_pixel}}
  %0 = top.RoiAlign(%x, %r, %b) {coordinate_transformation_mode = #top.roi_coordinate_mode<asymmetric>} : (tensor<1x2x4x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_rois(%x: tensor<1x2x4x4xf32>, %r: tensor<3x5xf32>, %b: tensor<3xi64>) {
  // expected-error @+1 {{rois must have shape [R, 4], got [3, 5]}}
  %0 = top.RoiAlign(%x, %r, %b) : (tensor<1x2x4x4xf32>, tensor<3x5xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_batch(%x: tensor<1x2x4x4xf32>, %r: tensor<3x4xf32>, %b: tensor<2xi64>) {
  // expected-error @+1 {{batch_indices must have shape [3] (one per roi), got [2]}}
  %0 = top.RoiAlign(%x, %r, %b) : (tensor<1x2x4x4xf32>, tensor<3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_batch_type(%x: tensor<1x2x4x4xf32>, %r: tensor<3x4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operand 'batch_indices'}}
  %0 = top.RoiAlign(%x, %r, %b) : (tensor<1x2x4x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_input_rank(%x: tensor<2x4x4xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) {
  // expected-error @+1 {{input must have rank 4 (N, C, H, W), got shape [2, 4, 4]}}
  %0 = top.RoiAlign(%x, %r, %b) : (tensor<2x4x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_output_size(%x: tensor<1x2x4x4xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) {
  // expected-error @+1 {{attributes 'output_height' = 0 and 'output_width' = 1 must be >= 1}}
  %0 = top.RoiAlign(%x, %r, %b) {output_height = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_sampling(%x: tensor<1x2x4x4xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) {
  // expected-error @+1 {{attribute 'sampling_ratio' = -1 must be in [0, 4096]}}
  %0 = top.RoiAlign(%x, %r, %b) {sampling_ratio = -1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_scale(%x: tensor<1x2x4x4xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) {
  // expected-error @+1 {{attribute 'spatial_scale' = INF must be finite}}
  %0 = top.RoiAlign(%x, %r, %b) {spatial_scale = 0x7FF0000000000000 : f64} : (tensor<1x2x4x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @deform_conv_rank(%x: tensor<1x2x4xf32>, %w: tensor<2x2x2xf32>, %o: tensor<1x4x3xf32>, %n: none) {
  // expected-error @+1 {{input must have rank 4 (N, C, H, W; only 2-d deformable convolution), got shape [1, 2, 4]}}
  %0 = top.DeformConv(%x, %w, %o, %n, %n) : (tensor<1x2x4xf32>, tensor<2x2x2xf32>, tensor<1x4x3xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @deform_conv_group(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x2x2xf32>, %o: tensor<1x8x4x4xf32>, %n: none) {
  // expected-error @+1 {{input channels 4, filter shape [2, 4, 2, 2] and group 2 do not match (need C = filter[1] * group and M divisible by group)}}
  %0 = top.DeformConv(%x, %w, %o, %n, %n) {group = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<2x4x2x2xf32>, tensor<1x8x4x4xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @deform_conv_offset_group(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x2x2xf32>, %o: tensor<1x8x4x4xf32>, %n: none) {
  // expected-error @+1 {{input channels 4 must be divisible by 'offset_group' = 3}}
  %0 = top.DeformConv(%x, %w, %o, %n, %n) {offset_group = 3 : i64} : (tensor<1x4x5x5xf32>, tensor<2x4x2x2xf32>, tensor<1x8x4x4xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @deform_conv_group_zero(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x2x2xf32>, %o: tensor<1x8x4x4xf32>, %n: none) {
  // expected-error @+1 {{attributes 'group' = 0 and 'offset_group' = 1 must be >= 1}}
  %0 = top.DeformConv(%x, %w, %o, %n, %n) {group = 0 : i64} : (tensor<1x4x5x5xf32>, tensor<2x4x2x2xf32>, tensor<1x8x4x4xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @deform_conv_offset_shape(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x2x2xf32>, %o: tensor<1x8x5x5xf32>, %n: none) {
  // expected-error @+1 {{offset shape [1, 8, 5, 5] must be [1, 8, 4, 4]}}
  %0 = top.DeformConv(%x, %w, %o, %n, %n) : (tensor<1x4x5x5xf32>, tensor<2x4x2x2xf32>, tensor<1x8x5x5xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @deform_conv_mask_shape(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x2x2xf32>, %o: tensor<1x8x4x4xf32>, %m: tensor<1x8x4x4xf32>, %n: none) {
  // expected-error @+1 {{mask shape [1, 8, 4, 4] must be [1, 4, 4, 4]}}
  %0 = top.DeformConv(%x, %w, %o, %n, %m) : (tensor<1x4x5x5xf32>, tensor<2x4x2x2xf32>, tensor<1x8x4x4xf32>, none, tensor<1x8x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @deform_conv_bias_shape(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x2x2xf32>, %o: tensor<1x8x4x4xf32>, %b: tensor<3xf32>, %n: none) {
  // expected-error @+1 {{bias shape [3] must be [2]}}
  %0 = top.DeformConv(%x, %w, %o, %b, %n) : (tensor<1x4x5x5xf32>, tensor<2x4x2x2xf32>, tensor<1x8x4x4xf32>, tensor<3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deform_conv_kernel_too_big(%x: tensor<1x4x2x5xf32>, %w: tensor<2x4x3x2xf32>, %o: tensor<1x12x1x4xf32>, %n: none) {
  // expected-error @+1 {{kernel extent 3 exceeds the padded input 2 in spatial dim 0}}
  %0 = top.DeformConv(%x, %w, %o, %n, %n) : (tensor<1x4x2x5xf32>, tensor<2x4x3x2xf32>, tensor<1x12x1x4xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @deform_conv_strides(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x2x2xf32>, %o: tensor<1x8x4x4xf32>, %n: none) {
  // expected-error @+1 {{attribute 'strides' must have 2 values, got 1 [1]}}
  %0 = top.DeformConv(%x, %w, %o, %n, %n) {strides = array<i64: 1>} : (tensor<1x4x5x5xf32>, tensor<2x4x2x2xf32>, tensor<1x8x4x4xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @resize_antialias_too_wide(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{antialias kernel of dim 3 needs 2.000000e+09 taps for scale 1.000000e-09 (limit 2^24)}}
  %0 = top.Resize(%x) {mode = #top.interpolation<linear>, antialias = true, coordinate_scales = array<f64: 1.0, 1.0, 1.0, 1.0e-9>, sizes = array<i64: 1, 1, 4, 1>} : (tensor<1x1x4x4xf32>) -> tensor<*xf32>
  return
}
