// RUN: strata-opt %s --top-fold-matmul-bias --split-input-file | FileCheck %s
// The folded values are checked numerically in test/onnx/test_optimize.py.

// A [N] and a [1, 1, N] constant become the bias.
// CHECK-LABEL: func @matmul_add
// CHECK: %[[B:.*]] = top.Weight() {name = "b"
// CHECK: top.MatMul(%{{.*}}, %{{.*}}, %[[B]])
// CHECK: %[[C:.*]] = top.Weight() {name = "c"
// CHECK: top.MatMul(%{{.*}}, %{{.*}}, %[[C]])
// CHECK-NOT: top.Add
func.func @matmul_add(%arg0: tensor<2x3x4xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %0 = top.Input(%arg0) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %n = top.None() : () -> none
  %1 = top.MatMul(%0, %w, %n) : (tensor<2x3x4xf32>, tensor<4x5xf32>, none) -> tensor<2x3x5xf32>
  %b = top.Weight() {name = "b", value = dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>} : () -> tensor<5xf32>
  %2 = top.Add(%1, %b) : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32> loc("add")
  %3 = top.MatMul(%0, %w, %n) : (tensor<2x3x4xf32>, tensor<4x5xf32>, none) -> tensor<2x3x5xf32>
  %c = top.Weight() {name = "c", value = dense<1.0> : tensor<1x1x5xf32>} : () -> tensor<1x1x5xf32>
  %4 = top.Add(%c, %3) : (tensor<1x1x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %2, %4 : tensor<2x3x5xf32>, tensor<2x3x5xf32>
}

// -----

// An existing constant bias is summed with the added one.
// CHECK-LABEL: func @bias_sum
// CHECK: %[[S:.*]] = top.Weight() {name = "matmul_bias", value = dense_resource
// CHECK: top.MatMul(%{{.*}}, %{{.*}}, %[[S]])
// CHECK-NOT: top.Add
func.func @bias_sum(%arg0: tensor<2x4xf32>) -> tensor<2x5xf32> {
  %0 = top.Input(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %b0 = top.Weight() {name = "b0", value = dense<1.0> : tensor<5xf32>} : () -> tensor<5xf32>
  %1 = top.MatMul(%0, %w, %b0) : (tensor<2x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %b = top.Weight() {name = "b", value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %2 = top.Add(%1, %b) : (tensor<2x5xf32>, tensor<1xf32>) -> tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}

// -----

// Not folded: the MatMul has another user; the added value is not a
// constant; it varies along another dim ([3, 1]... as [3, 5]); it broadcasts
// the result to a larger shape; the MatMul applies relu; the Add applies
// relu.
// CHECK-LABEL: func @not_folded
// CHECK-COUNT-6: top.Add
func.func @not_folded(%arg0: tensor<3x4xf32>, %arg1: tensor<5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<2x3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %0 = top.Input(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %v = top.Input(%arg1) : (tensor<5xf32>) -> tensor<5xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %n = top.None() : () -> none
  %b = top.Weight() {name = "b", value = dense<1.0> : tensor<5xf32>} : () -> tensor<5xf32>
  %m = top.Weight() {name = "m", value = dense<1.0> : tensor<3x5xf32>} : () -> tensor<3x5xf32>
  %big = top.Weight() {name = "big", value = dense<1.0> : tensor<2x1x5xf32>} : () -> tensor<2x1x5xf32>
  %1 = top.MatMul(%0, %w, %n) : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %2 = top.Add(%1, %b) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %3 = top.MatMul(%0, %w, %n) : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %4 = top.Add(%3, %v) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %5 = top.MatMul(%0, %w, %n) : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %6 = top.Add(%5, %m) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %7 = top.MatMul(%0, %w, %n) : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %8 = top.Add(%7, %big) : (tensor<3x5xf32>, tensor<2x1x5xf32>) -> tensor<2x3x5xf32>
  %9 = top.MatMul(%0, %w, %n) {do_relu = true} : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %10 = top.Add(%9, %b) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %11 = top.MatMul(%0, %w, %n) : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %12 = top.Add(%11, %b) {do_relu = true} : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %1, %2, %4, %6, %8, %10, %12 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<2x3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}
