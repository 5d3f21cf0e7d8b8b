// RUN: strata-opt %s -split-input-file --top-select-strategy --strata-cpu-outline-dispatches | FileCheck %s

// An int8 Conv / MatMul the strategy gave an int8 kernel and the Requant of
// its accumulator (its only user) share one dispatch: the kernel fuses the
// Requant into its epilogue (lib/Target/Cpu/Int8KernelDispatch.cpp).

!qx = !quant.uniform<i8:f32, 0.02:-22>
!qy = !quant.uniform<i8:f32, 0.04:-128>
!qw = !quant.uniform<i8:f32:0, {0.007,0.006}>

// CHECK-LABEL: func.func private @dispatch_1_Conv
// CHECK-SAME: -> tensor<1x2x5x5x!quant.uniform<i8:f32, 4.000000e-02:-128>>
// CHECK: %[[ACC:.*]] = top.Conv
// CHECK-SAME: strata.impl = "conv2d.im2col_gemm_i8"
// CHECK-NEXT: %[[Y:.*]] = top.Requant(%[[ACC]])
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @main
// CHECK: call @dispatch_1_Conv
// CHECK-NOT: top.Requant
// CHECK: call @dispatch_2_Dequant
func.func @main(%arg0: tensor<1x3x5x5xf32> {top.name = "x"}) -> (tensor<1x2x5x5xf32> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %xq = top.Quant(%x) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5x!qx>
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x3x3x!qw>
  %b = top.Weight() {name = "b"} : () -> tensor<2xi32>
  %acc = top.Conv(%xq, %w, %b) {do_relu = true, input_zp = array<i64: -22>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x5x5x!qx>, tensor<2x3x3x3x!qw>, tensor<2xi32>) -> tensor<1x2x5x5xi32>
  %yq = top.Requant(%acc) {multiplier = array<i64: 1079423522, 1820147114>, rshift = array<i64: 37, 38>} : (tensor<1x2x5x5xi32>) -> tensor<1x2x5x5x!qy>
  %y = top.Dequant(%yq) : (tensor<1x2x5x5x!qy>) -> tensor<1x2x5x5xf32>
  return %y : tensor<1x2x5x5xf32>
}

// -----

// The accumulator has a second user: the Requant stays its own dispatch.

!qx = !quant.uniform<i8:f32, 0.02:-22>
!qy = !quant.uniform<i8:f32, 0.04:-128>
!qw = !quant.uniform<i8:f32:0, {0.007,0.006}>

// CHECK-LABEL: func.func private @dispatch_1_Conv
// CHECK-NOT: top.Requant
// CHECK: return
// CHECK-LABEL: func.func private @dispatch_2_Requant
func.func @main(%arg0: tensor<1x3x5x5xf32> {top.name = "x"}) -> (tensor<1x2x5x5x!qy> {top.name = "y"}, tensor<1x2x5x5xi32> {top.name = "acc"}) {
  %x = top.Input(%arg0) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %xq = top.Quant(%x) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5x!qx>
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x3x3x!qw>
  %n = top.None() : () -> none
  %acc = top.Conv(%xq, %w, %n) {input_zp = array<i64: -22>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x5x5x!qx>, tensor<2x3x3x3x!qw>, none) -> tensor<1x2x5x5xi32>
  %yq = top.Requant(%acc) {multiplier = array<i64: 1079423522, 1820147114>, rshift = array<i64: 37, 38>} : (tensor<1x2x5x5xi32>) -> tensor<1x2x5x5x!qy>
  return %yq, %acc : tensor<1x2x5x5x!qy>, tensor<1x2x5x5xi32>
}

// -----

// A TFLite-mode Requant (gemmlowp's double rounding) is not fused (the
// kernels round as MultiplierShift or TosaSingleRound).

!qx = !quant.uniform<i8:f32, 0.02:-22>
!qy = !quant.uniform<i8:f32, 0.04:-128>
!qw = !quant.uniform<i8:f32:0, {0.007,0.006}>

