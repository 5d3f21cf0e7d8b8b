// RUN: strata-opt %s --top-fuse-activation --split-input-file | FileCheck %s

// CHECK-LABEL: func @conv_relu
// CHECK: top.Conv{{.*}}do_relu = true
// CHECK-NOT: top.Relu
func.func @conv_relu(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = top.Input(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  %2 = top.Relu(%1) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %2 : tensor<1x8x8x8xf32>
}

// -----

// relu6 as clip(0, 6) fuses with a limit.
// CHECK-LABEL: func @matmul_relu6
// CHECK: top.MatMul{{.*}}do_relu = true, relu_limit = 6.0
// CHECK-NOT: top.Clip
func.func @matmul_relu6(%arg0: tensor<2x4xf32>) -> tensor<2x5xf32> {
  %0 = top.Input(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %n = top.None() : () -> none
  %1 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %2 = top.Clip(%1) {min = 0.0, max = 6.0} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}

// -----

// The conv result has a second user: fusing would change what it sees.
// CHECK-LABEL: func @multi_use
// CHECK: top.Conv
// CHECK-NOT: do_relu = true
// CHECK: top.Relu
func.func @multi_use(%arg0: tensor<1x3x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %0 = top.Input(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  %2 = top.Relu(%1) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %1, %2 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// -----

// A clip with a non-zero lower bound is not a relu.
// CHECK-LABEL: func @clip_not_relu
// CHECK: top.MatMul
// CHECK-NOT: do_relu = true
// CHECK: top.Clip
func.func @clip_not_relu(%arg0: tensor<2x4xf32>) -> tensor<2x5xf32> {
  %0 = top.Input(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %n = top.None() : () -> none
  %1 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %2 = top.Clip(%1) {min = -1.0, max = 6.0} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}

// -----

// A producer that already applies relu keeps the separate clip.
// CHECK-LABEL: func @already_relu
// CHECK: top.Clip
func.func @already_relu(%arg0: tensor<2x4xf32>) -> tensor<2x5xf32> {
  %0 = top.Input(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %n = top.None() : () -> none
  %1 = top.MatMul(%0, %w, %n) {do_relu = true} : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %2 = top.Clip(%1) {min = 0.0, max = 6.0} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}
