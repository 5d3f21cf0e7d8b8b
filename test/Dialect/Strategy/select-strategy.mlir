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
  // 3x3 stride 2 with a 4x4 output: not Winograd (its stride-2 form asks
  // for outputs of at least 14x14, @conv_winograd below).
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

// The stride-2 form: 3x3 stride 2, >= 16 channels, outputs of at least
// 14x14 (a 7x7 one stays im2col; so does stride 2 in one direction only).

// CHECK-LABEL: func.func @conv_winograd_stride2
func.func @conv_winograd_stride2(%x: tensor<1x16x28x28xf32>, %w: tensor<16x16x3x3xf32>,
                                 %x14: tensor<1x16x14x14xf32>)
    -> (tensor<1x16x14x14xf32>, tensor<1x16x7x7xf32>, tensor<1x16x14x28xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.winograd_s2", strata.schedule = {tile_hw = 32 : i64}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x28x28xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x14x14xf32>
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm"
  %1 = top.Conv(%x14, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x14x14xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x7x7xf32>
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm"
  %2 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 1>} : (tensor<1x16x28x28xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x14x28xf32>
  return %0, %1, %2 : tensor<1x16x14x14xf32>, tensor<1x16x7x7xf32>, tensor<1x16x14x28xf32>
}

// -----

// 1-d and f16 convs have no kernel: codegen (NHWC too: unittests/Strategy).

// CHECK-LABEL: func.func @conv_codegen
func.func @conv_codegen(%x1: tensor<1x4x16xf32>, %w1: tensor<4x4x3xf32>,
                        %xh: tensor<1x4x8x8xf16>, %wh: tensor<4x4x3x3xf16>)
    -> (tensor<1x4x14xf32>, tensor<1x4x6x6xf16>) {
  %n = top.None() : () -> none
  // CHECK: top.Conv{{.*}}strata.impl = "codegen"
  // CHECK-NOT: strata.schedule
  // CHECK-SAME: -> tensor<1x4x14xf32>
  %1 = top.Conv(%x1, %w1, %n) {kernel_shape = array<i64: 3>} : (tensor<1x4x16xf32>, tensor<4x4x3xf32>, none) -> tensor<1x4x14xf32>
  // CHECK: top.Conv{{.*}}strata.impl = "codegen"
  %2 = top.Conv(%xh, %wh, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x4x8x8xf16>, tensor<4x4x3x3xf16>, none) -> tensor<1x4x6x6xf16>
  return %1, %2 : tensor<1x4x14xf32>, tensor<1x4x6x6xf16>
}

// -----

// MatMul, pooling, softmax, layernorm, elementwise; ops without a kernel
// (Transpose-like Permute here) get codegen; top.Weight / top.None /
// terminators get nothing.

// CHECK-LABEL: func.func @others
func.func @others(%a: tensor<8x64xf32>, %v: tensor<1x64xf32>, %b: tensor<64x32xf32>,
                  %p: tensor<1x4x8x8xf32>) -> (tensor<8x32xf32>, tensor<1x32xf32>, tensor<1x4x4x4xf32>,
                  tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>, tensor<8x64xf32>, tensor<8x64xf32>,
                  tensor<8x64xf32>, tensor<64x8xf32>, tensor<8x64xf32>) {
  %n = top.None() : () -> none
  %w = top.Weight() {name = "w"} : () -> tensor<64xf32>
  // CHECK: top.Weight() {name = "w"} : () -> tensor<64xf32>
  // CHECK: top.MatMul{{.*}}strata.impl = "matmul.gemm_f32"
  %0 = top.MatMul(%a, %b, %n) : (tensor<8x64xf32>, tensor<64x32xf32>, none) -> tensor<8x32xf32>
  // CHECK: top.MatMul{{.*}}strata.impl = "matmul.gemv_f32"
  %1 = top.MatMul(%v, %b, %n) : (tensor<1x64xf32>, tensor<64x32xf32>, none) -> tensor<1x32xf32>
  // CHECK: top.MaxPool{{.*}}strata.impl = "maxpool2d.nchw_f32"
  %2 = top.MaxPool(%p) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: top.AvgPool{{.*}}strata.impl = "avgpool2d.nchw_f32"
  %3 = top.AvgPool(%p) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: top.GlobalAvgPool{{.*}}strata.impl = "globalavgpool.nchw_f32"
  %4 = top.GlobalAvgPool(%p) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  // axis 1 of a rank-2 input is the last axis.
  // CHECK: top.Softmax{{.*}}strata.impl = "softmax.last_axis_f32"
  %5 = top.Softmax(%a) {axis = 1 : i64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  // CHECK: top.LayerNorm{{.*}}strata.impl = "layernorm.last_axis_f32"
  %6 = top.LayerNorm(%a, %w, %w) : (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  // CHECK: top.Relu{{.*}}strata.impl = "relu.eltwise_f32"
  %7 = top.Relu(%a) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  // CHECK: top.Permute{{.*}}strata.impl = "codegen"
  %8 = top.Permute(%a) {order = array<i64: 1, 0>} : (tensor<8x64xf32>) -> tensor<64x8xf32>
  // CHECK: top.Add{{.*}}strata.impl = "add.eltwise_f32"
  %9 = top.Add(%a, %w) : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  // CHECK: return
  // CHECK-NOT: strata.impl
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<8x32xf32>, tensor<1x32xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<64x8xf32>, tensor<8x64xf32>
}

// -----

// A dim unknown at compile time: a guard chain, checked at run time on the
// actual shapes; only the unknown clauses remain in `when`.

// CHECK-LABEL: func.func @guards
func.func @guards(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %n = top.None() : () -> none
  // CHECK: top.MatMul{{.*}}strata.impl = [{impl = "matmul.gemv_f32", schedule = {tile_n = 64 : i64}, when = ["operand 0 dim -2 == 1"]}, {impl = "matmul.gemm_f32", schedule = {tile_k = 256 : i64, tile_m = 64 : i64, tile_n = 256 : i64}}]
  %0 = top.MatMul(%a, %b, %n) : (tensor<?x64xf32>, tensor<64x32xf32>, none) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

// Control flow: the If itself falls back to codegen; the ops of its
// regions are selected like any other.

// CHECK-LABEL: func.func @control_flow
func.func @control_flow(%c: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: top.If %{{.*}} {strata.impl = "codegen"}
  // CHECK: top.Relu{{.*}}strata.impl = "relu.eltwise_f32"
  // CHECK-NOT: strata.impl
  // CHECK: return
  %r = top.If %c : tensor<i1> -> (tensor<4xf32>) then {
    %x = top.Relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    top.Yield %x : tensor<4xf32>
  } else {
    top.Yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// --quantize bf16 convolutions: group 1 (1x1 and windowed) on the bf16 GEMM,
// depthwise on the bf16 depthwise kernel, another grouping on codegen.

// CHECK-LABEL: func.func @conv_bf16
func.func @conv_bf16(%x: tensor<1x32x8x8xbf16>, %w1: tensor<16x32x1x1xbf16>,
                     %w3: tensor<32x32x3x3xbf16>, %wd: tensor<32x1x3x3xbf16>,
                     %wg: tensor<32x8x3x3xbf16>) -> (tensor<1x16x8x8xbf16>, tensor<1x32x4x4xbf16>,
                     tensor<1x32x8x8xbf16>, tensor<1x32x8x8xbf16>) {
  %n = top.None() : () -> none
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm_bf16", strata.schedule = {tile_k = 512 : i64, tile_m = 96 : i64, tile_n = 256 : i64}
  %0 = top.Conv(%x, %w1, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x32x8x8xbf16>, tensor<16x32x1x1xbf16>, none) -> tensor<1x16x8x8xbf16>
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm_bf16"
  %1 = top.Conv(%x, %w3, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x8x8xbf16>, tensor<32x32x3x3xbf16>, none) -> tensor<1x32x4x4xbf16>
  // CHECK: top.Conv{{.*}}strata.impl = "conv2d.depthwise_bf16", strata.schedule = {tile_w = 8 : i64}
  %2 = top.Conv(%x, %wd, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, group = 32 : i64} : (tensor<1x32x8x8xbf16>, tensor<32x1x3x3xbf16>, none) -> tensor<1x32x8x8xbf16>
  // CHECK: top.Conv{{.*}}strata.impl = "codegen"
  %3 = top.Conv(%x, %wg, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, group = 4 : i64} : (tensor<1x32x8x8xbf16>, tensor<32x8x3x3xbf16>, none) -> tensor<1x32x8x8xbf16>
  return %0, %1, %2, %3 : tensor<1x16x8x8xbf16>, tensor<1x32x4x4xbf16>, tensor<1x32x8x8xbf16>, tensor<1x32x8x8xbf16>
}