// CHECK-LABEL: func.func private @dispatch_1_Conv
// CHECK-NOT: top.Requant
// CHECK: return
// CHECK-LABEL: func.func private @dispatch_2_Requant
func.func @main(%arg0: tensor<1x3x5x5xf32> {top.name = "x"}) -> (tensor<1x2x5x5x!qy> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %xq = top.Quant(%x) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5x!qx>
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x3x3x!qw>
  %n = top.None() : () -> none
  %acc = top.Conv(%xq, %w, %n) {input_zp = array<i64: -22>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x5x5x!qx>, tensor<2x3x3x3x!qw>, none) -> tensor<1x2x5x5xi32>
  %yq = top.Requant(%acc) {multiplier = array<i64: 1079423522, 1820147114>, rshift = array<i64: 37, 38>, quant_mode = #top.requant_mode<TFLite>} : (tensor<1x2x5x5xi32>) -> tensor<1x2x5x5x!qy>
  return %yq : tensor<1x2x5x5x!qy>
}

// -----

// A TosaSingleRound Requant (the TOSA importer's) is fused: the kernel's
// epilogue rounds half up.

!qx = !quant.uniform<i8:f32, 0.02:-22>
!qy = !quant.uniform<i8:f32, 0.04:-128>
!qw = !quant.uniform<i8:f32:0, {0.007,0.006}>

// CHECK-LABEL: func.func private @dispatch_1_Conv
// CHECK: %[[ACC:.*]] = top.Conv
// CHECK-SAME: strata.impl = "conv2d.im2col_gemm_i8"
// CHECK-NEXT: %[[Y:.*]] = top.Requant(%[[ACC]])
// CHECK-SAME: quant_mode = #top.requant_mode<TosaSingleRound>
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @main
// CHECK: call @dispatch_1_Conv
// CHECK-NOT: top.Requant
// CHECK: return
func.func @main(%arg0: tensor<1x3x5x5xf32> {top.name = "x"}) -> (tensor<1x2x5x5x!qy> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %xq = top.Quant(%x) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5x!qx>
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x3x3x!qw>
  %n = top.None() : () -> none
  %acc = top.Conv(%xq, %w, %n) {input_zp = array<i64: -22>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x5x5x!qx>, tensor<2x3x3x3x!qw>, none) -> tensor<1x2x5x5xi32>
  %yq = top.Requant(%acc) {multiplier = array<i64: 1079423522, 1820147114>, rshift = array<i64: 37, 38>, quant_mode = #top.requant_mode<TosaSingleRound>} : (tensor<1x2x5x5xi32>) -> tensor<1x2x5x5x!qy>
  return %yq : tensor<1x2x5x5x!qy>
}

// -----

// A TFLiteHalfUp Requant (the TFLite importer's CONV_2D / FULLY_CONNECTED)
// is fused too.

!qx = !quant.uniform<i8:f32, 0.02:-22>
!qy = !quant.uniform<i8:f32, 0.04:-128>
!qw = !quant.uniform<i8:f32:0, {0.007,0.006}>

// CHECK-LABEL: func.func private @dispatch_1_Conv
// CHECK: %[[ACC:.*]] = top.Conv
// CHECK-SAME: strata.impl = "conv2d.im2col_gemm_i8"
// CHECK-NEXT: %[[Y:.*]] = top.Requant(%[[ACC]])
// CHECK-SAME: quant_mode = #top.requant_mode<TFLiteHalfUp>
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @main
// CHECK: call @dispatch_1_Conv
// CHECK-NOT: top.Requant
// CHECK: return
func.func @main(%arg0: tensor<1x3x5x5xf32> {top.name = "x"}) -> (tensor<1x2x5x5x!qy> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %xq = top.Quant(%x) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5x!qx>
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x3x3x!qw>
  %n = top.None() : () -> none
  %acc = top.Conv(%xq, %w, %n) {input_zp = array<i64: -22>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x5x5x!qx>, tensor<2x3x3x3x!qw>, none) -> tensor<1x2x5x5xi32>
  %yq = top.Requant(%acc) {multiplier = array<i64: 1079423522, 1820147114>, rshift = array<i64: 6, 7>, quant_mode = #top.requant_mode<TFLiteHalfUp>} : (tensor<1x2x5x5xi32>) -> tensor<1x2x5x5x!qy>
  return %yq : tensor<1x2x5x5x!qy>
}
