// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// fft2d / rfft2d: two top.DFT (ONNX DFT, complex as a last dim of 2), along
// W then H; TOSA's inverse does not scale, ONNX's divides by each length, so
// the inverse is multiplied back by H * W. Numbers: test/tosa/test_signal.py.

// CHECK-LABEL: func.func @fft2d_inverse
// CHECK: %[[C:.*]] = top.Concat({{.*}}) {axis = 3 : i64} : (tensor<1x4x8x1xf32>, tensor<1x4x8x1xf32>) -> tensor<1x4x8x2xf32>
// CHECK: %[[W:.*]] = top.DFT(%[[C]]) {axis = 2 : i64, dft_length = 8 : i64, inverse = true}
// CHECK: %[[H:.*]] = top.DFT(%[[W]]) {axis = 1 : i64, dft_length = 4 : i64, inverse = true}
// CHECK: value = dense<3.200000e+01> : tensor<f32>
// CHECK: top.Mul(%[[H]], %{{.*}})
// CHECK: top.Slice({{.*}}) {axes = array<i64: 3>, ends = array<i64: 1>, starts = array<i64: 0>}
// CHECK: top.Slice({{.*}}) {axes = array<i64: 3>, ends = array<i64: 2>, starts = array<i64: 1>}
func.func @fft2d_inverse(%re: tensor<1x4x8xf32>, %im: tensor<1x4x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %0, %1 = tosa.fft2d %re, %im {inverse = true} : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>)
  return %0, %1 : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

// CHECK-LABEL: func.func @rfft2d
// CHECK: %[[W:.*]] = top.DFT(%{{.*}}) {axis = 2 : i64, dft_length = 8 : i64, onesided = true} : (tensor<1x4x8x1xf32>) -> tensor<1x4x5x2xf32>
// CHECK: top.DFT(%[[W]]) {axis = 1 : i64, dft_length = 4 : i64} : (tensor<1x4x5x2xf32>) -> tensor<1x4x5x2xf32>
func.func @rfft2d(%x: tensor<1x4x8xf32>) -> (tensor<1x4x5xf32>, tensor<1x4x5xf32>) {
  %0, %1 = tosa.rfft2d %x : (tensor<1x4x8xf32>) -> (tensor<1x4x5xf32>, tensor<1x4x5xf32>)
  return %0, %1 : tensor<1x4x5xf32>, tensor<1x4x5xf32>
}
