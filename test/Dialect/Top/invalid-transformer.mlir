// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of Attention, RMSNorm, RotaryEmbedding and
// LinearAttention, one case per split.
func.func @attn_rank(%q: tensor<2x3xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{query must have rank 3 or 4, got shape [2, 3]}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %n) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_rank_mismatch(%q: tensor<1x2x3x4xf32>, %k: tensor<1x3x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{query, key and value must have the same rank, got shapes [1, 2, 3, 4], [1, 3, 8] and [1, 3, 8]}}
  %0:4 = top.Attention(%q, %k, %k, %n, %n, %n, %n) : (tensor<1x2x3x4xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_batch(%q: tensor<1x2x3x4xf32>, %k: tensor<2x2x3x4xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{query, key and value must have the same batch size}}
  %0:4 = top.Attention(%q, %k, %k, %n, %n, %n, %n) : (tensor<1x2x3x4xf32>, tensor<2x2x3x4xf32>, tensor<2x2x3x4xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_3d_heads_missing(%q: tensor<1x3x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attributes 'q_num_heads' and 'kv_num_heads' are required for rank-3 query, key and value}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %n) : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_3d_heads_zero(%q: tensor<1x3x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attributes 'q_num_heads' = 0 and 'kv_num_heads' = 2 must be >= 1}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %n) {q_num_heads = 0 : i64, kv_num_heads = 2 : i64} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_3d_hidden(%q: tensor<1x3x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{query hidden size 8 is not divisible by attribute 'q_num_heads' = 3}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %n) {q_num_heads = 3 : i64, kv_num_heads = 3 : i64} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_3d_key_head(%q: tensor<1x3x8xf32>, %k: tensor<1x3x6xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{key head size 3 must equal query head size 4}}
  %0:4 = top.Attention(%q, %k, %k, %n, %n, %n, %n) {q_num_heads = 2 : i64, kv_num_heads = 2 : i64} : (tensor<1x3x8xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_4d_heads_attr(%q: tensor<1x2x3x4xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'q_num_heads' = 4 does not match query heads 2}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %n) {q_num_heads = 4 : i64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_gqa(%q: tensor<1x3x3x4xf32>, %k: tensor<1x2x3x4xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{key/value heads 2 must be >= 1 and divide query heads 3}}
  %0:4 = top.Attention(%q, %k, %k, %n, %n, %n, %n) : (tensor<1x3x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_value_shape(%q: tensor<1x2x3x4xf32>, %v: tensor<1x2x5x4xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{key must be [B, Hkv, Skv, 4] and value [B, Hkv, Skv, Dv] with the same Hkv and Skv}}
  %0:4 = top.Attention(%q, %q, %v, %n, %n, %n, %n) : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_past_pair(%q: tensor<1x2x3x4xf32>, %p: tensor<1x2x1x4xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{past_key and past_value must be given together}}
  %0:4 = top.Attention(%q, %q, %q, %n, %p, %n, %n) : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, none, tensor<1x2x1x4xf32>, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_past_shape(%q: tensor<1x2x3x4xf32>, %p: tensor<1x2x1x5xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{past_key must be [1, 2, P, 4] and past_value [1, 2, P, 4], got [1, 2, 1, 5] and [1, 2, 1, 5]}}
  %0:4 = top.Attention(%q, %q, %q, %n, %p, %p, %n) : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, none, tensor<1x2x1x5xf32>, tensor<1x2x1x5xf32>, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_mask_long(%q: tensor<1x2x3x4xf32>, %m: tensor<3x4xi1>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attn_mask shape [3, 4] must broadcast to [1, 2, 3, L] with L <= total sequence length 3}}
  %0:4 = top.Attention(%q, %q, %q, %m, %n, %n, %n) : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x4xi1>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_mask_bcast(%q: tensor<1x2x3x4xf32>, %m: tensor<2x3xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attn_mask shape [2, 3] must broadcast to [1, 2, 3, L]}}
  %0:4 = top.Attention(%q, %q, %q, %m, %n, %n, %n) : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<2x3xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_mask_type(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xi32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attn_mask must have a float or i1 element type, got 'i32'}}
  %0:4 = top.Attention(%q, %q, %q, %m, %n, %n, %n) : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xi32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_nonpad(%q: tensor<1x2x3x4xf32>, %s: tensor<2xi64>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{nonpad_kv_seqlen must have shape [1], got [2]}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %s) : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, none, none, none, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_mode(%q: tensor<1x2x3x4xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'qk_matmul_output_mode' = 4 must be in [0, 3]}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %n) {qk_matmul_output_mode = 4 : i64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_softcap(%q: tensor<1x2x3x4xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'softcap' = -1.000000e+00 must be finite and >= 0}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %n) {softcap = -1.0 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @attn_query_type(%q: tensor<1x2x3x4xi32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{query must have a float element type, got 'i32'}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %n) : (tensor<1x2x3x4xi32>, tensor<1x2x3x4xi32>, tensor<1x2x3x4xi32>, none, none, none, none) -> (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>)
  return
}

