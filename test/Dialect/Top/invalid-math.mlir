// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of the math, bitwise and signal ops, one case per
// split.

func.func @sin_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i32'}}
  %0 = top.Sin(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @atanh_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{result element type 'f16' must match operand 'input' element type 'f32'}}
  %0 = top.Atanh(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @fmod_int(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{operand 'lhs' must have a float element type, got 'i32'}}
  %0 = top.Fmod(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @fmod_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{operand shapes [2, 3] and [2] do not broadcast}}
  %0 = top.Fmod(%a, %b) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @and_float(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operand 'lhs' must have an integer element type, got 'f32'}}
  %0 = top.BitwiseAnd(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @xor_rhs(%a: tensor<4xi8>, %b: tensor<4xui8>) {
  // expected-error @+1 {{operand 'rhs' element type 'ui8' must match operand 'lhs' element type 'i8'}}
  %0 = top.BitwiseXor(%a, %b) : (tensor<4xi8>, tensor<4xui8>) -> tensor<4xi8>
  return
}

// -----

func.func @not_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{operand 'input' must have an integer element type, got 'i1'}}
  %0 = top.BitwiseNot(%a) : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @shift_signed(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand 'lhs' has element type 'i32'; only unsigned integers are supported}}
  %0 = top.BitShift(%a, %a) {direction = #top.shift_direction<LEFT>} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @shift_direction(%a: tensor<4xui32>) {
  // expected-error @+2 {{failed to parse Top_ShiftDirectionAttr parameter 'value'}}
  // expected-error @+1 {{unknown shift_direction 'UP', expected one of: LEFT, RIGHT}}
  %0 = top.BitShift(%a, %a) {direction = #top.shift_direction<UP>} : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return
}

// -----

func.func @det_not_square(%a: tensor<2x3x4xf32>) {
  // expected-error @+1 {{operand 'input' shape [2, 3, 4] must be [*, M, M] (rank >= 2, square)}}
  %0 = top.Det(%a) : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @det_int(%a: tensor<3x3xi32>) {
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i32'}}
  %0 = top.Det(%a) : (tensor<3x3xi32>) -> tensor<i32>
  return
}

// -----

func.func @lrn_size(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{attribute 'size' = 0 must be >= 1}}
  %0 = top.LRN(%x) {size = 0 : i64} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @lrn_rank(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{operand 'input' shape [3, 4] must have rank >= 3 (N x C x D1..)}}
  %0 = top.LRN(%x) {size = 3 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @window_kind() {
  // expected-error @+2 {{failed to parse Top_WindowKindAttr parameter 'value'}}
  // expected-error @+1 {{unknown window_kind 'bartlett', expected one of: hann, hamming, blackman}}
  %0 = top.Window() {kind = #top.window_kind<bartlett>, size = 4 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @window_size() {
  // expected-error @+1 {{attribute 'size' = -1 must be >= 0}}
  %0 = top.Window() {kind = #top.window_kind<hann>, size = -1 : i64} : () -> tensor<*xf32>
  return
}

// -----

func.func @window_bool() {
  // expected-error @+1 {{result must have a float or integer element type, got 'i1'}}
  %0 = top.Window() {kind = #top.window_kind<hann>, size = 4 : i64} : () -> tensor<4xi1>
  return
}

// -----

func.func @mel_bins(%lo: tensor<f32>, %hi: tensor<f32>) {
  // expected-error @+1 {{attribute 'num_mel_bins' = 0 must be in [1, 2^24]}}
  %0 = top.MelWeightMatrix(%lo, %hi) {num_mel_bins = 0 : i64, dft_length = 16 : i64, sample_rate = 8000 : i64} : (tensor<f32>, tensor<f32>) -> tensor<*xf32>
  return
}

// -----

func.func @mel_rate(%lo: tensor<f32>, %hi: tensor<f32>) {
  // expected-error @+1 {{attribute 'sample_rate' = 33554432 must be in [1, 2^24]}}
  %0 = top.MelWeightMatrix(%lo, %hi) {num_mel_bins = 4 : i64, dft_length = 16 : i64, sample_rate = 33554432 : i64} : (tensor<f32>, tensor<f32>) -> tensor<*xf32>
  return
}

// -----

func.func @mel_edge_shape(%lo: tensor<f32>, %hi: tensor<2xf32>) {
  // expected-error @+1 {{operand 'upper_edge_hertz' shape [2] must have one element}}
  %0 = top.MelWeightMatrix(%lo, %hi) {num_mel_bins = 4 : i64, dft_length = 16 : i64, sample_rate = 8000 : i64} : (tensor<f32>, tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @mel_edge_type(%lo: tensor<i32>, %hi: tensor<f32>) {
  // expected-error @+1 {{operand 'lower_edge_hertz' must have a float element type, got 'i32'}}
  %0 = top.MelWeightMatrix(%lo, %hi) {num_mel_bins = 4 : i64, dft_length = 16 : i64, sample_rate = 8000 : i64} : (tensor<i32>, tensor<f32>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_axis(%x: tensor<1x8x2xf32>) {
  // expected-error @+1 {{attribute 'axis' = 2 must be a signal dim in [0, 1]}}
  %0 = top.DFT(%x) {axis = 2 : i64, dft_length = 8 : i64} : (tensor<1x8x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_length(%x: tensor<1x8x2xf32>) {
  // expected-error @+1 {{attribute 'dft_length' = 0 must be >= 1}}
  %0 = top.DFT(%x) {axis = 1 : i64, dft_length = 0 : i64} : (tensor<1x8x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_last_dim(%x: tensor<1x8x3xf32>) {
  // expected-error @+1 {{operand 'input' shape [1, 8, 3] must have rank >= 3 and a last dim of 1 (real) or 2 (complex)}}
  %0 = top.DFT(%x) {axis = 1 : i64, dft_length = 8 : i64} : (tensor<1x8x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_result_shape(%x: tensor<1x8x1xf32>) {
  // expected-error @+1 {{result #0 has shape [1, 8, 2] but the operands and attributes give [1, 5, 2]}}
  %0 = top.DFT(%x) {axis = 1 : i64, dft_length = 8 : i64, onesided = true} : (tensor<1x8x1xf32>) -> tensor<1x8x2xf32>
  return
}

// -----

func.func @stft_step(%x: tensor<1x64x1xf32>, %n: none) {
  // expected-error @+1 {{attribute 'frame_step' = 0 must be >= 1}}
  %0 = top.STFT(%x, %n) {frame_step = 0 : i64, frame_length = 16 : i64} : (tensor<1x64x1xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @stft_frame_length(%x: tensor<1x8x1xf32>, %n: none) {
  // expected-error @+1 {{attribute 'frame_length' = 16 exceeds the signal length 8}}
  %0 = top.STFT(%x, %n) {frame_step = 1 : i64, frame_length = 16 : i64} : (tensor<1x8x1xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @stft_window(%x: tensor<1x64x1xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{operand 'window' shape [8] must be [frame_length] = [16]}}
  %0 = top.STFT(%x, %w) {frame_step = 4 : i64, frame_length = 16 : i64} : (tensor<1x64x1xf32>, tensor<8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_window_type(%x: tensor<1x64x1xf32>, %w: tensor<16xf16>) {
  // expected-error @+1 {{operand 'window' element type 'f16' must match operand 'signal' element type 'f32'}}
  %0 = top.STFT(%x, %w) {frame_step = 4 : i64, frame_length = 16 : i64} : (tensor<1x64x1xf32>, tensor<16xf16>) -> tensor<*xf32>
  return
}
