// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of the geometry ops and of top.Resize's filter attributes.

// CHECK-LABEL: func @resize_filters
func.func @resize_filters(%x: tensor<1x2x4x6xf32>) -> (tensor<1x2x8x3xf32>, tensor<1x2x3x5xf32>, tensor<1x2x3x4xf32>) {
  // CHECK: top.Resize(%{{.*}}) {antialias = true, cubic_coeff_a = -5.000000e-01 : f64, exclude_outside = true, mode = #top.interpolation<cubic>, scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 5.000000e-01>}
  %0 = top.Resize(%x) {mode = #top.interpolation<cubic>, cubic_coeff_a = -0.5 : f64, exclude_outside = true, antialias = true, scales = array<f64: 1.0, 1.0, 2.0, 0.5>} : (tensor<1x2x4x6xf32>) -> tensor<1x2x8x3xf32>
  // CHECK: top.Resize(%{{.*}}) {coordinate_transformation_mode = #top.coordinate_mode<tf_crop_and_resize>, extrapolation_value = 1.000000e+01 : f64, mode = #top.interpolation<linear>, roi = array<f64: 0.000000e+00, 0.000000e+00, 1.000000e-01, 2.000000e-01, 1.000000e+00, 1.000000e+00, 9.000000e-01, 8.000000e-01>, sizes = array<i64: 1, 2, 3, 5>}
  %1 = top.Resize(%x) {mode = #top.interpolation<linear>, coordinate_transformation_mode = #top.coordinate_mode<tf_crop_and_resize>, roi = array<f64: 0.0, 0.0, 0.1, 0.2, 1.0, 1.0, 0.9, 0.8>, extrapolation_value = 10.0 : f64, sizes = array<i64: 1, 2, 3, 5>} : (tensor<1x2x4x6xf32>) -> tensor<1x2x3x5xf32>
  // CHECK: top.Resize(%{{.*}}) {coordinate_scales = array<f64: 1.000000e+00, 1.000000e+00, 7.500000e-01, 7.500000e-01>, coordinate_transformation_mode = #top.coordinate_mode<half_pixel_symmetric>, sizes = array<i64: 1, 2, 3, 4>}
  %2 = top.Resize(%x) {coordinate_transformation_mode = #top.coordinate_mode<half_pixel_symmetric>, coordinate_scales = array<f64: 1.0, 1.0, 0.75, 0.75>, sizes = array<i64: 1, 2, 3, 4>} : (tensor<1x2x4x6xf32>) -> tensor<1x2x3x4xf32>
  return %0, %1, %2 : tensor<1x2x8x3xf32>, tensor<1x2x3x5xf32>, tensor<1x2x3x4xf32>
}

// CHECK-LABEL: func @grid
func.func @grid(%x: tensor<2x3x4x5xf32>, %g: tensor<2x6x7x2xf32>, %t: tensor<2x2x3xf32>, %v: tensor<1x2x3x4x5xf32>, %g3: tensor<1x2x2x2x3xf32>) -> (tensor<2x3x6x7xf32>, tensor<2x3x6x7xf32>, tensor<2x4x5x2xf32>, tensor<1x2x2x2x2xf32>) {
  // CHECK: top.GridSample(%{{.*}}, %{{.*}}) : (tensor<2x3x4x5xf32>, tensor<2x6x7x2xf32>) -> tensor<2x3x6x7xf32>
  %0 = top.GridSample(%x, %g) : (tensor<2x3x4x5xf32>, tensor<2x6x7x2xf32>) -> tensor<2x3x6x7xf32>
  // CHECK: top.GridSample(%{{.*}}, %{{.*}}) {align_corners = true, mode = #top.interpolation<cubic>, padding_mode = #top.grid_padding<reflection>}
  %1 = top.GridSample(%x, %g) {mode = #top.interpolation<cubic>, padding_mode = #top.grid_padding<reflection>, align_corners = true} : (tensor<2x3x4x5xf32>, tensor<2x6x7x2xf32>) -> tensor<2x3x6x7xf32>
  // CHECK: top.AffineGrid(%{{.*}}) {align_corners = true, size = array<i64: 2, 3, 4, 5>} : (tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32>
  %2 = top.AffineGrid(%t) {size = array<i64: 2, 3, 4, 5>, align_corners = true} : (tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32>
  // CHECK: top.GridSample(%{{.*}}, %{{.*}}) {mode = #top.interpolation<nearest>, padding_mode = #top.grid_padding<border>} : (tensor<1x2x3x4x5xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
  %3 = top.GridSample(%v, %g3) {mode = #top.interpolation<nearest>, padding_mode = #top.grid_padding<border>} : (tensor<1x2x3x4x5xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
  return %0, %1, %2, %3 : tensor<2x3x6x7xf32>, tensor<2x3x6x7xf32>, tensor<2x4x5x2xf32>, tensor<1x2x2x2x2xf32>
}

// CHECK-LABEL: func @patches
func.func @patches(%c: tensor<1x8x12xf32>, %x: tensor<2x4x6x6xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>, %w: tensor<6x2x2x2xf32>, %o: tensor<2x16x5x5xf32>, %m: tensor<2x8x5x5xf32>, %bias: tensor<6xf32>) -> (tensor<1x2x4x5xf32>, tensor<3x4x2x3xf32>, tensor<2x6x5x5xf32>) {
  // CHECK: top.Col2Im(%{{.*}}) {block_shape = array<i64: 2, 2>, image_shape = array<i64: 4, 5>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x8x12xf32>) -> tensor<1x2x4x5xf32>
  %0 = top.Col2Im(%c) {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x8x12xf32>) -> tensor<1x2x4x5xf32>
  // CHECK: top.RoiAlign(%{{.*}}, %{{.*}}, %{{.*}}) {mode = #top.roi_pool_mode<max>, output_height = 2 : i64, output_width = 3 : i64, sampling_ratio = 2 : i64, spatial_scale = 2.500000e-01 : f64}
  %1 = top.RoiAlign(%x, %r, %b) {mode = #top.roi_pool_mode<max>, output_height = 2 : i64, output_width = 3 : i64, sampling_ratio = 2 : i64, spatial_scale = 0.25 : f64} : (tensor<2x4x6x6xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x4x2x3xf32>
  // CHECK: top.DeformConv(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {group = 2 : i64, offset_group = 2 : i64}
  %2 = top.DeformConv(%x, %w, %o, %bias, %m) {group = 2 : i64, offset_group = 2 : i64} : (tensor<2x4x6x6xf32>, tensor<6x2x2x2xf32>, tensor<2x16x5x5xf32>, tensor<6xf32>, tensor<2x8x5x5xf32>) -> tensor<2x6x5x5xf32>
  return %0, %1, %2 : tensor<1x2x4x5xf32>, tensor<3x4x2x3xf32>, tensor<2x6x5x5xf32>
}