// -----

func.func @attn_result_shape(%q: tensor<1x2x3x4xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{result #0 has shape [1, 2, 3, 5] but the operands and attributes give [1, 2, 3, 4]}}
  %0:4 = top.Attention(%q, %q, %q, %n, %n, %n, %n) : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, none, none, none, none) -> (tensor<1x2x3x5xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rms_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'axis' = 2 is out of range}}
  %0 = top.RMSNorm(%x, %s) {axis = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @rms_scale(%x: tensor<2x3xf32>, %s: tensor<2x3xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{scale shape [2, 3] does not broadcast to the normalized shape [3]}}
  %0 = top.RMSNorm(%x, %s) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @rms_eps(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'epsilon' = -1.000000e+00 must be finite and >= 0}}
  %0 = top.RMSNorm(%x, %s) {epsilon = -1.0 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @rms_type(%x: tensor<2x3xi32>, %s: tensor<3xi32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{input must have a float element type, got 'i32'}}
  %0 = top.RMSNorm(%x, %s) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<*xi32>
  return
}

// -----

func.func @rope_rank(%x: tensor<2x3xf32>, %c: tensor<2x3x1xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{input must have rank 3 or 4, got shape [2, 3]}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %n) : (tensor<2x3xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @rope_heads_3d(%x: tensor<2x3x8xf32>, %c: tensor<2x3x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'num_heads' = 0 must be >= 1 and divide the hidden size 8 of a rank-3 input}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %n) : (tensor<2x3x8xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @rope_heads_4d(%x: tensor<2x2x3x4xf32>, %c: tensor<2x3x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'num_heads' = 3 does not match input heads 2}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %n) {num_heads = 3 : i64} : (tensor<2x2x3x4xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @rope_dim_odd(%x: tensor<2x2x3x4xf32>, %c: tensor<2x3x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'rotary_embedding_dim' = 3 must be 0 or even, positive and <= head size 4}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %n) {rotary_embedding_dim = 3 : i64} : (tensor<2x2x3x4xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @rope_dim_big(%x: tensor<2x2x3x4xf32>, %c: tensor<2x3x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'rotary_embedding_dim' = 6 must be 0 or even, positive and <= head size 4}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %n) {rotary_embedding_dim = 6 : i64} : (tensor<2x2x3x4xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @rope_dim_negative(%x: tensor<2x2x3x4xf32>, %c: tensor<2x3x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'rotary_embedding_dim' = -2 must be 0 or even, positive and <= head size 4}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %n) {rotary_embedding_dim = -2 : i64} : (tensor<2x2x3x4xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @rope_cache_mismatch(%x: tensor<2x2x3x4xf32>, %c: tensor<2x3x2xf32>, %s: tensor<2x3x1xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{cos_cache and sin_cache must have the same shape, got [2, 3, 2] and [2, 3, 1]}}
  %0 = top.RotaryEmbedding(%x, %c, %s, %n) : (tensor<2x2x3x4xf32>, tensor<2x3x2xf32>, tensor<2x3x1xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @rope_cache_nopos(%x: tensor<2x2x3x4xf32>, %c: tensor<10x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{cos_cache must have shape [2, 3, 2] without position_ids, got [10, 2]}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %n) : (tensor<2x2x3x4xf32>, tensor<10x2xf32>, tensor<10x2xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @rope_cache_pos(%x: tensor<2x2x3x4xf32>, %c: tensor<10x3xf32>, %p: tensor<2x3xi64>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{cos_cache must have shape [max_position, 2] with position_ids, got [10, 3]}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %p) : (tensor<2x2x3x4xf32>, tensor<10x3xf32>, tensor<10x3xf32>, tensor<2x3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @rope_pos_shape(%x: tensor<2x2x3x4xf32>, %c: tensor<10x2xf32>, %p: tensor<3x2xi64>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{position_ids must have shape [2, 3], got [3, 2]}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %p) : (tensor<2x2x3x4xf32>, tensor<10x2xf32>, tensor<10x2xf32>, tensor<3x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @rope_pos_type(%x: tensor<2x2x3x4xf32>, %c: tensor<10x2xf32>, %p: tensor<2x3xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{position_ids must have an integer element type, got 'f32'}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %p) : (tensor<2x2x3x4xf32>, tensor<10x2xf32>, tensor<10x2xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @la_rule(%q: tensor<1x3x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+2 {{failed to parse Top_UpdateRuleAttr parameter 'value'}}
  // expected-error @+1 {{unknown update_rule 'fast', expected one of: linear, gated, delta, gated_delta}}
  %0:2 = top.LinearAttention(%q, %q, %q, %n, %n, %n) {q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = #top.update_rule<fast>} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @la_heads(%q: tensor<1x3x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attributes 'q_num_heads' = 2 and 'kv_num_heads' = 3 must be >= 1, kv_num_heads dividing q_num_heads}}
  %0:2 = top.LinearAttention(%q, %q, %q, %n, %n, %n) {q_num_heads = 2 : i64, kv_num_heads = 3 : i64, update_rule = #top.update_rule<linear>} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @la_hidden(%q: tensor<1x3x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{query hidden size 8 must split into q_num_heads = 3 heads of size Dk}}
  %0:2 = top.LinearAttention(%q, %q, %q, %n, %n, %n) {q_num_heads = 3 : i64, kv_num_heads = 3 : i64, update_rule = #top.update_rule<linear>} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @la_decay_missing(%q: tensor<1x3x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{decay must be given exactly when 'update_rule' gates (got 'gated')}}
  %0:2 = top.LinearAttention(%q, %q, %q, %n, %n, %n) {q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = #top.update_rule<gated>} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @la_beta_missing(%q: tensor<1x3x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{beta must be given exactly when 'update_rule' uses the delta rule (got 'delta')}}
  %0:2 = top.LinearAttention(%q, %q, %q, %n, %n, %n) {q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = #top.update_rule<delta>} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @la_past_shape(%q: tensor<1x3x8xf32>, %s: tensor<1x2x4x5xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{past_state must have shape [1, 2, 4, 4], got [1, 2, 4, 5]}}
  %0:2 = top.LinearAttention(%q, %q, %q, %s, %n, %n) {q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = #top.update_rule<linear>} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x2x4x5xf32>, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @la_decay_shape(%q: tensor<1x3x8xf32>, %g: tensor<1x3x3xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{decay must have shape [1, 3, 2] or [1, 3, 8], got [1, 3, 3]}}
  %0:2 = top.LinearAttention(%q, %q, %q, %n, %g, %n) {q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = #top.update_rule<gated>} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, none, tensor<1x3x3xf32>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}
