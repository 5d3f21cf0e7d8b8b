// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip: every op parses, verifies, prints and parses again.

// CHECK-LABEL: func @core
func.func @core(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: top.Input(%{{.*}}) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %0 = top.Input(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: top.Weight() {name = "w"} : () -> tensor<4x3x3x3xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x3x3x3xf32>
  // CHECK: top.None() : () -> none
  %n = top.None() : () -> none
  // CHECK: top.Conv(%{{.*}}, %{{.*}}, %{{.*}}) {do_relu = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, do_relu = true} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func @nn
func.func @nn(%arg0: tensor<2x4x9x9xf32>, %m: tensor<2x16x5xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x5x5xf32>, tensor<2x4x1x1xf32>, tensor<2x4x5xf32>) {
  // CHECK: top.MaxPool
  %0 = top.MaxPool(%arg0) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<2x4x9x9xf32>) -> tensor<2x4x4x4xf32>
  // CHECK: top.AvgPool{{.*}}ceil_mode = true, count_include_pad = true
  %1 = top.AvgPool(%arg0) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true, count_include_pad = true} : (tensor<2x4x9x9xf32>) -> tensor<2x4x5x5xf32>
  // CHECK: top.GlobalAvgPool
  %2 = top.GlobalAvgPool(%arg0) : (tensor<2x4x9x9xf32>) -> tensor<2x4x1x1xf32>
  %r = top.Reshape(%2) {shape = array<i64: 2, 1, 4>} : (tensor<2x4x1x1xf32>) -> tensor<2x1x4xf32>
  %b = top.Weight() {name = "b"} : () -> tensor<5xf32>
  %wm = top.Weight() {name = "wm"} : () -> tensor<2x4x5xf32>
  // CHECK: top.MatMul
  %3 = top.MatMul(%r, %wm, %b) {do_relu = true} : (tensor<2x1x4xf32>, tensor<2x4x5xf32>, tensor<5xf32>) -> tensor<2x1x5xf32>
  %4 = top.Add(%3, %3) : (tensor<2x1x5xf32>, tensor<2x1x5xf32>) -> tensor<2x1x5xf32>
  %5 = top.Relu(%4) : (tensor<2x1x5xf32>) -> tensor<2x1x5xf32>
  %6 = top.Add(%5, %wm) : (tensor<2x1x5xf32>, tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %0, %1, %2, %6 : tensor<2x4x4x4xf32>, tensor<2x4x5x5xf32>, tensor<2x4x1x1xf32>, tensor<2x4x5xf32>
}
