// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of Deconv, Softmax/LogSoftmax, the norms, Resize,
// DepthToSpace and SpaceToDepth, and Conv/pool size overflow, one case per
// split.

func.func @deconv_input_rank(%x: tensor<4x5xf32>, %w: tensor<4x3xf32>, %b: none) {
  // expected-error @+1 {{input must have rank 3 to 5 (N, C, 1-3 spatial dims), got shape [4, 5]}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3>} : (tensor<4x5xf32>, tensor<4x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_filter_rank(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3xf32>, %b: none) {
  // expected-error @+1 {{filter must have rank 4 like the input, got shape [4, 3, 3]}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>} : (tensor<1x4x5x5xf32>, tensor<4x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_kernel_size(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{attribute 'kernel_shape' must have 2 values, got 1 [3]}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_stride(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{attribute 'strides' value 0 at index 0 must be >= 1 (got [0, 1])}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 0, 1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_dilation(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{attribute 'dilations' value -1 at index 1 must be >= 1 (got [1, -1])}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, dilations = array<i64: 1, -1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_pads(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{attribute 'pads' must have 4 values, got 2 [1, 1]}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_output_padding_negative(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{attribute 'output_padding' value -1 at index 0 must be >= 0 (got [-1, 0])}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, output_padding = array<i64: -1, 0>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_output_padding_large(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{attribute 'output_padding' value 2 at index 1 must be smaller than the stride (2) or the dilation (1)}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, output_padding = array<i64: 1, 2>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_kernel_mismatch(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{attribute 'kernel_shape' [3, 2] does not match the filter's spatial dims [3, 3]}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 2>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_group(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{attribute 'group' = 3 must be >= 1 and divide input channels (4)}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, group = 3 : i64} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_filter_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<2x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{filter must have 4 input channels in dim 0, got shape [2, 3, 3, 3]}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>} : (tensor<1x4x5x5xf32>, tensor<2x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_output_channels_overflow(%x: tensor<1x4x5x5xf32>, %w: tensor<4x4611686018427387904x1x1xf32>, %b: none) {
  // expected-error @+1 {{output channels 4611686018427387904 * group 2 overflow int64}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x4611686018427387904x1x1xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_bias(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias must have 3 elements (one per output channel), got shape [4]}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_size_overflow(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{output size overflows int64 in spatial dim 0}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 4611686018427387904, 1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_negative_size(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{pads [0, 4, 0, 4] remove more than the full output size 7 in spatial dim 1}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 4, 0, 4>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_pads_overflow(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{pads [0, 9223372036854775807, 0, 9223372036854775807] remove more than the full output size 7 in spatial dim 1}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 9223372036854775807, 0, 9223372036854775807>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_output_padding_overflow(%x: tensor<1x4x2x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{output size overflows int64 in spatial dim 0}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 4611686018427387904, 1>, output_padding = array<i64: 4611686018427387903, 0>} : (tensor<1x4x2x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_element_count(%x: tensor<4611686018427387904x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{shape [4611686018427387904, 3, 7, 7] has a negative dim or overflows int64}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>} : (tensor<4611686018427387904x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @deconv_wrong_result(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{result #0 has shape [1, 3, 5, 5] but the operands and attributes give [1, 3, 7, 7]}}
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x3x5x5xf32>
  return
}

// -----

