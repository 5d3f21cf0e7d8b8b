// RUN: strata-opt %s --top-shape-infer --split-input-file | FileCheck %s

// CHECK-LABEL: func @chain
// CHECK-SAME: -> tensor<1x8x4x4xf32>
func.func @chain(%arg0: tensor<1x3x8x8xf32>) -> tensor<?x?x?x?xf32> {
  %0 = top.Input(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
  %n = top.None() : () -> none
  // CHECK: top.Conv{{.*}} -> tensor<1x8x8x8xf32>
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<*xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  // CHECK: top.Relu{{.*}} -> tensor<1x8x8x8xf32>
  %2 = top.Relu(%1) : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: top.MaxPool{{.*}} -> tensor<1x8x4x4xf32>
  %3 = top.MaxPool(%2) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<*xf32>) -> tensor<?x?x?x?xf32>
  return %3 : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @broadcast_and_reshape
func.func @broadcast_and_reshape(%a: tensor<4x1x3xf32>, %b: tensor<5x1xf32>) -> tensor<*xf32> {
  // CHECK: top.Add{{.*}} -> tensor<4x5x3xf32>
  %0 = top.Add(%a, %b) : (tensor<4x1x3xf32>, tensor<5x1xf32>) -> tensor<*xf32>
  // CHECK: top.Reshape{{.*}} -> tensor<4x15xf32>
  %1 = top.Reshape(%0) {shape = array<i64: 0, -1>} : (tensor<*xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// Strided 1-d conv, 3-d pooling with ceil mode.
// CHECK-LABEL: func @nd
func.func @nd(%x: tensor<2x4x10xf32>, %w: tensor<6x2x3xf32>, %v: tensor<1x2x5x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.Conv{{.*}} -> tensor<2x6x4xf32>
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3>, strides = array<i64: 2>, group = 2 : i64} : (tensor<2x4x10xf32>, tensor<6x2x3xf32>, none) -> tensor<*xf32>
  // CHECK: top.MaxPool{{.*}} -> tensor<1x2x3x3x3xf32>
  %1 = top.MaxPool(%v) {kernel_shape = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, ceil_mode = true} : (tensor<1x2x5x5x5xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
