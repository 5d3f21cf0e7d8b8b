// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of the quantization ops with per-tensor, per-axis, unsigned and
// narrow-range !quant.uniform types.

// CHECK-LABEL: func @quant_dequant
func.func @quant_dequant(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: top.Quant(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01:3>>
  %q = top.Quant(%x) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.1:3>>
  // CHECK: top.Dequant(%{{.*}}) : (tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01:3>>) -> tensor<2x3xf32>
  %d = top.Dequant(%q) : (tensor<2x3x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<2x3xf32>
  // CHECK: top.Quant(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<u8:f32:1, {1.000000e-01:128,2.000000e-01,5.000000e-01:255}>>
  %qa = top.Quant(%x) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<u8:f32:1, {0.1:128, 0.2:0, 0.5:255}>>
  // CHECK: top.Dequant
  %da = top.Dequant(%qa) : (tensor<2x3x!quant.uniform<u8:f32:1, {0.1:128, 0.2:0, 0.5:255}>>) -> tensor<2x3xf32>
  return %d, %da : tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func @quant_unranked_result
func.func @quant_unranked_result(%x: tensor<4xf16>) -> tensor<*x!quant.uniform<i8<-127:127>:f16, 0.25>> {
  // CHECK: top.Quant(%{{.*}}) : (tensor<4xf16>) -> tensor<*x!quant.uniform<i8<-127:127>:f16, 2.500000e-01>>
  %q = top.Quant(%x) : (tensor<4xf16>) -> tensor<*x!quant.uniform<i8<-127:127>:f16, 0.25>>
  return %q : tensor<*x!quant.uniform<i8<-127:127>:f16, 0.25>>
}

// CHECK-LABEL: func @requant
func.func @requant(%acc: tensor<1x2x4x4xi32>, %q: tensor<1x2x4x4x!quant.uniform<i8:f32, 0.5:-1>>)
    -> (tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:-4>>, tensor<1x2x4x4xi8>, tensor<1x2x4x4x!quant.uniform<u8:f32:1, {0.3:10, 0.4:20}>>) {
  // CHECK: top.Requant(%{{.*}}) {multiplier = array<i64: 1717986918>, quant_mode = #top.requant_mode<TFLite>, rshift = array<i64: 5>}
  %0 = top.Requant(%acc) {multiplier = array<i64: 1717986918>, rshift = array<i64: 5>, quant_mode = #top.requant_mode<TFLite>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:-4>>
  // The default quant_mode is not printed.
  // CHECK: top.Requant(%{{.*}}) {multiplier = array<i64: 3, 5>, rshift = array<i64: 2>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xi8>
  %1 = top.Requant(%acc) {multiplier = array<i64: 3, 5>, rshift = array<i64: 2>, quant_mode = #top.requant_mode<MultiplierShift>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xi8>
  // CHECK: top.Requant(%{{.*}}) {quant_mode = #top.requant_mode<Float>}
  %2 = top.Requant(%q) {quant_mode = #top.requant_mode<Float>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<1x2x4x4x!quant.uniform<u8:f32:1, {0.3:10, 0.4:20}>>
  return %0, %1, %2 : tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:-4>>, tensor<1x2x4x4xi8>, tensor<1x2x4x4x!quant.uniform<u8:f32:1, {0.3:10, 0.4:20}>>
}

// The TOSA modes, and per-channel values on the last dim (axis).
// CHECK-LABEL: func.func @requant_tosa
// CHECK: top.Requant(%{{.*}}) {axis = 3 : i64, multiplier = array<i64: 1073741824, 1518500250, 3, 4>, quant_mode = #top.requant_mode<TosaDoubleRound>, rshift = array<i64: 36>} : (tensor<1x2x2x4xi32>) -> tensor<1x2x2x4xi8>
// CHECK: top.Requant(%{{.*}}) {multiplier = array<i64: 1073741824>, quant_mode = #top.requant_mode<TosaSingleRound>, rshift = array<i64: 30>} : (tensor<1x2x2x4xi32>) -> tensor<1x2x2x4xui8>
func.func @requant_tosa(%acc: tensor<1x2x2x4xi32>) -> (tensor<1x2x2x4xi8>, tensor<1x2x2x4xui8>) {
  %0 = top.Requant(%acc) {multiplier = array<i64: 1073741824, 1518500250, 3, 4>, rshift = array<i64: 36>, axis = 3 : i64, quant_mode = #top.requant_mode<TosaDoubleRound>} : (tensor<1x2x2x4xi32>) -> tensor<1x2x2x4xi8>
  %1 = top.Requant(%acc) {multiplier = array<i64: 1073741824>, rshift = array<i64: 30>, quant_mode = #top.requant_mode<TosaSingleRound>} : (tensor<1x2x2x4xi32>) -> tensor<1x2x2x4xui8>
  return %0, %1 : tensor<1x2x2x4xi8>, tensor<1x2x2x4xui8>
}
