// RUN: strata-opt %s --top-shape-infer --split-input-file | FileCheck %s
// Result shapes of the geometry ops and of top.Resize with its filter
// attributes, inferred from unranked results.

// CHECK-LABEL: func @geometry
func.func @geometry(%x: tensor<2x3x8x8xf32>, %t: tensor<2x2x3xf32>, %c: tensor<1x12x20xf32>, %r: tensor<5x4xf32>, %b: tensor<5xi64>, %w: tensor<4x3x3x3xf32>, %o: tensor<2x18x6x6xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.AffineGrid{{.*}} -> tensor<2x5x7x2xf32>
  %0 = top.AffineGrid(%t) {size = array<i64: 2, 3, 5, 7>} : (tensor<2x2x3xf32>) -> tensor<*xf32>
  // CHECK: top.GridSample{{.*}} -> tensor<2x3x5x7xf32>
  %1 = top.GridSample(%x, %0) : (tensor<2x3x8x8xf32>, tensor<*xf32>) -> tensor<*xf32>
  // blocks (6 + 2 - 2) / 2 + 1 = 4 by (9 + 1 - 2) / 2 + 1 = 5
  // CHECK: top.Col2Im{{.*}} -> tensor<1x3x6x9xf32>
  %2 = top.Col2Im(%c) {image_shape = array<i64: 6, 9>, block_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>} : (tensor<1x12x20xf32>) -> tensor<*xf32>
  // CHECK: top.RoiAlign{{.*}} -> tensor<5x3x2x4xf32>
  %3 = top.RoiAlign(%x, %r, %b) {output_height = 2 : i64, output_width = 4 : i64} : (tensor<2x3x8x8xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<*xf32>
  // CHECK: top.DeformConv{{.*}} -> tensor<2x4x6x6xf32>
  %4 = top.DeformConv(%x, %w, %o, %n, %n) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2x18x6x6xf32>, none, none) -> tensor<*xf32>
  // floor(8 * 0.3) = 2, floor(8 * 1.7) = 13
  // CHECK: top.Resize{{.*}} -> tensor<2x3x2x13xf32>
  %5 = top.Resize(%x) {mode = #top.interpolation<cubic>, antialias = true, scales = array<f64: 1.0, 1.0, 0.3, 1.7>} : (tensor<2x3x8x8xf32>) -> tensor<*xf32>
  // CHECK: top.Resize{{.*}} -> tensor<2x3x6x6xf32>
  %6 = top.Resize(%x) {coordinate_scales = array<f64: 1.0, 1.0, 0.75, 0.75>, sizes = array<i64: 2, 3, 6, 6>} : (tensor<2x3x8x8xf32>) -> tensor<*xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}
