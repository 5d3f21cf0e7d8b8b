//===- TransformerShapes.cpp - shape functions of Transformer ops ---------===//

#include "strata/Dialect/Top/Shapes/TransformerShapes.h"

namespace strata::top::shapes {

namespace {
/// True if `shape` broadcasts (numpy rules) to `target` without growing it:
/// rank at most target's, every dim 1 or equal to target's.
bool broadcastsInto(Ints shape, Ints target) {
  if (shape.size() > target.size())
    return false;
  size_t off = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && shape[i] != target[off + i])
      return false;
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {
/// Splits a rank-3 `B x S x hidden` operand into `heads` heads; the error
/// names the operand and the attribute.
ShapeOr<int64_t> headSizeOf(const char *operand, Ints shape, int64_t heads,
                            const char *attr) {
  if (shape[2] % heads != 0)
    return ShapeError() << operand << " hidden size " << shape[2]
                        << " is not divisible by attribute '" << attr
                        << "' = " << heads;
  return shape[2] / heads;
}

/// The heads and sizes of rank-3 query, key and value (`B x S x H*D`),
/// split by the required head-count attributes.
std::optional<ShapeError> splitRank3Heads(AttentionDims &d, Ints q, Ints k,
                                          Ints v, std::optional<int64_t> qAttr,
                                          std::optional<int64_t> kvAttr) {
  if (!qAttr || !kvAttr)
    return ShapeError() << "attributes 'q_num_heads' and 'kv_num_heads' are "
                           "required for rank-3 query, key and value";
  d.qHeads = *qAttr;
  d.kvHeads = *kvAttr;
  if (d.qHeads < 1 || d.kvHeads < 1)
    return ShapeError() << "attributes 'q_num_heads' = " << d.qHeads
                        << " and 'kv_num_heads' = " << d.kvHeads
                        << " must be >= 1";
  d.qSeq = q[1];
  d.kvSeq = k[1];
  if (v[1] != d.kvSeq)
    return ShapeError() << "key and value must have the same sequence "
                           "length, got shapes "
                        << k << " and " << v;
  ShapeOr<int64_t> qh = headSizeOf("query", q, d.qHeads, "q_num_heads");
  if (!qh)
    return ShapeError() << qh.error();
  ShapeOr<int64_t> kh = headSizeOf("key", k, d.kvHeads, "kv_num_heads");
  if (!kh)
    return ShapeError() << kh.error();
  ShapeOr<int64_t> vh = headSizeOf("value", v, d.kvHeads, "kv_num_heads");
  if (!vh)
    return ShapeError() << vh.error();
  if (*kh != *qh)
    return ShapeError() << "key head size " << *kh
                        << " must equal query head size " << *qh;
  d.headSize = *qh;
  d.vHeadSize = *vh;
  return std::nullopt;
}

/// The heads and sizes of rank-4 query, key and value (`B x H x S x D`),
/// checked against the optional head-count attributes.
std::optional<ShapeError> readRank4Heads(AttentionDims &d, Ints q, Ints k,
                                         Ints v, std::optional<int64_t> qAttr,
                                         std::optional<int64_t> kvAttr) {
  d.qHeads = q[1];
  d.kvHeads = k[1];
  d.qSeq = q[2];
  d.kvSeq = k[2];
  d.headSize = q[3];
  d.vHeadSize = v[3];
  if (qAttr && *qAttr != d.qHeads)
    return ShapeError() << "attribute 'q_num_heads' = " << *qAttr
                        << " does not match query heads " << d.qHeads;
  if (kvAttr && *kvAttr != d.kvHeads)
    return ShapeError() << "attribute 'kv_num_heads' = " << *kvAttr
                        << " does not match key heads " << d.kvHeads;
  if (v[1] != d.kvHeads || v[2] != d.kvSeq || k[3] != d.headSize)
    return ShapeError()
           << "key must be [B, Hkv, Skv, " << d.headSize
           << "] and value [B, Hkv, Skv, Dv] with the same Hkv and Skv, got "
              "shapes "
           << k << " and " << v;
  return std::nullopt;
}

/// Checks the KV cache, the mask and the non-padded lengths against the
/// sizes of query, key and value; completes `d` (past, total, maskLen).
std::optional<ShapeError> checkAttentionExtras(AttentionDims &d,
                                               const AttentionOperands &o) {
  if (o.pastKey.has_value() != o.pastValue.has_value())
    return ShapeError() << "past_key and past_value must be given together";
  if (o.pastKey) {
    Ints pk = *o.pastKey, pv = *o.pastValue;
    if (pk.size() != 4 || pv.size() != 4 || pk[0] != d.batch ||
        pk[1] != d.kvHeads || pk[3] != d.headSize || pv[0] != d.batch ||
        pv[1] != d.kvHeads || pv[2] != pk[2] || pv[3] != d.vHeadSize)
      return ShapeError() << "past_key must be [" << d.batch << ", "
                          << d.kvHeads << ", P, " << d.headSize
                          << "] and past_value [" << d.batch << ", "
                          << d.kvHeads << ", P, " << d.vHeadSize << "], got "
                          << pk << " and " << pv;
    d.past = pk[2];
  }
  if (__builtin_add_overflow(d.past, d.kvSeq, &d.total))
    return ShapeError() << "total sequence length overflows int64";
  d.maskLen = d.total;
  if (o.attnMask) {
    Ints m = *o.attnMask;
    if (m.empty() || m.size() > 4 || m.back() > d.total ||
        !broadcastsInto(m, Shape{d.batch, d.qHeads, d.qSeq, m.back()}))
      return ShapeError() << "attn_mask shape " << m << " must broadcast to ["
                          << d.batch << ", " << d.qHeads << ", " << d.qSeq
                          << ", L] with L <= total sequence length " << d.total;
    d.maskLen = m.back();
  }
  if (o.nonpadKvSeqlen) {
    Ints n = *o.nonpadKvSeqlen;
    if (n.size() != 1 || n[0] != d.batch)
      return ShapeError() << "nonpad_kv_seqlen must have shape [" << d.batch
                          << "], got " << n;
  }
  return std::nullopt;
}

/// The result shapes of attention `d`: output, present_key, present_value,
/// qk_matmul_output.
Shapes attentionShapes(const AttentionDims &d) {
  Shape output = d.rank3 ? Shape{d.batch, d.qSeq, d.qHeads * d.vHeadSize}
                         : Shape{d.batch, d.qHeads, d.qSeq, d.vHeadSize};
  return {output,
          {d.batch, d.kvHeads, d.total, d.headSize},
          {d.batch, d.kvHeads, d.total, d.vHeadSize},
          {d.batch, d.qHeads, d.qSeq, d.total}};
}
} // namespace

ShapeOr<AttentionDims> attentionDims(const AttentionOperands &operands,
                                     std::optional<int64_t> qNumHeads,
                                     std::optional<int64_t> kvNumHeads) {
  Ints q = operands.query, k = operands.key, v = operands.value;
  if (q.size() != 3 && q.size() != 4)
    return ShapeError() << "query must have rank 3 or 4, got shape " << q;
  if (k.size() != q.size() || v.size() != q.size())
    return ShapeError()
           << "query, key and value must have the same rank, got shapes " << q
           << ", " << k << " and " << v;
  AttentionDims d;
  d.rank3 = q.size() == 3;
  d.batch = q[0];
  if (k[0] != d.batch || v[0] != d.batch)
    return ShapeError() << "query, key and value must have the same batch "
                           "size, got shapes "
                        << q << ", " << k << " and " << v;
  std::optional<ShapeError> error =
      d.rank3 ? splitRank3Heads(d, q, k, v, qNumHeads, kvNumHeads)
              : readRank4Heads(d, q, k, v, qNumHeads, kvNumHeads);
  if (error)
    return *error;
  if (d.kvHeads < 1 || d.qHeads % d.kvHeads != 0)
    return ShapeError() << "key/value heads " << d.kvHeads
                        << " must be >= 1 and divide query heads " << d.qHeads;
  if (std::optional<ShapeError> extras = checkAttentionExtras(d, operands))
    return *extras;
  // The result sizes must fit int64.
  for (const Shape &shape : attentionShapes(d)) {
    ShapeOr<int64_t> count = checkedElementCount(shape);
    if (!count)
      return ShapeOr<AttentionDims>::errorOf(count);
  }
  return d;
}

ShapeOr<Shapes> inferAttention(const AttentionOperands &operands,
                               std::optional<int64_t> qNumHeads,
                               std::optional<int64_t> kvNumHeads) {
  ShapeOr<AttentionDims> d = attentionDims(operands, qNumHeads, kvNumHeads);
  if (!d)
    return ShapeOr<Shapes>::errorOf(d);
  return attentionShapes(*d);
}

//===----------------------------------------------------------------------===//
// RMSNorm
//===----------------------------------------------------------------------===//

ShapeOr<Shape> inferRMSNorm(Ints input, Ints scale, int64_t axis) {
  ShapeOr<int64_t> a = normalizeAxisAttr("axis", axis, input.rank());
  if (!a)
    return ShapeOr<Shape>::errorOf(a);
  Ints normalized = input.slice(*a);
  if (!broadcastsInto(scale, normalized))
    return ShapeError() << "scale shape " << scale
                        << " does not broadcast to the normalized shape "
                        << normalized;
  return input.vec();
}

//===----------------------------------------------------------------------===//
// RotaryEmbedding
//===----------------------------------------------------------------------===//

namespace {
/// The batch, heads, sequence and head size of the input: [B, H, S, D], or
/// [B, S, H*D] split into `numHeads` heads.
std::optional<ShapeError> readRotaryInput(RotaryDims &d, Ints in,
                                          int64_t numHeads) {
  if (in.size() == 4) {
    d.batch = in[0];
    d.heads = in[1];
    d.seq = in[2];
    d.headSize = in[3];
    if (numHeads != 0 && numHeads != d.heads)
      return ShapeError() << "attribute 'num_heads' = " << numHeads
                          << " does not match input heads " << d.heads;
    return std::nullopt;
  }
  if (in.size() != 3)
    return ShapeError() << "input must have rank 3 or 4, got shape " << in;
  if (numHeads < 1 || in[2] % numHeads != 0)
    return ShapeError() << "attribute 'num_heads' = " << numHeads
                        << " must be >= 1 and divide the hidden size " << in[2]
                        << " of a rank-3 input";
  d.rank3 = true;
  d.batch = in[0];
  d.seq = in[1];
  d.heads = numHeads;
  d.headSize = in[2] / numHeads;
  return std::nullopt;
}
} // namespace

ShapeOr<RotaryDims> rotaryDims(Ints input, Ints cosCache, Ints sinCache,
                               std::optional<Ints> positionIds,
                               int64_t numHeads, int64_t rotaryEmbeddingDim) {
  RotaryDims d;
  if (std::optional<ShapeError> error = readRotaryInput(d, input, numHeads))
    return *error;
  int64_t r = rotaryEmbeddingDim;
  d.rotary = r == 0 ? d.headSize : r;
  if (r < 0 || d.rotary > d.headSize || d.rotary % 2 != 0)
    return ShapeError() << "attribute 'rotary_embedding_dim' = " << r
                        << " must be 0 or even, positive and <= head size "
                        << d.headSize;
  Ints cos = cosCache;
  if (cos != sinCache)
    return ShapeError() << "cos_cache and sin_cache must have the same "
                           "shape, got "
                        << cos << " and " << sinCache;
  int64_t half = d.rotary / 2;
  if (positionIds) {
    Ints pos = *positionIds;
    if (pos.size() != 2 || pos[0] != d.batch || pos[1] != d.seq)
      return ShapeError() << "position_ids must have shape [" << d.batch << ", "
                          << d.seq << "], got " << pos;
    if (cos.size() != 2 || cos[1] != half)
      return ShapeError() << "cos_cache must have shape [max_position, " << half
                          << "] with position_ids, got " << cos;
    d.positions = cos[0];
  } else if (cos.size() != 3 || cos[0] != d.batch || cos[1] != d.seq ||
             cos[2] != half) {
    return ShapeError() << "cos_cache must have shape [" << d.batch << ", "
                        << d.seq << ", " << half
                        << "] without position_ids, got " << cos;
  }
  return d;
}

ShapeOr<Shape> inferRotaryEmbedding(Ints input, Ints cosCache, Ints sinCache,
                                    std::optional<Ints> positionIds,
                                    int64_t numHeads,
                                    int64_t rotaryEmbeddingDim) {
  ShapeOr<RotaryDims> d = rotaryDims(input, cosCache, sinCache, positionIds,
                                     numHeads, rotaryEmbeddingDim);
  if (!d)
    return ShapeOr<Shape>::errorOf(d);
  return input.vec();
}

//===----------------------------------------------------------------------===//
// LinearAttention
//===----------------------------------------------------------------------===//

namespace {
/// Checks `decay` (when the rule gates) and `beta` (when it uses the delta
/// rule) against the sizes in `d`; completes `d`.
std::optional<ShapeError> checkLinearGates(LinearAttentionDims &d,
                                           const LinearAttentionOperands &o,
                                           const std::string &rule) {
  if (o.decay.has_value() != d.gating)
    return ShapeError() << "decay must be given exactly when 'update_rule' "
                           "gates (got '"
                        << rule << "')";
  if (o.beta.has_value() != d.delta)
    return ShapeError() << "beta must be given exactly when 'update_rule' "
                           "uses the delta rule (got '"
                        << rule << "')";
  if (d.gating) {
    Ints g = *o.decay;
    if (g.size() != 3 || g[0] != d.batch || g[1] != d.seq ||
        (g[2] != d.kvHeads && g[2] != d.kvHeads * d.keySize))
      return ShapeError() << "decay must have shape [" << d.batch << ", "
                          << d.seq << ", " << d.kvHeads << "] or [" << d.batch
                          << ", " << d.seq << ", " << d.kvHeads * d.keySize
                          << "], got " << g;
    d.decayPerDim = g[2] != d.kvHeads;
  }
  if (d.delta) {
    Ints b = *o.beta;
    if (b.size() != 3 || b[0] != d.batch || b[1] != d.seq ||
        (b[2] != d.kvHeads && b[2] != 1))
      return ShapeError() << "beta must have shape [" << d.batch << ", "
                          << d.seq << ", " << d.kvHeads << "] or [" << d.batch
                          << ", " << d.seq << ", 1], got " << b;
    d.betaHeads = b[2];
  }
  return std::nullopt;
}
} // namespace

ShapeOr<LinearAttentionDims>
linearAttentionDims(const LinearAttentionOperands &operands,
                    const std::string &updateRule, int64_t qNumHeads,
                    int64_t kvNumHeads) {
  LinearAttentionDims d;
  const std::string &rule = updateRule;
  if (rule != "linear" && rule != "gated" && rule != "delta" &&
      rule != "gated_delta")
    return ShapeError() << "attribute 'update_rule' = '" << rule
                        << "' must be 'linear', 'gated', 'delta' or "
                           "'gated_delta'";
  d.gating = rule == "gated" || rule == "gated_delta";
  d.delta = rule == "delta" || rule == "gated_delta";
  d.qHeads = qNumHeads;
  d.kvHeads = kvNumHeads;
  if (d.qHeads < 1 || d.kvHeads < 1 || d.qHeads % d.kvHeads != 0)
    return ShapeError() << "attributes 'q_num_heads' = " << d.qHeads
                        << " and 'kv_num_heads' = " << d.kvHeads
                        << " must be >= 1, kv_num_heads dividing q_num_heads";
  Ints q = operands.query, k = operands.key, v = operands.value;
  if (q.size() != 3 || k.size() != 3 || v.size() != 3 || k[0] != q[0] ||
      v[0] != q[0] || k[1] != q[1] || v[1] != q[1])
    return ShapeError() << "query, key and value must be rank 3 "
                           "[B, T, heads*size] with the same B and T, got "
                           "shapes "
                        << q << ", " << k << " and " << v;
  d.batch = q[0];
  d.seq = q[1];
  if (q[2] % d.qHeads != 0 || v[2] % d.kvHeads != 0 ||
      k[2] != q[2] / d.qHeads * d.kvHeads)
    return ShapeError() << "query hidden size " << q[2]
                        << " must split into q_num_heads = " << d.qHeads
                        << " heads of size Dk, key hidden size " << k[2]
                        << " must be kv_num_heads * Dk and value hidden size "
                        << v[2]
                        << " a multiple of kv_num_heads = " << d.kvHeads;
  d.keySize = q[2] / d.qHeads;
  d.valueSize = v[2] / d.kvHeads;
  Shape state = {d.batch, d.kvHeads, d.keySize, d.valueSize};
  if (operands.pastState && *operands.pastState != Ints(state))
    return ShapeError() << "past_state must have shape " << state << ", got "
                        << *operands.pastState;
  if (std::optional<ShapeError> error = checkLinearGates(d, operands, rule))
    return *error;
  return d;
}

ShapeOr<Shapes> inferLinearAttention(const LinearAttentionOperands &operands,
                                     const std::string &updateRule,
                                     int64_t qNumHeads, int64_t kvNumHeads) {
  ShapeOr<LinearAttentionDims> d =
      linearAttentionDims(operands, updateRule, qNumHeads, kvNumHeads);
  if (!d)
    return ShapeOr<Shapes>::errorOf(d);
  return Shapes{{d->batch, d->seq, d->qHeads * d->valueSize},
                {d->batch, d->kvHeads, d->keySize, d->valueSize}};
}

} // namespace strata::top::shapes
