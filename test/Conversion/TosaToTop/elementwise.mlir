// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// What convert-tosa-to-top writes for the elementwise ops (the numbers are
// checked in test/tosa/test_elementwise.py).

// CHECK-LABEL: func.func @add
// CHECK: %[[A:.*]] = top.Input(%arg0)
// CHECK: %[[B:.*]] = top.Input(%arg1)
// CHECK: top.Add(%[[A]], %[[B]]) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
func.func @add(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// An i8 x i8 -> i32 mul widens both operands first.
// CHECK-LABEL: func.func @mul_i8
// CHECK: %[[A:.*]] = top.Cast(%{{.*}}) : (tensor<4xi8>) -> tensor<4xi32>
// CHECK: %[[B:.*]] = top.Cast(%{{.*}}) : (tensor<4xi8>) -> tensor<4xi32>
// CHECK: top.Mul(%[[A]], %[[B]]) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
func.func @mul_i8(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi32> {
  %s = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %s : (tensor<4xi8>, tensor<4xi8>, tensor<1xi8>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// With a shift, in i64: floor((a * b + 2^(s-1)) / 2^s); the floor division
// is a truncating one adjusted for negative dividends.
// CHECK-LABEL: func.func @mul_shift
// CHECK: top.Mul({{.*}}) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK: value = dense<4> : tensor<i64>
// CHECK: top.Add
// CHECK: value = dense<8> : tensor<i64>
// CHECK: top.Compare({{.*}}) {mode = #top.compare_mode<Less>}
// CHECK: top.Where
// CHECK: top.Cast({{.*}}) : (tensor<4xi64>) -> tensor<4xi32>
func.func @mul_shift(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %s = "tosa.const"() {values = dense<3> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %s : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @compare_select
// CHECK: %[[C:.*]] = top.Compare(%{{.*}}, %{{.*}}) {mode = #top.compare_mode<GreaterOrEqual>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: top.Where(%[[C]], %{{.*}}, %{{.*}}) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @compare_select(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = tosa.greater_equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %0 = tosa.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Float clamp is top.Clip; integer clamp is Max then Min.
// CHECK-LABEL: func.func @clamp
// CHECK: top.Clip(%{{.*}}) {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK: top.Max({{.*}}) : (tensor<4xi8>, tensor<i8>) -> tensor<4xi8>
// CHECK: top.Min({{.*}}) : (tensor<4xi8>, tensor<i8>) -> tensor<4xi8>
func.func @clamp(%a: tensor<4xf32>, %b: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xi8>) {
  %0 = tosa.clamp %a {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.clamp %b {min_val = -5 : i8, max_val = 100 : i8} : (tensor<4xi8>) -> tensor<4xi8>
  return %0, %1 : tensor<4xf32>, tensor<4xi8>
}

// Logical shifts shift the bits as unsigned.
// CHECK-LABEL: func.func @logical_shift
// CHECK: top.Cast({{.*}}) : (tensor<4xi8>) -> tensor<4xui8>
// CHECK: top.BitShift({{.*}}) {direction = #top.shift_direction<RIGHT>} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
// CHECK: top.Cast({{.*}}) : (tensor<4xui8>) -> tensor<4xi8>
func.func @logical_shift(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %0 = tosa.logical_right_shift %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// CHECK-LABEL: func.func @unary
// CHECK: top.Sigmoid
// CHECK: top.Tanh
// CHECK: top.Erf
// CHECK: top.Rsqrt
// CHECK: value = dense<1.000000e+00> : tensor<f32>
// CHECK: top.Div
func.func @unary(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.sigmoid %a : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.tanh %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = tosa.erf %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = tosa.rsqrt %2 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = tosa.reciprocal %3 : (tensor<4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// float -> int cast rounds half to even (top.Cast truncates) before casting.
// CHECK-LABEL: func.func @cast_f32_i8
// CHECK: top.Cast(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf64>
// CHECK: top.Cast({{.*}}) : (tensor<4xf64>) -> tensor<4xi8>
func.func @cast_f32_i8(%a: tensor<4xf32>) -> tensor<4xi8> {
  %0 = tosa.cast %a : (tensor<4xf32>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
