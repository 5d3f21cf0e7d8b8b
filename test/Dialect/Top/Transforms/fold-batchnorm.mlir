// RUN: strata-opt %s --top-fold-batchnorm --split-input-file | FileCheck %s
// The folded values are checked numerically in test/numeric/test_optimize.py.

// CHECK-LABEL: func @conv_bn
// CHECK-NOT: top.BatchNorm
// CHECK: %[[F:.*]] = top.Weight() {name = "bn_filter", value = dense_resource
// CHECK: %[[B:.*]] = top.Weight() {name = "bn_bias", value = dense_resource
// CHECK: top.Conv(%{{.*}}, %[[F]], %[[B]])
func.func @conv_bn(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %w = top.Weight() {name = "w", value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %m = top.Weight() {name = "m", value = dense<[0.5, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %v = top.Weight() {name = "v", value = dense<[4.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %2 = top.BatchNorm(%1, %m, %v, %n, %n) {epsilon = 0.0} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, none, none) -> tensor<1x2x4x4xf32> loc("bn")
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// Per-channel Mul then Add fold; a Mul that varies along the width does not.
// CHECK-LABEL: func @scale_shift
// CHECK: top.Conv
// CHECK-NOT: top.Add
// CHECK: top.Mul
// CHECK-NEXT: return
func.func @scale_shift(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %w = top.Weight() {name = "w", value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %s = top.Weight() {name = "s", value = dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>} : () -> tensor<2x1x1xf32>
  %2 = top.Mul(%1, %s) : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %t = top.Weight() {name = "t", value = dense<[[[[1.0]], [[-1.0]]]]> : tensor<1x2x1x1xf32>} : () -> tensor<1x2x1x1xf32>
  %3 = top.Add(%t, %2) : (tensor<1x2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %u = top.Weight() {name = "u", value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %4 = top.Mul(%3, %u) : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x4x4xf32>
  return %4 : tensor<1x2x4x4xf32>
}

// -----

// Statistics that are not constants, and a conv with a second user, stay.
// CHECK-LABEL: func @not_foldable
// CHECK-COUNT-2: top.BatchNorm
func.func @not_foldable(%arg0: tensor<1x2x4x4xf32>, %arg1: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %mean = top.Input(%arg1) : (tensor<2xf32>) -> tensor<2xf32>
  %w = top.Weight() {name = "w", value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = top.None() : () -> none
  %v = top.Weight() {name = "v", value = dense<[4.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %2 = top.BatchNorm(%1, %mean, %v, %n, %n) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, none, none) -> tensor<1x2x4x4xf32>
  %3 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %4 = top.BatchNorm(%3, %v, %v, %n, %n) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, none, none) -> tensor<1x2x4x4xf32>
  return %2, %3, %4 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A convolution with no output channels folds (into empty weights) rather
// than dividing its filter's size by 0 channels.
// CHECK-LABEL: func @no_channels
// CHECK-NOT: top.BatchNorm
// CHECK-NOT: top.Mul
// CHECK: top.Conv
func.func @no_channels(%arg0: tensor<1x2x4x4xf32>) -> (tensor<1x0x4x4xf32>, tensor<1x0x4x4xf32>) {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %w = top.Weight() {name = "w", value = dense<> : tensor<0x2x1x1xf32>} : () -> tensor<0x2x1x1xf32>
  %e = top.Weight() {name = "e", value = dense<> : tensor<0xf32>} : () -> tensor<0xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<0x2x1x1xf32>, none) -> tensor<1x0x4x4xf32>
  %2 = top.BatchNorm(%1, %e, %e, %n, %n) : (tensor<1x0x4x4xf32>, tensor<0xf32>, tensor<0xf32>, none, none) -> tensor<1x0x4x4xf32>
  %3 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<0x2x1x1xf32>, none) -> tensor<1x0x4x4xf32>
  %s = top.Weight() {name = "s", value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %4 = top.Mul(%3, %s) : (tensor<1x0x4x4xf32>, tensor<1xf32>) -> tensor<1x0x4x4xf32>
  return %2, %4 : tensor<1x0x4x4xf32>, tensor<1x0x4x4xf32>
}

// -----

// A transposed convolution (filter [C, O/G, KH, KW]) with two groups: the
// BatchNorm and a per-channel Add fold into its filter and bias; the Relu
// after them is left for top-fuse-activation.
// CHECK-LABEL: func @deconv_add_bn
// CHECK-NOT: top.BatchNorm
// CHECK-NOT: top.Add
// CHECK: %[[F:.*]] = top.Weight() {name = "bn2_filter", value = dense_resource
// CHECK: %[[B:.*]] = top.Weight() {name = "bn2_bias", value = dense_resource
// CHECK: %[[D:.*]] = top.Deconv(%{{.*}}, %[[F]], %[[B]])
// CHECK-NEXT: top.Relu(%[[D]])
func.func @deconv_add_bn(%arg0: tensor<1x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %0 = top.Input(%arg0) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %w = top.Weight() {name = "w", value = dense<1.0> : tensor<4x3x2x2xf32>} : () -> tensor<4x3x2x2xf32>
  %n = top.None() : () -> none
  %1 = top.Deconv(%0, %w, %n) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, group = 2 : i64} : (tensor<1x4x3x3xf32>, tensor<4x3x2x2xf32>, none) -> tensor<1x6x6x6xf32>
  %t = top.Weight() {name = "t", value = dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]]]> : tensor<6x1x1xf32>} : () -> tensor<6x1x1xf32>
  %2 = top.Add(%1, %t) : (tensor<1x6x6x6xf32>, tensor<6x1x1xf32>) -> tensor<1x6x6x6xf32> loc("bn1")
  %m = top.Weight() {name = "m", value = dense<[0.5, 1.0, 0.0, 0.0, 1.0, 2.0]> : tensor<6xf32>} : () -> tensor<6xf32>
  %v = top.Weight() {name = "v", value = dense<[4.0, 1.0, 1.0, 4.0, 9.0, 1.0]> : tensor<6xf32>} : () -> tensor<6xf32>
  %3 = top.BatchNorm(%2, %m, %v, %n, %n) {epsilon = 0.0} : (tensor<1x6x6x6xf32>, tensor<6xf32>, tensor<6xf32>, none, none) -> tensor<1x6x6x6xf32> loc("bn2")
  %4 = top.Relu(%3) : (tensor<1x6x6x6xf32>) -> tensor<1x6x6x6xf32>
  return %4 : tensor<1x6x6x6xf32>
}

// -----

// A transposed convolution that already applies relu does not fold.
// CHECK-LABEL: func @deconv_relu_bn
// CHECK: top.Deconv
// CHECK: top.BatchNorm
func.func @deconv_relu_bn(%arg0: tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %w = top.Weight() {name = "w", value = dense<1.0> : tensor<2x2x2x2xf32>} : () -> tensor<2x2x2x2xf32>
  %n = top.None() : () -> none
  %1 = top.Deconv(%0, %w, %n) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, do_relu = true} : (tensor<1x2x3x3xf32>, tensor<2x2x2x2xf32>, none) -> tensor<1x2x6x6xf32>
  %m = top.Weight() {name = "m", value = dense<[0.5, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %2 = top.BatchNorm(%1, %m, %m, %n, %n) : (tensor<1x2x6x6xf32>, tensor<2xf32>, tensor<2xf32>, none, none) -> tensor<1x2x6x6xf32>
  return %2 : tensor<1x2x6x6xf32>
}

// -----

// x * s + t (scalars, either operand order) before a 1x1 convolution folds
// into its filter and bias; before a padded 3x3 one it stays (the padding
// reads zeros, not t).
// CHECK-LABEL: func @affine_before_conv
// CHECK-NOT: top.Mul
// CHECK-NOT: top.Add
// CHECK: %[[F:.*]] = top.Weight() {name = "pw_affine_filter", value = dense_resource
// CHECK: %[[B:.*]] = top.Weight() {name = "pw_affine_bias", value = dense_resource
// CHECK: top.Conv(%{{.*}}, %[[F]], %[[B]])
func.func @affine_before_conv(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = top.Weight() {name = "s", value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %t = top.Weight() {name = "t", value = dense<0.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %w = top.Weight() {name = "w", value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %b = top.Weight() {name = "b", value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %1 = top.Mul(%s, %0) : (tensor<1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = top.Add(%1, %t) : (tensor<1x2x4x4xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
  %3 = top.Conv(%2, %w, %b) {kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32> loc("pw")
  return %3 : tensor<1x3x4x4xf32>
}

// -----

// CHECK-LABEL: func @affine_before_padded_conv
// CHECK: top.Mul
// CHECK: top.Add
// CHECK: top.Conv
func.func @affine_before_padded_conv(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = top.Weight() {name = "s", value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %t = top.Weight() {name = "t", value = dense<0.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %w = top.Weight() {name = "w", value = dense<1.0> : tensor<3x2x3x3xf32>} : () -> tensor<3x2x3x3xf32>
  %n = top.None() : () -> none
  %1 = top.Mul(%0, %s) : (tensor<1x2x4x4xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
  %2 = top.Add(%t, %1) : (tensor<1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %3 = top.Conv(%2, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, none) -> tensor<1x3x4x4xf32>
  return %3 : tensor<1x3x4x4xf32>
}
