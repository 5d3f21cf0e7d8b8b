// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --canonicalize | FileCheck %s --check-prefix=FOLD
// Round trip of Deconv, Softmax/LogSoftmax, the norms, Resize, DepthToSpace
// and SpaceToDepth; folding of the identity Resize/DepthToSpace/SpaceToDepth.

// CHECK-LABEL: func @deconv
func.func @deconv(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>) -> (tensor<1x3x7x7xf32>, tensor<1x6x10x11xf32>, tensor<2x4x12xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.Deconv(%{{.*}}, %{{.*}}, %{{.*}}) {kernel_shape = array<i64: 3, 3>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x3x7x7xf32>
  %0 = top.Deconv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x3x7x7xf32>
  // CHECK: top.Deconv{{.*}}do_relu = true, group = 2 : i64, kernel_shape = array<i64: 3, 3>, output_padding = array<i64: 1, 0>, pads = array<i64: 1, 0, 1, 0>, relu_limit = 6.000000e+00 : f64, strides = array<i64: 2, 2>}
  %1 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 0>, output_padding = array<i64: 1, 0>, group = 2 : i64, do_relu = true, relu_limit = 6.0 : f64} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x11xf32>
  %x1 = top.Weight() {name = "x1"} : () -> tensor<2x3x4xf32>
  %w1 = top.Weight() {name = "w1"} : () -> tensor<3x4x2xf32>
  // CHECK: top.Deconv{{.*}}dilations = array<i64: 3>, kernel_shape = array<i64: 2>, output_padding = array<i64: 2>, strides = array<i64: 2>
  %2 = top.Deconv(%x1, %w1, %n) {kernel_shape = array<i64: 2>, strides = array<i64: 2>, dilations = array<i64: 3>, output_padding = array<i64: 2>} : (tensor<2x3x4xf32>, tensor<3x4x2xf32>, none) -> tensor<2x4x12xf32>
  return %0, %1, %2 : tensor<1x3x7x7xf32>, tensor<1x6x10x11xf32>, tensor<2x4x12xf32>
}

// CHECK-LABEL: func @norms
func.func @norms(%x: tensor<2x6x4x4xf32>, %c: tensor<6xf32>, %l: tensor<4x4xf32>) -> (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.Softmax(%{{.*}}) {axis = 1 : i64}
  %0 = top.Softmax(%x) {axis = 1 : i64} : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  // CHECK: top.LogSoftmax(%{{.*}}) : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  %1 = top.LogSoftmax(%x) : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  // CHECK: top.BatchNorm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {epsilon = 1.000000e-03 : f64} : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>, none, tensor<6xf32>)
  %2 = top.BatchNorm(%x, %c, %c, %n, %c) {epsilon = 1.0e-3 : f64} : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>, none, tensor<6xf32>) -> tensor<2x6x4x4xf32>
  // CHECK: top.LayerNorm(%{{.*}}, %{{.*}}, %{{.*}}) {axis = -2 : i64}
  %3 = top.LayerNorm(%x, %l, %l) {axis = -2 : i64} : (tensor<2x6x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<2x6x4x4xf32>
  // CHECK: top.GroupNorm(%{{.*}}, %{{.*}}, %{{.*}}) {num_groups = 3 : i64}
  %4 = top.GroupNorm(%x, %c, %n) {num_groups = 3 : i64} : (tensor<2x6x4x4xf32>, tensor<6xf32>, none) -> tensor<2x6x4x4xf32>
  // CHECK: top.BatchNorm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>, none, none)
  %5 = top.BatchNorm(%x, %c, %c, %n, %n) : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>, none, none) -> tensor<2x6x4x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>
}

