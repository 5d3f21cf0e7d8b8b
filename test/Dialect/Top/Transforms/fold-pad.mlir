// RUN: strata-opt %s --top-fold-pad --split-input-file | FileCheck %s

// CHECK-LABEL: func @pad_conv
// CHECK-NOT: top.Pad
// CHECK: top.Conv{{.*}}pads = array<i64: 2, 1, 2, 3>
func.func @pad_conv(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x8x10x10xf32> {
  %0 = top.Input(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %p = top.Pad(%0) {pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%p, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x10x10xf32>
  return %1 : tensor<1x8x10x10xf32>
}

// -----

// Reflect padding is not zero padding.
// CHECK-LABEL: func @reflect
// CHECK: top.Pad
// CHECK: top.Conv{{.*}}pads = array<i64: 0, 0, 0, 0>
func.func @reflect(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = top.Input(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %p = top.Pad(%0) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = #top.pad_mode<reflect>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%p, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  return %1 : tensor<1x8x8x8xf32>
}

// -----

// Padding the channel dim cannot move into the conv; a non-zero value
// cannot either; a max pool only absorbs -inf padding.
// CHECK-LABEL: func @not_foldable
// CHECK-COUNT-3: top.Pad
func.func @not_foldable(%arg0: tensor<1x3x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x3x9x9xf32>) {
  %0 = top.Input(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %p1 = top.Pad(%0) {pads = array<i64: 0, 1, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x4x10x10xf32>
  %w1 = top.Weight() {name = "w1"} : () -> tensor<8x4x3x3xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%p1, %w1, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  %p2 = top.Pad(%0) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 1.0} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  %w2 = top.Weight() {name = "w2"} : () -> tensor<8x3x3x3xf32>
  %2 = top.Conv(%p2, %w2, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  %p3 = top.Pad(%0) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  %3 = top.MaxPool(%p3) {kernel_shape = array<i64: 2, 2>} : (tensor<1x3x10x10xf32>) -> tensor<1x3x9x9xf32>
  return %1, %2, %3 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x3x9x9xf32>
}

// -----

// A convolution with an input zero point pads with that zero point: a Pad
// of 0 changes the result and stays; a Pad of the zero point folds; a zero
// point that differs per channel takes no Pad.
// CHECK-LABEL: func @input_zero_point
// CHECK: %[[P:.*]] = top.Pad
// CHECK: top.Conv(%[[P]]
// CHECK-NOT: top.Pad
// CHECK: top.Conv{{.*}}pads = array<i64: 1, 1, 1, 1>
// CHECK: %[[P3:.*]] = top.Pad
// CHECK: top.Conv(%[[P3]]
func.func @input_zero_point(%arg0: tensor<1x2x8x8xi8>) -> (tensor<1x4x8x8xi32>, tensor<1x4x8x8xi32>, tensor<1x4x8x8xi32>) {
  %0 = top.Input(%arg0) : (tensor<1x2x8x8xi8>) -> tensor<1x2x8x8xi8>
  %w = top.Weight() {name = "w"} : () -> tensor<4x2x3x3xi8>
  %n = top.None() : () -> none
  %p1 = top.Pad(%0) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x2x8x8xi8>) -> tensor<1x2x10x10xi8>
  %1 = top.Conv(%p1, %w, %n) {kernel_shape = array<i64: 3, 3>, input_zp = array<i64: 3>} : (tensor<1x2x10x10xi8>, tensor<4x2x3x3xi8>, none) -> tensor<1x4x8x8xi32>
  %p2 = top.Pad(%0) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 3.0} : (tensor<1x2x8x8xi8>) -> tensor<1x2x10x10xi8>
  %2 = top.Conv(%p2, %w, %n) {kernel_shape = array<i64: 3, 3>, input_zp = array<i64: 3>} : (tensor<1x2x10x10xi8>, tensor<4x2x3x3xi8>, none) -> tensor<1x4x8x8xi32>
  %p3 = top.Pad(%0) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 3.0} : (tensor<1x2x8x8xi8>) -> tensor<1x2x10x10xi8>
  %3 = top.Conv(%p3, %w, %n) {kernel_shape = array<i64: 3, 3>, input_zp = array<i64: 3, 4>} : (tensor<1x2x10x10xi8>, tensor<4x2x3x3xi8>, none) -> tensor<1x4x8x8xi32>
  return %1, %2, %3 : tensor<1x4x8x8xi32>, tensor<1x4x8x8xi32>, tensor<1x4x8x8xi32>
}
