//===- TopTransformerOps.td - attention, RMS norm, rotary --*- tablegen -*-===//
//
// Fused transformer building blocks. The ONNX importer maps Attention-23/24,
// RMSNormalization-23 and RotaryEmbedding-23 to them; composite-function
// fusion ("scaled-dot-product attention", "rms_norm") targets them too.
// C++ in lib/Dialect/Top/IR/TransformerOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_TRANSFORMER_OPS
#define STRATA_TOP_TRANSFORMER_OPS

def Top_AttentionOp : Top_Op<"Attention", [Pure]> {
  let summary = "Scaled dot-product attention (ONNX Attention-23/24)";
  let description = [{
    `output = softmax(softcap(scale * Q @ K^T) + bias) @ V` per batch and
    query head, with the ONNX Attention-23/24 semantics.

    Layouts (`query`, `key`, `value` all rank 3 or all rank 4):
    - rank 4: `query` is `B x Hq x Sq x D`, `key` `B x Hkv x Skv x D`,
      `value` `B x Hkv x Skv x Dv`. `q_num_heads` / `kv_num_heads`, if
      given, must equal `Hq` / `Hkv`.
    - rank 3: `query` is `B x Sq x (Hq*D)`, `key` `B x Skv x (Hkv*D)`,
      `value` `B x Skv x (Hkv*Dv)`; `q_num_heads` (Hq) and `kv_num_heads`
      (Hkv) are required and must divide the hidden sizes. The output is
      then `B x Sq x (Hq*Dv)`.
    Grouped-query attention: `Hkv` (>= 1) divides `Hq`; query head `h`
    reads key/value head `h / (Hq / Hkv)`.

    Key/value cache: `past_key` (`B x Hkv x P x D`) and `past_value`
    (`B x Hkv x P x Dv`) are both given or both `none`; the keys and values
    attended to are `present_key = concat(past_key, K)` and
    `present_value = concat(past_value, V)` along the sequence dim (both
    results are always produced, `B x Hkv x T x D(v)` with `T = P + Skv`).

    Scores `s[b, h, i, j]` (`j < T`) are `scale * dot(q[b,h,i], k[b,h',j])`
    (`scale` defaults to `1/sqrt(D)`), then `softcap * tanh(s / softcap)`
    when `softcap > 0`, then plus the bias, which is the sum of:
    - `attn_mask` (or `none`): bool (`true` = attend, `false` = -inf) or
      float (added), broadcastable numpy-style to `B x Hq x Sq x L` with
      `L <= T` (rank 1 to 4); key positions `j >= L` are masked (-inf).
    - `is_causal`: `-inf` where `j > P + i` (the query at position i sees
      the past and keys up to its own position).
    - `nonpad_kv_seqlen` (or `none`): `B` integers; key positions
      `j >= nonpad_kv_seqlen[b]` are masked.
    Softmax over j subtracts the row maximum; a row whose every score is
    -inf gives NaN, as the ONNX reference implementation does.

    `qk_matmul_output` (`B x Hq x Sq x T`) holds, by `qk_matmul_output_mode`:
    0 or 1: the scaled scores after softcap (before the bias), 2: after the
    bias, 3: the softmax. The reference semantics compute in f64 (at least
    any ONNX `softmax_precision`) and round every result once to its element
    type (the query's, the key's, the value's).
  }];
  let arguments = (ins
    Top_Tensor:$query,
    Top_Tensor:$key,
    Top_Tensor:$value,
    Top_TensorOrNone:$attn_mask,
    Top_TensorOrNone:$past_key,
    Top_TensorOrNone:$past_value,
    Top_TensorOrNone:$nonpad_kv_seqlen,
    OptionalAttr<I64Attr>:$q_num_heads,
    OptionalAttr<I64Attr>:$kv_num_heads,
    DefaultValuedAttr<BoolAttr, "false">:$is_causal,
    OptionalAttr<F64Attr>:$scale,
    DefaultValuedAttr<F64Attr, "0.0">:$softcap,
    DefaultValuedAttr<I64Attr, "0">:$qk_matmul_output_mode
  );
  let results = (outs Top_Tensor:$output, Top_Tensor:$present_key,
                 Top_Tensor:$present_value, Top_Tensor:$qk_matmul_output);
  let hasVerifier = 1;
}

def Top_RMSNormOp : Top_Op<"RMSNorm", [Pure]> {
  let summary = "Root-mean-square normalization (ONNX RMSNormalization)";
  let description = [{
    Every slice `x` over dims `axis..rank-1` becomes
    `x / sqrt(mean(x^2) + epsilon) * scale`. `axis` may be negative and must
    be in `[-rank, rank)` (default -1). `scale` broadcasts numpy-style to the
    normalized shape `input.shape[axis:]` (its rank may not exceed that
    shape's). `epsilon` must be finite and >= 0 (default 1e-5). Statistics
    are computed in f64, the result rounded to the input's element type.
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$scale,
    DefaultValuedAttr<I64Attr, "-1">:$axis,
    DefaultValuedAttr<F64Attr, "1e-5">:$epsilon
  );
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_RotaryEmbeddingOp : Top_Op<"RotaryEmbedding", [Pure]> {
  let summary = "Rotary position embedding (ONNX RotaryEmbedding-23)";
  let description = [{
    Rotates pairs of features of every head by position-dependent angles.

    - `input`: `B x H x S x D` (rank 4), or `B x S x (H*D)` (rank 3, with
      `num_heads` = H required and dividing the hidden size).
    - `rotary_embedding_dim` R: the first R features of each head rotate, the
      rest pass through; 0 (default) means R = D. R is even and <= D.
    - `cos_cache`, `sin_cache`: with `position_ids` (`B x S` integers in
      `[0, M)`) they are `M x R/2` tables indexed by position; with
      `position_ids` = `none` they are `B x S x R/2`.
    - `interleaved`: pairs are `(x[2i], x[2i+1])`; otherwise
      `(x[i], x[i + R/2])`. Each pair `(a, b)` becomes
      `(a*cos - b*sin, a*sin + b*cos)` with `cos, sin` at index i.

    The result has the input's shape and element type; arithmetic is f64,
    rounded once. A position id outside `[0, M)` is a runtime error of the
    reference interpreter.
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$cos_cache,
    Top_Tensor:$sin_cache,
    Top_TensorOrNone:$position_ids,
    DefaultValuedAttr<BoolAttr, "false">:$interleaved,
    DefaultValuedAttr<I64Attr, "0">:$rotary_embedding_dim,
    DefaultValuedAttr<I64Attr, "0">:$num_heads
  );
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_LinearAttentionOp : Top_Op<"LinearAttention", [Pure]> {
  let summary = "Recurrent linear attention (ONNX LinearAttention-27)";
  let description = [{
    A recurrence over the T positions of `query` (`B x T x (Hq*Dk)`), `key`
    (`B x T x (Hkv*Dk)`) and `value` (`B x T x (Hkv*Dv)`) with a per-head
    state `S` (`Dk x Dv`), starting from `past_state` (`B x Hkv x Dk x Dv`)
    or zeros. At each position t, for every key/value head:
    - gating (`update_rule` "gated" or "gated_delta"): `S *= exp(g_t)`, with
      `decay` (`B x T x Hkv`, one gate per head, or `B x T x (Hkv*Dk)`, one
      per key dim, scaling the rows of S);
    - delta rule ("delta", "gated_delta"): `v_t = beta_t * (v_t - S^T k_t)`
      with `beta` (`B x T x Hkv` or `B x T x 1`);
    - write: `S += k_t v_t^T`;
    - read: `o_t = scale * S^T q_t` for each query head, which reads key/value
      head `h / (Hq / Hkv)`.
    `update_rule` "linear" uses neither. `decay` is given exactly when gating
    and `beta` exactly when the delta rule is used. `scale` absent or 0
    means `1/sqrt(Dk)`. Results: `output` (`B x T x (Hq*Dv)`) and
    `present_state`, the final S (`B x Hkv x Dk x Dv`). Arithmetic is f64,
    rounded once per result.
  }];
  let arguments = (ins
    Top_Tensor:$query,
    Top_Tensor:$key,
    Top_Tensor:$value,
    Top_TensorOrNone:$past_state,
    Top_TensorOrNone:$decay,
    Top_TensorOrNone:$beta,
    I64Attr:$q_num_heads,
    I64Attr:$kv_num_heads,
    DefaultValuedAttr<F64Attr, "0.0">:$scale,
    Top_DefaultEnum<Top_UpdateRuleAttr, "GatedDelta">:$update_rule
  );
  let results = (outs Top_Tensor:$output, Top_Tensor:$present_state);
  let hasVerifier = 1;
}

#endif // STRATA_TOP_TRANSFORMER_OPS
