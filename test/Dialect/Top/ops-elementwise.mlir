// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of the elementwise, activation, Where, Compare and Cast ops.

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: top.Sub(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = top.Sub(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Mul(%{{.*}}, %{{.*}}) {do_relu = true} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = top.Mul(%a, %s) {do_relu = true} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: top.Div(%{{.*}}, %{{.*}}) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = top.Div(%b, %a) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Max(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = top.Max(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Min(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = top.Min(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Pow(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<*xf32>
  %5 = top.Pow(%a, %s) : (tensor<2x3xf32>, tensor<f32>) -> tensor<*xf32>
  %6 = top.Add(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = top.Add(%6, %5) : (tensor<2x3xf32>, tensor<*xf32>) -> tensor<2x3xf32>
  return %7, %1, %2, %3, %4, %0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func @integer
func.func @integer(%a: tensor<4xi32>, %b: tensor<1xi32>, %u: tensor<4xui8>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xui8>) {
  // CHECK: top.Div(%{{.*}}, %{{.*}}) : (tensor<4xi32>, tensor<1xi32>) -> tensor<4xi32>
  %0 = top.Div(%a, %b) : (tensor<4xi32>, tensor<1xi32>) -> tensor<4xi32>
  // CHECK: top.Abs(%{{.*}}) : (tensor<4xi32>) -> tensor<4xi32>
  %1 = top.Abs(%0) : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: top.Neg(%{{.*}}) : (tensor<4xi32>) -> tensor<4xi32>
  %2 = top.Neg(%1) : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: top.Max(%{{.*}}, %{{.*}}) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %3 = top.Max(%u, %u) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xui8>
}

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK: top.LeakyRelu(%{{.*}}) {alpha = 1.000000e-01 : f64}
  %0 = top.LeakyRelu(%x) {alpha = 0.1 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.LeakyRelu(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = top.LeakyRelu(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Clip(%{{.*}}) {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
  %2 = top.Clip(%1) {min = 0.0 : f64, max = 6.0 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Sigmoid
  %3 = top.Sigmoid(%2) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Tanh
  %4 = top.Tanh(%3) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Gelu(%{{.*}}) : (tensor<2x4xf32>)
  %5 = top.Gelu(%4) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Gelu(%{{.*}}) {approximate = #top.gelu_approximation<tanh>}
  %6 = top.Gelu(%5) {approximate = #top.gelu_approximation<tanh>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.SiLU
  %7 = top.SiLU(%6) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.HardSigmoid(%{{.*}}) {alpha = 1.000000e+00 : f64, beta = 2.500000e-01 : f64}
  %8 = top.HardSigmoid(%7) {alpha = 1.0 : f64, beta = 0.25 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.HardSigmoid(%{{.*}}) : (tensor<2x4xf32>)
  %9 = top.HardSigmoid(%8) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.HardSwish
  %10 = top.HardSwish(%9) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Exp
  %11 = top.Exp(%10) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Log
  %12 = top.Log(%11) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Sqrt
  %13 = top.Sqrt(%12) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Rsqrt
  %14 = top.Rsqrt(%13) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Abs
  %15 = top.Abs(%14) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Neg
  %16 = top.Neg(%15) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Erf(%{{.*}}) : (tensor<2x4xf32>) -> tensor<*xf32>
  %17 = top.Erf(%16) : (tensor<2x4xf32>) -> tensor<*xf32>
  // CHECK: top.Relu(%{{.*}}) : (tensor<*xf32>) -> tensor<2x4xf32>
  %18 = top.Relu(%17) : (tensor<*xf32>) -> tensor<2x4xf32>
  // CHECK: top.ScalarAffine(%{{.*}}) {offset = -2.500000e-01 : f64, scale = 1.500000e+00 : f64}
  %19 = top.ScalarAffine(%18) {scale = 1.5 : f64, offset = -0.25 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %19 : tensor<2x4xf32>
}

// CHECK-LABEL: func @prelu
func.func @prelu(%x: tensor<1x3x4x4xf16>, %s: tensor<3x1x1xf16>) -> tensor<1x3x4x4xf16> {
  // CHECK: top.PRelu(%{{.*}}, %{{.*}}) : (tensor<1x3x4x4xf16>, tensor<3x1x1xf16>) -> tensor<1x3x4x4xf16>
  %0 = top.PRelu(%x, %s) : (tensor<1x3x4x4xf16>, tensor<3x1x1xf16>) -> tensor<1x3x4x4xf16>
  return %0 : tensor<1x3x4x4xf16>
}

// CHECK-LABEL: func @select
func.func @select(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xi1>) -> (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi8>, tensor<2x1xf64>) {
  // CHECK: top.Compare(%{{.*}}, %{{.*}}) {mode = #top.compare_mode<GreaterOrEqual>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = top.Compare(%a, %b) {mode = #top.compare_mode<GreaterOrEqual>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: top.Where(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = top.Where(%c, %a, %b) : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Cast(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xi8>
  %2 = top.Cast(%1) : (tensor<2x3xf32>) -> tensor<2x3xi8>
  // CHECK: top.Cast(%{{.*}}) : (tensor<2x1xi1>) -> tensor<2x1xf64>
  %3 = top.Cast(%c) : (tensor<2x1xi1>) -> tensor<2x1xf64>
  return %0, %1, %2, %3 : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi8>, tensor<2x1xf64>
}