// CHECK-LABEL: func @resize
func.func @resize(%x: tensor<1x8x4x6xf32>) -> (tensor<1x8x8x9xf32>, tensor<1x8x3x3xf32>, tensor<1x2x8x12xf32>, tensor<1x32x2x3xf32>) {
  // CHECK: top.Resize(%{{.*}}) {coordinate_transformation_mode = #top.coordinate_mode<align_corners>, mode = #top.interpolation<linear>, scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 1.500000e+00>}
  %0 = top.Resize(%x) {mode = #top.interpolation<linear>, coordinate_transformation_mode = #top.coordinate_mode<align_corners>, scales = array<f64: 1.0, 1.0, 2.0, 1.5>} : (tensor<1x8x4x6xf32>) -> tensor<1x8x8x9xf32>
  // CHECK: top.Resize(%{{.*}}) {nearest_mode = #top.nearest_mode<floor>, sizes = array<i64: 1, 8, 3, 3>}
  %1 = top.Resize(%x) {nearest_mode = #top.nearest_mode<floor>, sizes = array<i64: 1, 8, 3, 3>} : (tensor<1x8x4x6xf32>) -> tensor<1x8x3x3xf32>
  // CHECK: top.DepthToSpace(%{{.*}}) {blocksize = 2 : i64, mode = #top.depth_to_space_mode<CRD>}
  %2 = top.DepthToSpace(%x) {blocksize = 2 : i64, mode = #top.depth_to_space_mode<CRD>} : (tensor<1x8x4x6xf32>) -> tensor<1x2x8x12xf32>
  // CHECK: top.SpaceToDepth(%{{.*}}) {blocksize = 2 : i64}
  %3 = top.SpaceToDepth(%x) {blocksize = 2 : i64} : (tensor<1x8x4x6xf32>) -> tensor<1x32x2x3xf32>
  return %0, %1, %2, %3 : tensor<1x8x8x9xf32>, tensor<1x8x3x3xf32>, tensor<1x2x8x12xf32>, tensor<1x32x2x3xf32>
}

// FOLD-LABEL: func @fold_identity
// FOLD-SAME: (%[[X:.*]]: tensor<1x4x3x3xf32>)
// FOLD-NOT: top.
// FOLD: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @fold_identity(%x: tensor<1x4x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
  %0 = top.Resize(%x) {mode = #top.interpolation<linear>, sizes = array<i64: 1, 4, 3, 3>} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %1 = top.Resize(%x) {scales = array<f64: 1.0, 1.0, 1.0, 1.0>, coordinate_transformation_mode = #top.coordinate_mode<asymmetric>} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %2 = top.Resize(%x) {sizes = array<i64: 1, 4, 3, 3>, scales = array<f64: 1.0, 1.0, 1.2, 1.2>} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %3 = top.DepthToSpace(%x) {blocksize = 1 : i64, mode = #top.depth_to_space_mode<CRD>} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %4 = top.SpaceToDepth(%x) {blocksize = 1 : i64} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0, %1, %2, %3, %4 : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
}

// A scale other than 1 shifts the sampling grid even when the size is kept
// (floor(3 * 1.2) = 3), so that Resize stays; so do real resizes and
// blocksizes above 1, and ops whose result type differs from the input's.
// FOLD-LABEL: func @no_fold
// FOLD: top.Resize{{.*}}scales = array<f64: 1.000000e+00, 1.000000e+00, 1.200000e+00, 1.000000e+00>
// FOLD: top.Resize{{.*}}sizes = array<i64: 1, 4, 6, 3>
// FOLD: top.DepthToSpace{{.*}}blocksize = 2
// FOLD: top.SpaceToDepth{{.*}}blocksize = 1 : i64} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x?xf32>
func.func @no_fold(%x: tensor<1x4x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x6x3xf32>, tensor<1x1x6x6xf32>, tensor<1x4x3x?xf32>) {
  %0 = top.Resize(%x) {scales = array<f64: 1.0, 1.0, 1.2, 1.0>} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %1 = top.Resize(%x) {sizes = array<i64: 1, 4, 6, 3>} : (tensor<1x4x3x3xf32>) -> tensor<1x4x6x3xf32>
  %2 = top.DepthToSpace(%x) {blocksize = 2 : i64} : (tensor<1x4x3x3xf32>) -> tensor<1x1x6x6xf32>
  %3 = top.SpaceToDepth(%x) {blocksize = 1 : i64} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x?xf32>
  return %0, %1, %2, %3 : tensor<1x4x3x3xf32>, tensor<1x4x6x3xf32>, tensor<1x1x6x6xf32>, tensor<1x4x3x?xf32>
}
