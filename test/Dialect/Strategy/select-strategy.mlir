// RUN: strata-opt %s -split-input-file --top-select-strategy="machine=test" | FileCheck %s

// The CPU table's Conv candidates: pointwise as GEMM, depthwise, Winograd
// for 3x3 stride-1 convs with >= 16 channels and outputs of >= 7x7,
// im2col + GEMM otherwise, the integer path by dtype, and codegen for what
// no kernel covers.

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<1x32x8x8xf32>, %w1: tensor<16x32x1x1xf32>,
                %w3: tensor<32x32x3x3xf32>, %wd: tensor<32x1x3x3xf32>,
                %w5: tensor<8x32x5x5xf32>, %x8: tensor<1x8x8x8xf32>,
                %w8: tensor<8x8x3x3xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x32x8x8xf32>,
                tensor<1x32x8x8xf32>, tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>, tensor<1x32x4x4xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.None() : () -> none
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.1x1_gemm", strata.schedule = {tile_k = 256 : i64, tile_m = 64 : i64, tile_n = 256 : i64}
  %0 = top.Conv(%x, %w1, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x32x8x8xf32>, tensor<16x32x1x1xf32>, none) -> tensor<1x16x8x8xf32>
  // 3x3 stride 1, >= 16 channels, an 8x8 output: Winograd (the kernel
  // takes F(2x2, 3x3) there).
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.winograd_f43"
  %1 = top.Conv(%x, %w3, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32>, none) -> tensor<1x32x8x8xf32>
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.depthwise", strata.schedule = {tile_w = 8 : i64}
  %2 = top.Conv(%x, %wd, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, group = 32 : i64} : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>, none) -> tensor<1x32x8x8xf32>
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm"
  %3 = top.Conv(%x, %w5, %n) {kernel_shape = array<i64: 5, 5>} : (tensor<1x32x8x8xf32>, tensor<8x32x5x5xf32>, none) -> tensor<1x8x4x4xf32>
  // 3x3 stride 1 but only 8 channels: not Winograd.
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm"
  %4 = top.Conv(%x8, %w8, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  // 3x3 stride 2 with 32 input channels and a 4x4 output: not Winograd
  // (@conv_winograd_stride2 below).
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm"
  %5 = top.Conv(%x, %w3, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32>, none) -> tensor<1x32x4x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x16x8x8xf32>, tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>, tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>, tensor<1x32x4x4xf32>
}

// -----

// Winograd where the output is at least 7x7 (its default tile_hw 32).

// CHECK-LABEL: func.func @conv_winograd
func.func @conv_winograd(%x: tensor<1x16x14x14xf32>, %w: tensor<16x16x3x3xf32>,
                         %x6: tensor<1x16x6x20xf32>) -> (tensor<1x16x14x14xf32>, tensor<1x16x6x20xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.winograd_f43", strata.schedule = {tile_hw = 32 : i64}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x14x14xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x14x14xf32>
  // An output 6 rows high: im2col.
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm"
  %1 = top.Conv(%x6, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x6x20xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x6x20xf32>
  return %0, %1 : tensor<1x16x14x14xf32>, tensor<1x16x6x20xf32>
}

// -----

// The stride-2 form: 3x3 stride 2, >= 64 input and >= 16 output channels,
// outputs of at least 7x7 (not stride 2 in one direction only, not 32
// input channels, not a 4x4 output).

// CHECK-LABEL: func.func @conv_winograd_stride2
func.func @conv_winograd_stride2(%x: tensor<1x64x14x14xf32>, %w: tensor<16x64x3x3xf32>,
                                 %x32: tensor<1x32x28x28xf32>, %w32: tensor<16x32x3x3xf32>,
                                 %x8: tensor<1x64x8x8xf32>)
    -> (tensor<1x16x7x7xf32>, tensor<1x16x7x14xf32>, tensor<1x16x14x14xf32>, tensor<1x16x4x4xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.winograd_s2", strata.schedule = {tile_hw = 16 : i64}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x14x14xf32>, tensor<16x64x3x3xf32>, none) -> tensor<1x16x7x7xf32>
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm"
  %1 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 1>} : (tensor<1x64x14x14xf32>, tensor<16x64x3x3xf32>, none) -> tensor<1x16x7x14xf32>
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm"
  %2 = top.Conv(%x32, %w32, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x28x28xf32>, tensor<16x32x3x3xf32>, none) -> tensor<1x16x14x14xf32>
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm"
  %3 = top.Conv(%x8, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x8x8xf32>, tensor<16x64x3x3xf32>, none) -> tensor<1x16x4x4xf32>
  return %0, %1, %2, %3 : tensor<1x16x7x7xf32>, tensor<1x16x7x14xf32>, tensor<1x16x14x14xf32>, tensor<1x16x4x4xf32>
}