func.func @conv_window_overflow(%x: tensor<1x3x5x5xf32>, %w: tensor<4x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{window or padded input size overflows int64 in spatial dim 0}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, dilations = array<i64: 4611686018427387904, 1>} : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @pool_padded_overflow(%x: tensor<1x4x5x5xf32>) {
  // expected-error @+1 {{window or padded input size overflows int64 in spatial dim 1}}
  %0 = top.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 9223372036854775807, 0, 1>} : (tensor<1x4x5x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'axis' = 2 is out of range [-2, 2) for input rank 2}}
  %0 = top.Softmax(%x) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @logsoftmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'axis' = 2 is out of range [-2, 2) for input rank 2}}
  %0 = top.LogSoftmax(%x) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @softmax_negative_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'axis' = -3 is out of range [-2, 2) for input rank 2}}
  %0 = top.Softmax(%x) {axis = -3 : i64} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @batchnorm_rank(%x: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %n: none) {
  // expected-error @+1 {{input must have rank >= 2 (N, C, ...), got shape [3]}}
  %0 = top.BatchNorm(%x, %m, %v, %s, %b) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @batchnorm_mean(%x: tensor<2x3x4xf32>, %m: tensor<4xf32>, %v: tensor<3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %n: none) {
  // expected-error @+1 {{mean must have 3 elements (one per channel), got shape [4]}}
  %0 = top.BatchNorm(%x, %m, %v, %s, %b) : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @batchnorm_variance(%x: tensor<2x3x4xf32>, %m: tensor<3xf32>, %v: tensor<4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %n: none) {
  // expected-error @+1 {{variance must have 3 elements (one per channel), got shape [4]}}
  %0 = top.BatchNorm(%x, %m, %v, %s, %b) : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @batchnorm_scale(%x: tensor<2x3x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %s: tensor<4xf32>, %b: tensor<3xf32>, %n: none) {
  // expected-error @+1 {{scale must have 3 elements (one per channel), got shape [4]}}
  %0 = top.BatchNorm(%x, %m, %v, %s, %b) : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @batchnorm_bias(%x: tensor<2x3x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %s: tensor<3xf32>, %b: tensor<4xf32>, %n: none) {
  // expected-error @+1 {{bias must have 3 elements (one per channel), got shape [4]}}
  %0 = top.BatchNorm(%x, %m, %v, %s, %b) : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @batchnorm_epsilon(%x: tensor<2x3x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'epsilon' = -1.000000e-03 must be finite and >= 0}}
  %0 = top.BatchNorm(%x, %m, %v, %s, %b) {epsilon = -1.0e-3} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @layernorm_axis(%x: tensor<2x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'axis' = -3 is out of range [-2, 2) for input rank 2}}
  %0 = top.LayerNorm(%x, %n, %n) {axis = -3 : i64} : (tensor<2x3xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @layernorm_scale(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>, %n: none) {
  // expected-error @+1 {{scale must have 12 elements (the normalized shape's), got shape [4]}}
  %0 = top.LayerNorm(%x, %s, %n) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<4xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @layernorm_bias(%x: tensor<2x3x4xf32>, %b: tensor<3xf32>, %n: none) {
  // expected-error @+1 {{bias must have 4 elements (the normalized shape's), got shape [3]}}
  %0 = top.LayerNorm(%x, %n, %b) : (tensor<2x3x4xf32>, none, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @layernorm_epsilon(%x: tensor<2x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'epsilon' = nan must be finite and >= 0}}
  %0 = top.LayerNorm(%x, %n, %n) {epsilon = 0x7FF8000000000000 : f64} : (tensor<2x3xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @groupnorm_rank(%x: tensor<6xf32>, %n: none) {
  // expected-error @+1 {{input must have rank >= 2 (N, C, ...), got shape [6]}}
  %0 = top.GroupNorm(%x, %n, %n) {num_groups = 2 : i64} : (tensor<6xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @groupnorm_groups(%x: tensor<2x6x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'num_groups' = 4 must be >= 1 and divide the input channels (6)}}
  %0 = top.GroupNorm(%x, %n, %n) {num_groups = 4 : i64} : (tensor<2x6x3xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @groupnorm_zero_groups(%x: tensor<2x6x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'num_groups' = 0 must be >= 1 and divide the input channels (6)}}
  %0 = top.GroupNorm(%x, %n, %n) {num_groups = 0 : i64} : (tensor<2x6x3xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @groupnorm_scale(%x: tensor<2x6x3xf32>, %s: tensor<3xf32>, %n: none) {
  // expected-error @+1 {{scale must have 6 elements (one per channel), got shape [3]}}
  %0 = top.GroupNorm(%x, %s, %n) {num_groups = 3 : i64} : (tensor<2x6x3xf32>, tensor<3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @groupnorm_bias(%x: tensor<2x6x3xf32>, %b: tensor<2x2xf32>, %n: none) {
  // expected-error @+1 {{bias must have 6 elements (one per channel), got shape [2, 2]}}
  %0 = top.GroupNorm(%x, %n, %b) {num_groups = 3 : i64} : (tensor<2x6x3xf32>, none, tensor<2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @groupnorm_epsilon(%x: tensor<2x6x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'epsilon' = -1.000000e+00 must be finite and >= 0}}
  %0 = top.GroupNorm(%x, %n, %n) {num_groups = 3 : i64, epsilon = -1.0} : (tensor<2x6x3xf32>, none, none) -> tensor<*xf32>
  return
}

// -----

func.func @resize_mode(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+2 {{failed to parse Top_InterpolationAttr parameter 'value'}}
  // expected-error @+1 {{unknown interpolation 'bicubic', expected one of: nearest, linear, cubic}}
  %0 = top.Resize(%x) {mode = #top.interpolation<bicubic>, sizes = array<i64: 1, 2, 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_ctm(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+2 {{failed to parse Top_CoordinateModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown coordinate_mode 'tf_half_pixel_for_nn', expected one of: half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize}}
  %0 = top.Resize(%x) {coordinate_transformation_mode = #top.coordinate_mode<tf_half_pixel_for_nn>, sizes = array<i64: 1, 2, 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_nearest_mode(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+2 {{failed to parse Top_NearestModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown nearest_mode 'round', expected one of: round_prefer_floor, round_prefer_ceil, floor, ceil}}
  %0 = top.Resize(%x) {nearest_mode = #top.nearest_mode<round>, sizes = array<i64: 1, 2, 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_sizes_length(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{attribute 'sizes' must have 4 values, got 2 [8, 8]}}
  %0 = top.Resize(%x) {sizes = array<i64: 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_sizes_negative(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{attribute 'sizes' value -8 at index 2 must be >= 0 (got [1, 2, -8, 8])}}
  %0 = top.Resize(%x) {sizes = array<i64: 1, 2, -8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_scales_length(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{attribute 'scales' must have 4 values, got 2}}
  %0 = top.Resize(%x) {scales = array<f64: 2.0, 2.0>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_scales_value(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{attribute 'scales' value 0.000000e+00 at index 3 must be finite and > 0}}
  %0 = top.Resize(%x) {scales = array<f64: 1.0, 1.0, 2.0, 0.0>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_scales_overflow(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{attribute 'scales' value 1.000000e+19 at index 2 makes output dim 4.000000e+19 overflow int64}}
  %0 = top.Resize(%x) {scales = array<f64: 1.0, 1.0, 1.0e19, 1.0>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_no_size(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{requires attribute 'sizes' or 'scales'}}
  %0 = top.Resize(%x) {mode = #top.interpolation<linear>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_empty_dim(%x: tensor<1x0x4xf32>) {
  // expected-error @+1 {{cannot resize dim 1 of size 0 to size 3}}
  %0 = top.Resize(%x) {sizes = array<i64: 1, 3, 4>} : (tensor<1x0x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_element_count(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{shape [1, 2, 4611686018427387904, 8] has a negative dim or overflows int64}}
  %0 = top.Resize(%x) {sizes = array<i64: 1, 2, 4611686018427387904, 8>} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_wrong_result(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{result #0 has shape [1, 2, 4, 4] but the operands and attributes give [1, 2, 8, 8]}}
  %0 = top.Resize(%x) {sizes = array<i64: 1, 2, 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @d2s_rank(%x: tensor<8x2x2xf32>) {
  // expected-error @+1 {{input must have rank 4 (N, C, H, W), got shape [8, 2, 2]}}
  %0 = top.DepthToSpace(%x) {blocksize = 2 : i64} : (tensor<8x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @d2s_blocksize(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+1 {{attribute 'blocksize' = 0 must be >= 1}}
  %0 = top.DepthToSpace(%x) {blocksize = 0 : i64} : (tensor<1x8x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @d2s_mode(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+2 {{failed to parse Top_DepthToSpaceModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown depth_to_space_mode 'RDC', expected one of: DCR, CRD}}
  %0 = top.DepthToSpace(%x) {blocksize = 2 : i64, mode = #top.depth_to_space_mode<RDC>} : (tensor<1x8x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @d2s_channels(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+1 {{input channels (8) must be divisible by blocksize^2 = 9}}
  %0 = top.DepthToSpace(%x) {blocksize = 3 : i64} : (tensor<1x8x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @d2s_block_overflow(%x: tensor<1x0x2x2xf32>) {
  // expected-error @+1 {{output dim 4294967296 * 4294967296 overflows int64}}
  %0 = top.DepthToSpace(%x) {blocksize = 4294967296 : i64} : (tensor<1x0x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @d2s_dim_overflow(%x: tensor<1x4x4611686018427387904x1xf32>) {
  // expected-error @+1 {{output dim 4611686018427387904 * 2 overflows int64}}
  %0 = top.DepthToSpace(%x) {blocksize = 2 : i64} : (tensor<1x4x4611686018427387904x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @d2s_element_count(%x: tensor<1x4x2305843009213693952x2xf32>) {
  // expected-error @+1 {{shape [1, 1, 4611686018427387904, 4] has a negative dim or overflows int64}}
  %0 = top.DepthToSpace(%x) {blocksize = 2 : i64} : (tensor<1x4x2305843009213693952x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @s2d_rank(%x: tensor<2x2xf32>) {
  // expected-error @+1 {{input must have rank 4 (N, C, H, W), got shape [2, 2]}}
  %0 = top.SpaceToDepth(%x) {blocksize = 2 : i64} : (tensor<2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @s2d_blocksize(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{attribute 'blocksize' = -2 must be >= 1}}
  %0 = top.SpaceToDepth(%x) {blocksize = -2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @s2d_divisible(%x: tensor<1x2x4x6xf32>) {
  // expected-error @+1 {{input spatial dims [4, 6] must be divisible by attribute 'blocksize' = 4}}
  %0 = top.SpaceToDepth(%x) {blocksize = 4 : i64} : (tensor<1x2x4x6xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @s2d_block_overflow(%x: tensor<1x2x0x0xf32>) {
  // expected-error @+1 {{output dim 4294967296 * 4294967296 overflows int64}}
  %0 = top.SpaceToDepth(%x) {blocksize = 4294967296 : i64} : (tensor<1x2x0x0xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @s2d_channel_overflow(%x: tensor<1x4611686018427387904x2x2xf32>) {
  // expected-error @+1 {{output dim 4611686018427387904 * 4 overflows int64}}
  %0 = top.SpaceToDepth(%x) {blocksize = 2 : i64} : (tensor<1x4611686018427387904x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @s2d_element_count(%x: tensor<4x1152921504606846976x2x2xf32>) {
  // expected-error @+1 {{shape [4, 4611686018427387904, 1, 1] has a negative dim or overflows int64}}
  %0 = top.SpaceToDepth(%x) {blocksize = 2 : i64} : (tensor<4x1152921504606846976x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_layout_value(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+2 {{failed to parse Top_LayoutAttr parameter 'value'}}
  // expected-error @+1 {{unknown layout 'NWHC', expected one of: NCHW, NHWC}}
  %0 = top.Conv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, layout = #top.layout<NWHC>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

// NHWC takes an OHWI filter: 4x3x3x5 has 5 input channels, the input 3.
func.func @conv_nhwc_filter(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x5xf32>, %b: none) {
  // expected-error @+1 {{filter has 5 input channels per group, expected 3 / group 1 = 3}}
  %0 = top.Conv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, layout = #top.layout<NHWC>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x5xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @pool_nhwc_result(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{result #0 has shape [1, 3, 4, 4] but the operands and attributes give [1, 4, 4, 3]}}
  %0 = top.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = #top.layout<NHWC>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @matmul_activation_unknown(%x: tensor<2x4xf32>, %w: tensor<4x5xf32>, %b: none) {
  // expected-error @+2 {{failed to parse Top_EpilogueActivationAttr parameter 'value'}}
  // expected-error @+1 {{unknown activation 'swish', expected one of: sigmoid, silu, gelu, gelu_tanh, hardswish, hardsigmoid, leaky_relu, clip}}
  %0 = top.MatMul(%x, %w, %b) {activation = #top.activation<swish>} : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_activation_params(%x: tensor<2x4xf32>, %w: tensor<4x5xf32>, %b: none) {
  // expected-error @+1 {{attribute 'activation_params' has 1 values, activation "clip" takes 2}}
  %0 = top.MatMul(%x, %w, %b) {activation = #top.activation<clip>, activation_params = array<f64: 1.0>} : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  return
}

// -----

func.func @conv_activation_with_relu(%x: tensor<1x3x5x5xf32>, %w: tensor<4x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'activation' = "silu" cannot be combined with do_relu = true}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, do_relu = true, activation = #top.activation<silu>} : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @deconv_clip_order(%x: tensor<1x3x5x5xf32>, %w: tensor<3x4x3x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'activation_params' = [6.000000e+00, 0.000000e+00] of clip needs min <= max}}
  %0 = top.Deconv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, activation = #top.activation<clip>, activation_params = array<f64: 6.0, 0.0>} : (tensor<1x3x5x5xf32>, tensor<3x4x3x3xf32>, none) -> tensor<1x4x7x7xf32>
  return
}

// -----

func.func @matmul_params_without_activation(%x: tensor<2x4xf32>, %w: tensor<4x5xf32>, %b: none) {
  // expected-error @+1 {{attribute 'activation_params' needs attribute 'activation'}}
  %0 = top.MatMul(%x, %w, %b) {activation_params = array<f64: 1.0>} : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_activation_int(%x: tensor<2x4xi8>, %w: tensor<4x5xi8>, %b: none) {
  // expected-error @+1 {{attribute 'activation' = "sigmoid" needs a float result, got 'i32'}}
  %0 = top.MatMul(%x, %w, %b) {activation = #top.activation<sigmoid>} : (tensor<2x4xi8>, tensor<4x5xi8>, none) -> tensor<2x5xi32>
  return
}
