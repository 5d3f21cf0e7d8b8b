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

// Requant MultiplierShift: exact 128-bit product, rounding right shift;
// per-channel multiplier and rshift along dim 1.
// CHECK-LABEL: func.func @requant_multiplier_shift
// CHECK-DAG: arith.constant dense<[3, 5]> : tensor<2xi64>
// CHECK-DAG: arith.constant dense<[2, 4]> : tensor<2xi64>
// CHECK: arith.muli %{{.*}}, %{{.*}} : i128
// CHECK: arith.shrsi %{{.*}}, %{{.*}} : i128
// CHECK: arith.constant -128 : i128
// CHECK: arith.trunci %{{.*}} : i128 to i64
func.func @requant_multiplier_shift(%a: tensor<1x2xi32>) -> tensor<1x2xi8> {
  %0 = top.Requant(%a) {multiplier = array<i64: 3, 5>, rshift = array<i64: 2, 4>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
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
