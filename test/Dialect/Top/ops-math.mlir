// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of the math, bitwise and signal ops (TopMathOps.td).

// CHECK-LABEL: func @trig
func.func @trig(%x: tensor<2x3xf32>, %d: tensor<4xf64>) -> (tensor<2x3xf32>, tensor<4xf64>) {
  // CHECK: top.Sin(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = top.Sin(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Cos
  %1 = top.Cos(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Tan
  %2 = top.Tan(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Asin
  %3 = top.Asin(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Acos
  %4 = top.Acos(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Atan
  %5 = top.Atan(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: top.Sinh(%{{.*}}) : (tensor<4xf64>) -> tensor<4xf64>
  %6 = top.Sinh(%d) : (tensor<4xf64>) -> tensor<4xf64>
  // CHECK: top.Cosh
  %7 = top.Cosh(%6) : (tensor<4xf64>) -> tensor<4xf64>
  // CHECK: top.Asinh
  %8 = top.Asinh(%7) : (tensor<4xf64>) -> tensor<4xf64>
  // CHECK: top.Acosh
  %9 = top.Acosh(%8) : (tensor<4xf64>) -> tensor<4xf64>
  // CHECK: top.Atanh
  %10 = top.Atanh(%9) : (tensor<4xf64>) -> tensor<4xf64>
  return %5, %10 : tensor<2x3xf32>, tensor<4xf64>
}

// CHECK-LABEL: func @fmod_bitwise
func.func @fmod_bitwise(%a: tensor<2x3xf16>, %b: tensor<3xf16>, %i: tensor<4xi16>, %j: tensor<1xi16>, %u: tensor<4xui32>) -> (tensor<2x3xf16>, tensor<4xi16>, tensor<4xui32>) {
  // CHECK: top.Fmod(%{{.*}}, %{{.*}}) : (tensor<2x3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  %0 = top.Fmod(%a, %b) : (tensor<2x3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  // CHECK: top.BitwiseAnd(%{{.*}}, %{{.*}}) : (tensor<4xi16>, tensor<1xi16>) -> tensor<4xi16>
  %1 = top.BitwiseAnd(%i, %j) : (tensor<4xi16>, tensor<1xi16>) -> tensor<4xi16>
  // CHECK: top.BitwiseOr
  %2 = top.BitwiseOr(%1, %j) : (tensor<4xi16>, tensor<1xi16>) -> tensor<4xi16>
  // CHECK: top.BitwiseXor
  %3 = top.BitwiseXor(%2, %i) : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  // CHECK: top.BitwiseNot(%{{.*}}) : (tensor<4xi16>) -> tensor<4xi16>
  %4 = top.BitwiseNot(%3) : (tensor<4xi16>) -> tensor<4xi16>
  // CHECK: top.BitShift(%{{.*}}, %{{.*}}) {direction = #top.shift_direction<RIGHT>} : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %5 = top.BitShift(%u, %u) {direction = #top.shift_direction<RIGHT>} : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return %0, %4, %5 : tensor<2x3xf16>, tensor<4xi16>, tensor<4xui32>
}

// CHECK-LABEL: func @linalg
func.func @linalg(%m: tensor<2x3x3xf32>, %x: tensor<1x5x4x4xf32>) -> (tensor<2xf32>, tensor<1x5x4x4xf32>) {
  // CHECK: top.Det(%{{.*}}) : (tensor<2x3x3xf32>) -> tensor<2xf32>
  %0 = top.Det(%m) : (tensor<2x3x3xf32>) -> tensor<2xf32>
  // CHECK: top.LRN(%{{.*}}) {alpha = 2.000000e-04 : f64, size = 3 : i64}
  %1 = top.LRN(%x) {alpha = 2.0e-4 : f64, size = 3 : i64} : (tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
  return %0, %1 : tensor<2xf32>, tensor<1x5x4x4xf32>
}

// CHECK-LABEL: func @signal
func.func @signal(%lo: tensor<f32>, %hi: tensor<1xf32>, %x: tensor<1x10x1xf32>, %c: tensor<2x8x3x2xf64>, %s: tensor<2x64x1xf32>, %w: tensor<16xf32>) -> (tensor<10xf32>, tensor<9x4xf32>, tensor<1x6x1xf32>, tensor<2x8x3x2xf64>, tensor<2x5x3x1xf64>, tensor<2x7x9x2xf32>, tensor<2x4x16x2xf32>) {
  // CHECK: top.Window() {kind = #top.window_kind<hann>, periodic = false, size = 10 : i64} : () -> tensor<10xf32>
  %0 = top.Window() {kind = #top.window_kind<hann>, size = 10 : i64, periodic = false} : () -> tensor<10xf32>
  // CHECK: top.MelWeightMatrix(%{{.*}}, %{{.*}}) {dft_length = 16 : i64, num_mel_bins = 4 : i64, sample_rate = 8000 : i64} : (tensor<f32>, tensor<1xf32>) -> tensor<9x4xf32>
  %1 = top.MelWeightMatrix(%lo, %hi) {num_mel_bins = 4 : i64, dft_length = 16 : i64, sample_rate = 8000 : i64} : (tensor<f32>, tensor<1xf32>) -> tensor<9x4xf32>
  // CHECK: top.DFT(%{{.*}}) {axis = 1 : i64, dft_length = 10 : i64, onesided = true}
  %2 = top.DFT(%x) {axis = 1 : i64, dft_length = 10 : i64, onesided = true} : (tensor<1x10x1xf32>) -> tensor<1x6x2xf32>
  // CHECK: top.DFT(%{{.*}}) {axis = 1 : i64, dft_length = 8 : i64, inverse = true}
  %3 = top.DFT(%c) {axis = 1 : i64, dft_length = 8 : i64, inverse = true} : (tensor<2x8x3x2xf64>) -> tensor<2x8x3x2xf64>
  // CHECK: top.DFT(%{{.*}}) {axis = 1 : i64, dft_length = 5 : i64, inverse = true, onesided = true}
  %4 = top.DFT(%3) {axis = 1 : i64, dft_length = 5 : i64, inverse = true, onesided = true} : (tensor<2x8x3x2xf64>) -> tensor<2x5x3x1xf64>
  %5 = top.DFT(%2) {axis = 1 : i64, dft_length = 6 : i64, inverse = true, onesided = true} : (tensor<1x6x2xf32>) -> tensor<1x6x1xf32>
  %n = top.None() : () -> none
  // CHECK: top.STFT(%{{.*}}, %{{.*}}) {frame_length = 16 : i64, frame_step = 8 : i64} : (tensor<2x64x1xf32>, none) -> tensor<2x7x9x2xf32>
  %6 = top.STFT(%s, %n) {frame_step = 8 : i64, frame_length = 16 : i64} : (tensor<2x64x1xf32>, none) -> tensor<2x7x9x2xf32>
  // CHECK: top.STFT(%{{.*}}, %{{.*}}) {frame_length = 16 : i64, frame_step = 16 : i64, onesided = false} : (tensor<2x64x1xf32>, tensor<16xf32>) -> tensor<2x4x16x2xf32>
  %7 = top.STFT(%s, %w) {frame_step = 16 : i64, frame_length = 16 : i64, onesided = false} : (tensor<2x64x1xf32>, tensor<16xf32>) -> tensor<2x4x16x2xf32>
  return %0, %1, %5, %3, %4, %6, %7 : tensor<10xf32>, tensor<9x4xf32>, tensor<1x6x1xf32>, tensor<2x8x3x2xf64>, tensor<2x5x3x1xf64>, tensor<2x7x9x2xf32>, tensor<2x4x16x2xf32>
}
