// RUN: strata-opt %s --top-shape-infer --split-input-file | FileCheck %s
// Shape inference of Attention (3-d/4-d, GQA, KV cache), RMSNorm and
// RotaryEmbedding.

// CHECK-LABEL: func @attention_3d_gqa_past
func.func @attention_3d_gqa_past(%q: tensor<2x3x32xf32>, %k: tensor<2x5x16xf32>, %v: tensor<2x5x12xf32>, %pk: tensor<2x2x4x8xf32>, %pv: tensor<2x2x4x6xf32>, %m: tensor<1x9xf32>) -> tensor<*xf32> {
  %n = top.None() : () -> none
  // CHECK: top.Attention{{.*}} -> (tensor<2x3x24xf32>, tensor<2x2x9x8xf32>, tensor<2x2x9x6xf32>, tensor<2x4x3x9xf32>)
  %0:4 = top.Attention(%q, %k, %v, %m, %pk, %pv, %n) {q_num_heads = 4 : i64, kv_num_heads = 2 : i64} : (tensor<2x3x32xf32>, tensor<2x5x16xf32>, tensor<2x5x12xf32>, tensor<1x9xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x6xf32>, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func @attention_4d_short_mask
func.func @attention_4d_short_mask(%q: tensor<1x6x2x8xf16>, %k: tensor<1x3x7x8xf16>, %v: tensor<1x3x7x4xf16>, %m: tensor<1x6x2x5xi1>) -> tensor<*xf16> {
  %n = top.None() : () -> none
  // CHECK: top.Attention{{.*}} -> (tensor<1x6x2x4xf16>, tensor<1x3x7x8xf16>, tensor<1x3x7x4xf16>, tensor<1x6x2x7xf16>)
  %0:4 = top.Attention(%q, %k, %v, %m, %n, %n, %n) {is_causal = true} : (tensor<1x6x2x8xf16>, tensor<1x3x7x8xf16>, tensor<1x3x7x4xf16>, tensor<1x6x2x5xi1>, none, none, none) -> (tensor<*xf16>, tensor<*xf16>, tensor<*xf16>, tensor<*xf16>)
  return %0#0 : tensor<*xf16>
}

// -----

// CHECK-LABEL: func @rms_and_rotary
func.func @rms_and_rotary(%x: tensor<2x3x16xf32>, %s: tensor<16xf32>, %c: tensor<9x2xf32>, %p: tensor<2x3xi32>) -> tensor<*xf32> {
  // CHECK: top.RMSNorm{{.*}} -> tensor<2x3x16xf32>
  %0 = top.RMSNorm(%x, %s) : (tensor<2x3x16xf32>, tensor<16xf32>) -> tensor<*xf32>
  // CHECK: top.RotaryEmbedding{{.*}} -> tensor<2x3x16xf32>
  %1 = top.RotaryEmbedding(%0, %c, %c, %p) {num_heads = 2 : i64, rotary_embedding_dim = 4 : i64} : (tensor<*xf32>, tensor<9x2xf32>, tensor<9x2xf32>, tensor<2x3xi32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func @linear_attention_linear
func.func @linear_attention_linear(%q: tensor<1x5x8xf16>, %v: tensor<1x5x12xf16>) -> tensor<*xf16> {
  %n = top.None() : () -> none
  // CHECK: top.LinearAttention{{.*}} -> (tensor<1x5x12xf16>, tensor<1x2x4x6xf16>)
  %0:2 = top.LinearAttention(%q, %q, %v, %n, %n, %n) {q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = #top.update_rule<linear>} : (tensor<1x5x8xf16>, tensor<1x5x8xf16>, tensor<1x5x12xf16>, none, none, none) -> (tensor<*xf16>, tensor<*xf16>)
  return %0#0 : tensor<*xf16>
}
