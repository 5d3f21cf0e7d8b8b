// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of Attention, RMSNorm and RotaryEmbedding.

// CHECK-LABEL: func @attention_4d
func.func @attention_4d(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<3x7xi1>, %pk: tensor<2x2x2x8xf32>, %pv: tensor<2x2x2x6xf32>, %np: tensor<2xi64>) -> (tensor<2x4x3x6xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x6xf32>, tensor<2x4x3x7xf32>) {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = top.Attention(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {is_causal = true, qk_matmul_output_mode = 2 : i64, scale = 5.000000e-01 : f64, softcap = 3.000000e+00 : f64} : (tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32>, tensor<3x7xi1>, tensor<2x2x2x8xf32>, tensor<2x2x2x6xf32>, tensor<2xi64>) -> (tensor<2x4x3x6xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x6xf32>, tensor<2x4x3x7xf32>)
  %0:4 = top.Attention(%q, %k, %v, %m, %pk, %pv, %np) {is_causal = true, scale = 0.5 : f64, softcap = 3.0 : f64, qk_matmul_output_mode = 2 : i64} : (tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32>, tensor<3x7xi1>, tensor<2x2x2x8xf32>, tensor<2x2x2x6xf32>, tensor<2xi64>) -> (tensor<2x4x3x6xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x6xf32>, tensor<2x4x3x7xf32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x4x3x6xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x6xf32>, tensor<2x4x3x7xf32>
}

// CHECK-LABEL: func @attention_3d
func.func @attention_3d(%q: tensor<2x3x32xf16>, %k: tensor<2x5x16xf16>, %v: tensor<2x5x12xf16>) -> tensor<2x3x24xf16> {
  %n = top.None() : () -> none
  // CHECK: top.Attention{{.*}} {kv_num_heads = 2 : i64, q_num_heads = 4 : i64} : (tensor<2x3x32xf16>, tensor<2x5x16xf16>, tensor<2x5x12xf16>, none, none, none, none) -> (tensor<2x3x24xf16>, tensor<2x2x5x8xf16>, tensor<2x2x5x6xf16>, tensor<2x4x3x5xf16>)
  %0:4 = top.Attention(%q, %k, %v, %n, %n, %n, %n) {q_num_heads = 4 : i64, kv_num_heads = 2 : i64} : (tensor<2x3x32xf16>, tensor<2x5x16xf16>, tensor<2x5x12xf16>, none, none, none, none) -> (tensor<2x3x24xf16>, tensor<2x2x5x8xf16>, tensor<2x2x5x6xf16>, tensor<2x4x3x5xf16>)
  return %0#0 : tensor<2x3x24xf16>
}

// CHECK-LABEL: func @rms_norm
func.func @rms_norm(%x: tensor<2x3x4xf32>, %s: tensor<1x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: top.RMSNorm(%{{.*}}, %{{.*}}) {axis = 1 : i64, epsilon = 1.000000e-03 : f64} : (tensor<2x3x4xf32>, tensor<1x4xf32>) -> tensor<2x3x4xf32>
  %0 = top.RMSNorm(%x, %s) {axis = 1 : i64, epsilon = 1.0e-3 : f64} : (tensor<2x3x4xf32>, tensor<1x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// CHECK-LABEL: func @rotary
func.func @rotary(%x: tensor<2x4x3x8xf32>, %x3: tensor<2x3x32xf32>, %c: tensor<10x2xf32>, %p: tensor<2x3xi64>, %cb: tensor<2x3x4xf32>) -> (tensor<2x4x3x8xf32>, tensor<2x3x32xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.RotaryEmbedding(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {interleaved = true, rotary_embedding_dim = 4 : i64} : (tensor<2x4x3x8xf32>, tensor<10x2xf32>, tensor<10x2xf32>, tensor<2x3xi64>) -> tensor<2x4x3x8xf32>
  %0 = top.RotaryEmbedding(%x, %c, %c, %p) {interleaved = true, rotary_embedding_dim = 4 : i64} : (tensor<2x4x3x8xf32>, tensor<10x2xf32>, tensor<10x2xf32>, tensor<2x3xi64>) -> tensor<2x4x3x8xf32>
  // CHECK: top.RotaryEmbedding(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {num_heads = 4 : i64} : (tensor<2x3x32xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, none) -> tensor<2x3x32xf32>
  %1 = top.RotaryEmbedding(%x3, %cb, %cb, %n) {num_heads = 4 : i64} : (tensor<2x3x32xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, none) -> tensor<2x3x32xf32>
  return %0, %1 : tensor<2x4x3x8xf32>, tensor<2x3x32xf32>
}

// CHECK-LABEL: func @linear_attention
func.func @linear_attention(%q: tensor<2x3x16xf32>, %k: tensor<2x3x8xf32>, %v: tensor<2x3x6xf32>, %s: tensor<2x2x4x3xf32>, %g: tensor<2x3x2xf32>, %b: tensor<2x3x1xf32>) -> (tensor<2x3x12xf32>, tensor<2x2x4x3xf32>) {
  // CHECK: top.LinearAttention(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {kv_num_heads = 2 : i64, q_num_heads = 4 : i64, scale = 2.500000e-01 : f64} : (tensor<2x3x16xf32>, tensor<2x3x8xf32>, tensor<2x3x6xf32>, tensor<2x2x4x3xf32>, tensor<2x3x2xf32>, tensor<2x3x1xf32>) -> (tensor<2x3x12xf32>, tensor<2x2x4x3xf32>)
  %0:2 = top.LinearAttention(%q, %k, %v, %s, %g, %b) {q_num_heads = 4 : i64, kv_num_heads = 2 : i64, scale = 0.25 : f64} : (tensor<2x3x16xf32>, tensor<2x3x8xf32>, tensor<2x3x6xf32>, tensor<2x2x4x3xf32>, tensor<2x3x2xf32>, tensor<2x3x1xf32>) -> (tensor<2x3x12xf32>, tensor<2x2x4x3xf32>)
  return %0#0, %0#1 : tensor<2x3x12xf32>, tensor<2x2x4x3xf32>
}
