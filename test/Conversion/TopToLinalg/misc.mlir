// RUN: strata-opt %s -split-input-file --convert-top-to-linalg --verify-diagnostics | FileCheck %s

// Quant: x / scale in f64, ties to even, plus the zero point, clamped to the
// storage range; NaN gives the zero point. The quantized result is its
// storage integer.
// CHECK-LABEL: func.func @quant_per_tensor
// CHECK-SAME: (%{{.*}}: tensor<2x3xf32>) -> tensor<2x3xi8>
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: %[[V:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK-DAG: arith.constant -1.280000e+02 : f64
// CHECK-DAG: arith.constant 1.270000e+02 : f64
// CHECK: math.roundeven %[[V]] : f64
// CHECK: arith.cmpf uno, %[[V]], %[[V]]
// CHECK: arith.fptosi
// CHECK: arith.trunci %{{.*}} : i64 to i8
func.func @quant_per_tensor(%x: tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>> {
  %0 = top.Quant(%x) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
  return %0 : tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
}

// -----

// Per-axis parameters are constant vectors read along the quantized dim;
// u8 storage clamps to [0, 255].
// CHECK-DAG: #[[AXIS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @quant_per_axis
// CHECK-DAG: arith.constant dense<[1.000000e-01, 2.000000e-01, 4.000000e-01]> : tensor<3xf64>
// CHECK-DAG: arith.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[AXIS]], #[[AXIS]], #{{.*}}]
// CHECK: arith.constant 2.550000e+02 : f64
func.func @quant_per_axis(%x: tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<u8:f32:1, {0.1:1, 0.2:2, 0.4:3}>> {
  %0 = top.Quant(%x) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<u8:f32:1, {0.1:1, 0.2:2, 0.4:3}>>
  return %0 : tensor<2x3x!quant.uniform<u8:f32:1, {0.1:1, 0.2:2, 0.4:3}>>
}

// -----

// Dequant: (q - zp) exact in i64 (u8 storage zero-extended), times the
// scale in f64, rounded once.
// CHECK-LABEL: func.func @dequant
// CHECK-SAME: (%{{.*}}: tensor<4xi8>) -> tensor<4xf16>
// CHECK: arith.extui %{{.*}} : i8 to i64
// CHECK: arith.subi
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.mulf
// CHECK: arith.truncf %{{.*}} : f64 to f16
func.func @dequant(%q: tensor<4x!quant.uniform<u8:f16, 0.5:128>>) -> tensor<4xf16> {
  %0 = top.Dequant(%q) : (tensor<4x!quant.uniform<u8:f16, 0.5:128>>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Requant MultiplierShift: exact product, rounding right shift; per-channel
// multiplier and rshift along dim 1. An int32 input with zero point 0 and
// int32 multipliers: |x * m| < 2^62, so in i64.
// CHECK-LABEL: func.func @requant_multiplier_shift
// CHECK-DAG: arith.constant dense<[3, 5]> : tensor<2xi64>
// CHECK-DAG: arith.constant dense<[2, 4]> : tensor<2xi64>
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: arith.shrui %{{.*}}, %{{.*}} : i64
// CHECK: arith.shrsi %{{.*}}, %{{.*}} : i64
// CHECK: arith.constant -128 : i64
// CHECK-NOT: i128
func.func @requant_multiplier_shift(%a: tensor<1x2xi32>) -> tensor<1x2xi8> {
  %0 = top.Requant(%a) {multiplier = array<i64: 3, 5>, rshift = array<i64: 2, 4>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
  return %0 : tensor<1x2xi8>
}

// -----

// An int32 input with a zero point: |x| may exceed 2^31, so the product is
// exact in i128.
// CHECK-LABEL: func.func @requant_multiplier_shift_i128
// CHECK: arith.muli %{{.*}}, %{{.*}} : i128
// CHECK: arith.shrsi %{{.*}}, %{{.*}} : i128
// CHECK: arith.constant -128 : i128
// CHECK: arith.trunci %{{.*}} : i128 to i64
func.func @requant_multiplier_shift_i128(%a: tensor<1x2x!quant.uniform<i32:f32, 0.5:7>>) -> tensor<1x2xi8> {
  %0 = top.Requant(%a) {multiplier = array<i64: 3>, rshift = array<i64: 2>} : (tensor<1x2x!quant.uniform<i32:f32, 0.5:7>>) -> tensor<1x2xi8>
  return %0 : tensor<1x2xi8>
}

// -----

// Requant TFLite: input saturated to int32, doubling high multiply with C
// division by 2^31 (a constant divisor), rounding divide by 2^rshift.
// CHECK-LABEL: func.func @requant_tflite
// CHECK: arith.constant -4 : i64
// CHECK: arith.constant -2147483648 : i64
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: arith.divsi %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ugt
func.func @requant_tflite(%a: tensor<4xi32>) -> tensor<4x!quant.uniform<i8:f32, 0.1:-4>> {
  %0 = top.Requant(%a) {multiplier = array<i64: 1717986918>, rshift = array<i64: 5>, quant_mode = #top.requant_mode<TFLite>} : (tensor<4xi32>) -> tensor<4x!quant.uniform<i8:f32, 0.1:-4>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.1:-4>>
}

// -----

// Requant TosaDoubleRound: floor((x * m + round) / 2^s) in i128, the round
// term 2^(s-1) plus +-2^30 by the sign of x when s > 31; per-channel values
// read along `axis` (the last dim).
// CHECK-LABEL: func.func @requant_tosa
// The last dim has 3 channels (dim 1 has 2): 3 multipliers and shifts.
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x2x3xi32>, tensor<3xi64>, tensor<3xi64>)
// CHECK: arith.constant 1073741824 : i128
// CHECK: arith.constant -1073741824 : i128
// CHECK: arith.muli %{{.*}}, %{{.*}} : i128
// CHECK: arith.shrsi %{{.*}}, %{{.*}} : i128
// CHECK: arith.trunci %{{.*}} : i128 to i64
func.func @requant_tosa(%a: tensor<1x2x3xi32>) -> tensor<1x2x3xi8> {
  %0 = top.Requant(%a) {multiplier = array<i64: 1073741824, 3, 5>, rshift = array<i64: 36, 2, 4>, axis = 2 : i64, quant_mode = #top.requant_mode<TosaDoubleRound>} : (tensor<1x2x3xi32>) -> tensor<1x2x3xi8>
  return %0 : tensor<1x2x3xi8>
}

// -----

// Requant Float: dequantize then quantize in f64 without rounding between.
// CHECK-LABEL: func.func @requant_float
// CHECK: arith.extsi %{{.*}} : i8 to i64
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: math.roundeven
func.func @requant_float(%a: tensor<4x!quant.uniform<i8:f32, 0.1:2>>) -> tensor<4x!quant.uniform<u8:f32, 0.3:128>> {
  %0 = top.Requant(%a) {quant_mode = #top.requant_mode<Float>} : (tensor<4x!quant.uniform<i8:f32, 0.1:2>>) -> tensor<4x!quant.uniform<u8:f32, 0.3:128>>
  return %0 : tensor<4x!quant.uniform<u8:f32, 0.3:128>>
}

// -----

func.func @quant_dynamic(%x: tensor<?xf32>) -> tensor<?x!quant.uniform<i8:f32, 0.5:0>> {
  // expected-error @+1 {{failed to legalize operation 'top.Quant'}}
  %0 = top.Quant(%x) : (tensor<?xf32>) -> tensor<?x!quant.uniform<i8:f32, 0.5:0>>
  return %0 : tensor<?x!quant.uniform<i8:f32, 0.5:0>>
}

// -----

// Attention in f64: scores reduce over D with query head h reading kv head
// h floordiv (Hq / Hkv); the bool mask is read with tensor.extract (last
// index below L) and the causal limit from linalg.index; softmax is row max
// (maxnumf), exp, sum, divide; the value product reduces over the keys.
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d3, d4)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d4, d3)>
// CHECK-LABEL: func.func @attention_gqa
// CHECK: linalg.generic {indexing_maps = [#[[Q]], #[[K]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: tensor.extract %{{.*}} : tensor<3x5xi1>
// CHECK: arith.cmpi ugt
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: linalg.generic {indexing_maps = [#[[Q]], #[[V]], #{{.*}}]
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @attention_gqa(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x6xf32>, %m: tensor<3x5xi1>) -> tensor<1x4x3x6xf32> {
  %n = top.None() : () -> none
  %y:4 = top.Attention(%q, %k, %v, %m, %n, %n, %n) {is_causal = true} : (tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x6xf32>, tensor<3x5xi1>, none, none, none) -> (tensor<1x4x3x6xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x6xf32>, tensor<1x4x3x5xf32>)
  return %y#0 : tensor<1x4x3x6xf32>
}

// -----

// Rank 3: the hidden dim is expanded to heads and read transposed; the
// output is written B x S x H x Dv and collapsed.
// CHECK-LABEL: func.func @attention_rank3
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 3, 2, 4]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<1x3x2x4xf64> into tensor<1x3x8xf64>
func.func @attention_rank3(%q: tensor<1x3x8xf32>, %k: tensor<1x3x8xf32>, %v: tensor<1x3x8xf32>) -> tensor<1x3x8xf32> {
  %n = top.None() : () -> none
  %y:4 = top.Attention(%q, %k, %v, %n, %n, %n, %n) {q_num_heads = 2 : i64, kv_num_heads = 2 : i64} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none, none) -> (tensor<1x3x8xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x3xf32>)
  return %y#0 : tensor<1x3x8xf32>
}

// -----

func.func @attention_dynamic(%q: tensor<1x2x?x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x?x4xf32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.Attention'}}
  %y:4 = top.Attention(%q, %k, %v, %n, %n, %n, %n) : (tensor<1x2x?x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, none, none, none, none) -> (tensor<1x2x?x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x?x3xf32>)
  return %y#0 : tensor<1x2x?x4xf32>
}

// -----

// LinearAttention: an scf.for over the positions; the state is updated in
// place and each position's output row is inserted element by element.
// CHECK-LABEL: func.func @linear_attention
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK: math.exp
// CHECK: scf.for
// CHECK: tensor.insert
// CHECK: scf.yield
func.func @linear_attention(%q: tensor<1x3x4xf32>, %k: tensor<1x3x4xf32>, %v: tensor<1x3x2xf32>, %g: tensor<1x3x1xf32>) -> (tensor<1x3x2xf32>, tensor<1x1x4x2xf32>) {
  %n = top.None() : () -> none
  %y:2 = top.LinearAttention(%q, %k, %v, %n, %g, %n) {q_num_heads = 1 : i64, kv_num_heads = 1 : i64, update_rule = #top.update_rule<gated>} : (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x2xf32>, none, tensor<1x3x1xf32>, none) -> (tensor<1x3x2xf32>, tensor<1x1x4x2xf32>)
  return %y#0, %y#1 : tensor<1x3x2xf32>, tensor<1x1x4x2xf32>
}

// -----

// Ops whose output shape depends on the input values have no lowering (the
// CPU target needs static shapes): the error names them.
func.func @nonzero(%a: tensor<4xf32>) -> tensor<1x?xi64> {
  // expected-error @+1 {{'top.NonZero' has no CPU code-generation lowering yet}}
  %0 = top.NonZero(%a) : (tensor<4xf32>) -> tensor<1x?xi64>
  return %0 : tensor<1x?xi64>
}

// -----

// GridSample: one generic over the output; the grid is read with
// tensor.extract (x first), the linear taps are clamped into the image
// (maxsi/minsi) and zero-padding taps are dropped by select: 2 grid reads
// and 2 x 2 input reads per output element.
// CHECK-LABEL: func.func @grid_sample
// CHECK: linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(
// CHECK-COUNT-2: tensor.extract %{{.*}} : tensor<1x3x3x2xf32>
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<1x2x4x5xf32>
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @grid_sample(%x: tensor<1x2x4x5xf32>, %g: tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32> {
  %0 = top.GridSample(%x, %g) : (tensor<1x2x4x5xf32>, tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// AffineGrid: theta[n, i, :] dotted with the normalized position.
// CHECK-LABEL: func.func @affine_grid
// CHECK: linalg.generic
// CHECK-COUNT-3: tensor.extract %{{.*}} : tensor<2x2x3xf32>
func.func @affine_grid(%t: tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32> {
  %0 = top.AffineGrid(%t) {size = array<i64: 2, 1, 4, 5>} : (tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32>
  return %0 : tensor<2x4x5x2xf32>
}

// -----

// Col2Im gathers: one read per kernel offset (2 x 2 here), each added only
// where a block covers the position (exact division by the stride).
// CHECK-LABEL: func.func @col2im
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<1x8x4xf32>
func.func @col2im(%x: tensor<1x8x4xf32>) -> tensor<1x2x3x3xf32> {
  %0 = top.Col2Im(%x) {image_shape = array<i64: 3, 3>, block_shape = array<i64: 2, 2>} : (tensor<1x8x4xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// RoiAlign: the sampling grid size depends on the region (sampling_ratio 0):
// an scf.for nest inside the generic's body; the batch index is clamped.
// CHECK-LABEL: func.func @roi_align
// CHECK: linalg.generic
// CHECK: tensor.extract %{{.*}} : tensor<3xi64>
// CHECK: arith.maxsi
// CHECK: math.ceil
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<2x3x8x8xf32>
func.func @roi_align(%x: tensor<2x3x8x8xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x3x2x2xf32> {
  %0 = top.RoiAlign(%x, %r, %b) {output_height = 2 : i64, output_width = 2 : i64} : (tensor<2x3x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x3x2x2xf32>
  return %0 : tensor<3x3x2x2xf32>
}

// -----

// DFT: the direct sum over a reduction dim; twiddle index (k * n) mod L.
// CHECK-LABEL: func.func @dft
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.remui
// CHECK: math.cos
// CHECK: math.sin
func.func @dft(%x: tensor<2x6x1xf32>) -> tensor<2x4x2xf32> {
  %0 = top.DFT(%x) {axis = 1 : i64, dft_length = 6 : i64, onesided = true} : (tensor<2x6x1xf32>) -> tensor<2x4x2xf32>
  return %0 : tensor<2x4x2xf32>
}

// -----

// Det: elimination loops over an f64 copy.
// CHECK-LABEL: func.func @det
// CHECK: scf.for
// CHECK: scf.for
// CHECK: math.absf
// CHECK: tensor.insert
func.func @det(%x: tensor<2x3x3xf32>) -> tensor<2xf32> {
  %0 = top.Det(%x) : (tensor<2x3x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @window
// CHECK: linalg.generic
// CHECK: math.cos
func.func @window() -> tensor<8xf32> {
  %0 = top.Window() {kind = #top.window_kind<hann>, size = 8 : i64} : () -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// BitCast: arith.bitcast; an i1 result is the byte != 0.
// CHECK-LABEL: func.func @bitcast
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.cmpi ne
func.func @bitcast(%x: tensor<4xf32>, %y: tensor<4xui8>) -> (tensor<4xi32>, tensor<4xi1>) {
  %0 = top.BitCast(%x) : (tensor<4xf32>) -> tensor<4xi32>
  %1 = top.BitCast(%y) : (tensor<4xui8>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi32>, tensor<4xi1>
}

// -----

// 4-bit elements (one per byte in memory) cast their own 4 bits: i4 to
// f4E2M1FN is an arith.bitcast; i4 to ui4 is the identity on the converted
// (signless) types.
// CHECK-LABEL: func.func @bitcast_i4
// CHECK: arith.bitcast %{{.*}} : i4 to f4E2M1FN
// CHECK-NOT: arith.bitcast
// CHECK: return
func.func @bitcast_i4(%a: tensor<4xi4>) -> (tensor<4xf4E2M1FN>, tensor<4xui4>) {
  %0 = top.BitCast(%a) : (tensor<4xi4>) -> tensor<4xf4E2M1FN>
  %1 = top.BitCast(%a) : (tensor<4xi4>) -> tensor<4xui4>
  return %0, %1 : tensor<4xf4E2M1FN>, tensor<4xui4>
}

// -----

func.func @grid_sample_dynamic(%x: tensor<1x2x4x5xf32>, %g: tensor<1x?x3x2xf32>) -> tensor<1x2x?x3xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.GridSample'}}
  %0 = top.GridSample(%x, %g) : (tensor<1x2x4x5xf32>, tensor<1x?x3x2xf32>) -> tensor<1x2x?x3xf32>
  return %0 : tensor<1x2x?x3xf32>
}

// -----

func.func @dequant_dynamic(%q: tensor<?x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<?xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Dequant'}}
  %0 = top.Dequant(%q) : (tensor<?x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @requant_dynamic(%a: tensor<?xi32>) -> tensor<?xi8> {
  // expected-error @+1 {{failed to legalize operation 'top.Requant'}}
  %0 = top.Requant(%a) {multiplier = array<i64: 3>, rshift = array<i64: 2>} : (tensor<?xi32>) -> tensor<?xi8>
  return %0 : tensor<?xi8>
}

// -----

func.func @linear_attention_dynamic(%q: tensor<1x?x4xf32>, %k: tensor<1x?x4xf32>, %v: tensor<1x?x2xf32>) -> tensor<1x?x2xf32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.LinearAttention'}}
  %y:2 = top.LinearAttention(%q, %k, %v, %n, %n, %n) {q_num_heads = 1 : i64, kv_num_heads = 1 : i64, update_rule = #top.update_rule<linear>} : (tensor<1x?x4xf32>, tensor<1x?x4xf32>, tensor<1x?x2xf32>, none, none, none) -> (tensor<1x?x2xf32>, tensor<1x1x4x2xf32>)
  return %y#0 : tensor<1x?x2xf32>
}

// -----

func.func @det_dynamic(%x: tensor<?x3x3xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Det'}}
  %0 = top.Det(%x) : (tensor<?x3x3xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dft_dynamic(%x: tensor<?x6x1xf32>) -> tensor<?x6x2xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.DFT'}}
  %0 = top.DFT(%x) {axis = 1 : i64, dft_length = 6 : i64} : (tensor<?x6x1xf32>) -> tensor<?x6x2xf32>
  return %0 : tensor<?x6x2xf32>
}

// -----

func.func @roi_align_dynamic(%x: tensor<2x3x8x8xf32>, %r: tensor<?x4xf32>, %b: tensor<?xi64>) -> tensor<?x3x2x2xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.RoiAlign'}}
  %0 = top.RoiAlign(%x, %r, %b) {output_height = 2 : i64, output_width = 2 : i64} : (tensor<2x3x8x8xf32>, tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x3x2x2xf32>
  return %0 : tensor<?x3x2x2xf32>
}

// -----

func.func @col2im_dynamic(%x: tensor<?x8x4xf32>) -> tensor<?x2x3x3xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Col2Im'}}
  %0 = top.Col2Im(%x) {image_shape = array<i64: 3, 3>, block_shape = array<i64: 2, 2>} : (tensor<?x8x4xf32>) -> tensor<?x2x3x3xf32>
  return %0 : tensor<?x2x3x3xf32>
}

// -----

func.func @stft_dynamic(%x: tensor<?x16x1xf32>) -> tensor<?x4x3x2xf32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.STFT'}}
  %0 = top.STFT(%x, %n) {frame_step = 4 : i64, frame_length = 4 : i64} : (tensor<?x16x1xf32>, none) -> tensor<?x4x3x2xf32>
  return %0 : tensor<?x4x3x2xf32>
}

// -----

// Other ops on quantized tensors compute on the storage integers with the
// storage's signedness (u8: unsigned compare).
// CHECK-LABEL: func.func @max_quantized_u8
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK: arith.maxui
func.func @max_quantized_u8(%a: tensor<4x!quant.uniform<u8:f32, 0.5:1>>, %b: tensor<4x!quant.uniform<u8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<u8:f32, 0.5:1>> {
  %0 = top.Max(%a, %b) : (tensor<4x!quant.uniform<u8:f32, 0.5:1>>, tensor<4x!quant.uniform<u8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<u8:f32, 0.5:1>>
  return %0 : tensor<4x!quant.uniform<u8:f32, 0.5:1>>
}
