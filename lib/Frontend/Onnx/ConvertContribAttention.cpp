//===- ConvertContribAttention.cpp - com.microsoft attention ops ----------===//
//
// ONNX Runtime's attention contrib ops (domain com.microsoft), which its
// transformer optimizer writes, as standard ONNX ops through an Expansion
// (ContribExpansion.h); the attention itself is ONNX Attention-23 with
// q_num_heads = kv_num_heads = num_heads on 3-d Q, K, V:
//   Attention(input, weights, bias, mask_index, past, attention_bias)
//     Q, K, V = split(input @ weights + bias); past = stack(past_key,
//     past_value), present likewise
//   MultiHeadAttention(query, key, value, bias, key_padding_mask,
//     attention_bias, past_key, past_value)
//   RotaryEmbedding(input, position_ids, cos_cache, sin_cache)
//     ONNX RotaryEmbedding-23; a position_ids of shape (1) is the offset
//     of positions 0..S-1
//   EmbedLayerNormalization(input_ids, segment_ids, word_embedding,
//     position_embedding, segment_embedding, gamma, beta, mask, position_ids)
//     LayerNormalization(word[ids] + position[pos] + segment[seg]);
//     mask_index = the count of 1s in each mask row
// Masks follow ONNX Runtime's CPU kernels: a masked key position adds
// `mask_filter_value` (default -10000) to its score; `unidirectional` is
// ONNX Attention's is_causal (a query at i sees keys up to past + i).
//
//===----------------------------------------------------------------------===//

#include "ContribExpansion.h"

namespace strata::onnx_import {
namespace {

/// Reads an int attribute that must be 0 or 1.
FailureOr<bool> attrFlag(NodeContext &c, StringRef name) {
  auto v = c.attrInt(name, 0);
  if (failed(v))
    return failure();
  if (*v != 0 && *v != 1)
    return c.error() << "attribute '" << name << "' = " << *v
                     << " must be 0 or 1";
  return *v == 1;
}

/// Refuses an int attribute set to anything but 0.
LogicalResult refuseNonZero(NodeContext &c, StringRef name, StringRef why) {
  auto v = c.attrInt(name, 0);
  if (failed(v))
    return failure();
  if (*v != 0)
    return c.error() << "attribute '" << name << "' = " << *v
                     << " is not supported (" << why << ")";
  return success();
}

/// The additive mask of an int32 key mask input `i`, broadcastable to
/// (B, heads, S, T), adding `filter` at the masked key positions; "" if the
/// input is absent. Forms: a raw mask (B, T) or (B, S, T) (0 = masked), or
/// the key counts (B) of right-padded rows (positions j >= count[b] are
/// masked; `total` is T, `batch` B).
FailureOr<std::string> keyMask(NodeContext &c, Expansion &e, size_t i,
                               float filter, const std::string &like,
                               int64_t batch, int64_t total) {
  if (!c.hasInput(i))
    return std::string();
  auto shape = c.requireShape(i);
  if (failed(shape))
    return failure();
  std::string masked;
  SmallVector<int64_t> axes;
  if (shape->size() == 1 && total > 0 && (*shape)[0] == batch) {
    SmallVector<int64_t> range;
    for (int64_t j = 0; j < total; ++j)
      range.push_back(j);
    std::string counts = e.node("Unsqueeze", {e.node("Cast", {e.in(i)},
                                                     {attrI("to", 7)}),
                                              e.ints({1})});
    masked = e.node("GreaterOrEqual", {e.ints(range), counts});
    axes = {1, 2};
  } else if (shape->size() == 2 || shape->size() == 3) {
    masked = e.node("Equal", {e.in(i), e.scalarLike(0, e.in(i))});
    axes = shape->size() == 2 ? SmallVector<int64_t>{1, 2}
                              : SmallVector<int64_t>{1};
  } else {
    return c.error() << "input " << i << " ('" << c.node().input(i)
                     << "') of shape " << formatArray(*shape)
                     << " is not supported (a raw mask (batch, "
                        "total_sequence) or (batch, sequence, "
                        "total_sequence), or right-padding lengths (batch); "
                        "left-padding positions (2 * batch) and packed forms "
                        "are not supported)";
  }
  std::string add = e.node("Where", {masked, e.scalarLike(filter, like),
                                     e.scalarLike(0, like)});
  return e.node("Unsqueeze", {add, e.ints(axes)});
}

/// `a + b` where either may be "" (absent).
std::string addOptional(Expansion &e, const std::string &a,
                        const std::string &b) {
  if (a.empty())
    return b;
  if (b.empty())
    return a;
  return e.node("Add", {a, b});
}

/// ONNX Attention-23 on 3-d q, k, v; returns (output, present_key,
/// present_value).
SmallVector<std::string> attention(Expansion &e, const std::string &q,
                                   const std::string &k, const std::string &v,
                                   const std::string &mask,
                                   const std::string &pastK,
                                   const std::string &pastV, int64_t heads,
                                   bool causal, std::optional<float> scale) {
  SmallVector<onnx::AttributeProto> attrs = {
      attrI("q_num_heads", heads), attrI("kv_num_heads", heads),
      attrI("is_causal", causal)};
  if (scale)
    attrs.push_back(attrF("scale", *scale));
  return e.nodeN("Attention", {q, k, v, mask, pastK, pastV}, 3, attrs);
}

/// Common attributes of Attention and MultiHeadAttention.
struct AttentionAttrs {
  int64_t heads;
  bool causal;
  std::optional<float> scale;
  float filter;
};

FailureOr<AttentionAttrs> readAttentionAttrs(NodeContext &c) {
  auto heads = c.attrIntOpt("num_heads");
  auto causal = attrFlag(c, "unidirectional");
  auto scale = c.attrFloat("scale", 0.0f);
  auto filter = c.attrFloat("mask_filter_value", -10000.0f);
  if (failed(heads) || failed(causal) || failed(scale) || failed(filter))
    return failure();
  if (!*heads || **heads < 1)
    return c.error() << "attribute 'num_heads' is required and must be >= 1";
  AttentionAttrs a{**heads, *causal, std::nullopt, *filter};
  // ORT: a scale of 0 (the default) means 1/sqrt(head_size).
  if (*scale != 0.0f)
    a.scale = *scale;
  return a;
}

LogicalResult convertAttention(NodeContext &c) {
  auto attrs = readAttentionAttrs(c);
  auto hidden = c.attrInts("qkv_hidden_sizes");
  auto wShape = c.requireShape(1);
  if (failed(attrs) || failed(hidden) || failed(wShape) ||
      failed(refuseNonZero(c, "do_rotary", "rotary embedding inside "
                                           "Attention")) ||
      failed(refuseNonZero(c, "past_present_share_buffer",
                           "a shared past/present buffer")) ||
      failed(refuseNonZero(c, "rotary_embedding_dim",
                           "rotary embedding inside Attention")))
    return failure();
  if (c.hasInput(6))
    return c.error() << "input 6 ('past_sequence_length') is not supported "
                        "(only with past_present_share_buffer)";
  if (wShape->size() != 2)
    return c.error() << "input 1 ('weights') has shape "
                     << formatArray(*wShape) << "; expected 2-d";
  SmallVector<int64_t> sizes;
  if (*hidden) {
    sizes.assign((*hidden)->begin(), (*hidden)->end());
    if (sizes.size() != 3 || sizes[0] != sizes[1] ||
        sizes[0] + sizes[1] + sizes[2] != (*wShape)[1])
      return c.error() << "attribute 'qkv_hidden_sizes' = "
                       << formatArray(sizes)
                       << " must be 3 sizes (Q = K) summing to the weights' "
                          "columns ("
                       << (*wShape)[1] << ")";
  } else {
    if ((*wShape)[1] % 3 != 0)
      return c.error() << "input 1 ('weights') has " << (*wShape)[1]
                       << " columns, not divisible by 3";
    sizes.assign(3, (*wShape)[1] / 3);
  }
  for (int64_t s : sizes)
    if (s % attrs->heads != 0)
      return c.error() << "hidden size " << s << " is not divisible by "
                       << "attribute 'num_heads' = " << attrs->heads;
  Expansion e(c);
  std::string qkv = e.node("MatMul", {e.in(0), e.in(1)});
  if (c.hasInput(2))
    qkv = e.node("Add", {qkv, e.in(2)});
  auto parts = e.nodeN("Split", {qkv, e.ints(sizes)}, 3, {attrI("axis", -1)});
  auto inShape = c.requireShape(0);
  if (failed(inShape))
    return failure();
  int64_t total = inShape->size() == 3 ? (*inShape)[1] : -1;
  if (c.hasInput(4)) {
    auto pastShape = c.requireShape(4);
    if (failed(pastShape))
      return failure();
    if (pastShape->size() != 5 || (*pastShape)[0] != 2)
      return c.error() << "input 4 ('past') of shape "
                       << formatArray(*pastShape)
                       << " must be (2, batch, num_heads, past_sequence, "
                          "head_size)";
    total += (*pastShape)[3];
  }
  auto mask = keyMask(c, e, 3, attrs->filter, qkv, (*inShape)[0], total);
  if (failed(mask))
    return failure();
  std::string bias = addOptional(e, *mask, e.in(5));
  std::string pastK, pastV;
  if (c.hasInput(4)) {
    auto kv = e.nodeN("Split", {e.in(4), e.ints({1, 1})}, 2,
                      {attrI("axis", 0)});
    pastK = e.node("Squeeze", {kv[0], e.ints({0})});
    pastV = e.node("Squeeze", {kv[1], e.ints({0})});
  }
  auto r = attention(e, parts[0], parts[1], parts[2], bias, pastK, pastV,
                     attrs->heads, attrs->causal, attrs->scale);
  std::string present;
  if (c.hasOutput(1))
    present = e.node("Concat",
                     {e.node("Unsqueeze", {r[1], e.ints({0})}),
                      e.node("Unsqueeze", {r[2], e.ints({0})})},
                     {attrI("axis", 0)});
  return e.finish({r[0], present});
}

LogicalResult convertMultiHeadAttention(NodeContext &c) {
  auto attrs = readAttentionAttrs(c);
  auto qRank = c.requireRank(0);
  if (failed(attrs) || failed(qRank))
    return failure();
  if (*qRank != 3)
    return c.error() << "input 0 ('query') of rank " << *qRank
                     << " is not supported (only (batch, sequence, hidden); "
                        "packed QKV is not)";
  if (!c.hasInput(1) || !c.hasInput(2))
    return c.error() << "inputs 1 ('key') and 2 ('value') are required "
                        "(packed QKV/KV is not supported)";
  for (size_t i : {1, 2}) {
    auto r = c.requireRank(i);
    if (failed(r))
      return failure();
    if (*r != 3)
      return c.error() << "input " << i << " ('" << c.node().input(i)
                       << "') of rank " << *r
                       << " is not supported (only (batch, kv_sequence, "
                          "hidden))";
  }
  if (c.hasInput(8) || c.hasInput(9))
    return c.error() << "inputs 8 ('past_sequence_length') and 9 "
                        "('cache_indirection') are not supported";
  if (c.hasInput(6) != c.hasInput(7))
    return c.error() << "inputs 6 ('past_key') and 7 ('past_value') must be "
                        "given together";
  if (c.hasOutput(3))
    return c.error() << "output 3 ('qk') is not supported";
  Expansion e(c);
  std::string q = e.in(0), k = e.in(1), v = e.in(2);
  if (c.hasInput(3)) {
    auto qs = c.requireShape(0), ks = c.requireShape(1),
         vs = c.requireShape(2);
    if (failed(qs) || failed(ks) || failed(vs))
      return failure();
    auto b = e.nodeN("Split",
                     {e.in(3), e.ints({qs->back(), ks->back(), vs->back()})},
                     3, {attrI("axis", 0)});
    q = e.node("Add", {q, b[0]});
    k = e.node("Add", {k, b[1]});
    v = e.node("Add", {v, b[2]});
  }
  auto kShape = c.requireShape(1);
  if (failed(kShape))
    return failure();
  int64_t total = (*kShape)[1];
  if (c.hasInput(6)) {
    auto pastShape = c.requireShape(6);
    if (failed(pastShape))
      return failure();
    if (pastShape->size() != 4)
      return c.error() << "input 6 ('past_key') of shape "
                       << formatArray(*pastShape)
                       << " must be (batch, num_heads, past_sequence, "
                          "head_size)";
    total += (*pastShape)[2];
  }
  auto mask = keyMask(c, e, 4, attrs->filter, q, (*kShape)[0], total);
  if (failed(mask))
    return failure();
  std::string bias = addOptional(e, *mask, e.in(5));
  auto r = attention(e, q, k, v, bias, e.in(6), e.in(7), attrs->heads,
                     attrs->causal, attrs->scale);
  return e.finish({r[0], r[1], r[2]});
}

LogicalResult convertRotaryEmbedding(NodeContext &c) {
  auto interleaved = attrFlag(c, "interleaved");
  auto packed = attrFlag(c, "is_packed_batching");
  auto heads = c.attrInt("num_heads", 0);
  auto dim = c.attrInt("rotary_embedding_dim", 0);
  auto scale = c.attrFloat("scale", 1.0f);
  auto xShape = c.requireShape(0);
  auto posShape = c.requireShape(1);
  if (failed(interleaved) || failed(packed) || failed(heads) || failed(dim) ||
      failed(scale) || failed(xShape) || failed(posShape))
    return failure();
  if (*packed)
    return c.error() << "attribute 'is_packed_batching' = 1 is not supported";
  if (*scale != 1.0f)
    return c.error() << "attribute 'scale' = " << *scale
                     << " is not supported (only 1; ONNX Runtime's CPU "
                        "kernel does not apply it)";
  if (xShape->size() != 3 && xShape->size() != 4)
    return c.error() << "input 0 of shape " << formatArray(*xShape)
                     << " is not supported (3-d or 4-d)";
  int64_t batch = (*xShape)[0];
  int64_t seq = xShape->size() == 3 ? (*xShape)[1] : (*xShape)[2];
  Expansion e(c);
  std::string pos = e.in(1);
  if (posShape->size() == 1 && (*posShape)[0] == 1) {
    // An offset: positions offset + 0 .. offset + S-1 for every batch row.
    SmallVector<int64_t> range;
    for (int64_t s = 0; s < seq; ++s)
      range.push_back(s);
    pos = e.node("Add", {e.node("Unsqueeze", {e.ints(range), e.ints({0})}),
                         e.node("Cast", {pos}, {attrI("to", 7)})});
    pos = e.node("Expand", {pos, e.ints({batch, seq})});
  } else if (posShape->size() != 2) {
    return c.error() << "input 1 ('position_ids') of shape "
                     << formatArray(*posShape)
                     << " is not supported ((batch, sequence) or (1))";
  }
  SmallVector<onnx::AttributeProto> attrs = {
      attrI("interleaved", *interleaved)};
  if (*heads)
    attrs.push_back(attrI("num_heads", *heads));
  if (*dim)
    attrs.push_back(attrI("rotary_embedding_dim", *dim));
  return e.finish({e.node("RotaryEmbedding",
                          {e.in(0), e.in(2), e.in(3), pos}, attrs)});
}

LogicalResult convertEmbedLayerNorm(NodeContext &c) {
  auto eps = c.attrFloat("epsilon", 1e-12f);
  auto maskType = c.attrInt("mask_index_type", 1);
  auto ids = c.requireShape(0);
  if (failed(eps) || failed(maskType) || failed(ids))
    return failure();
  if (*maskType != 0 && *maskType != 1)
    return c.error() << "attribute 'mask_index_type' = " << *maskType
                     << " is not supported (0 or 1)";
  if (ids->size() != 2)
    return c.error() << "input 0 ('input_ids') of shape " << formatArray(*ids)
                     << " must be (batch, sequence)";
  if (c.hasInput(1) != c.hasInput(4))
    return c.error() << "inputs 1 ('segment_ids') and 4 "
                        "('segment_embedding') must be given together";
  if (c.hasOutput(1) && (!c.hasInput(7) || *maskType == 0))
    return c.error() << "output 1 ('mask_index') needs input 7 ('mask') and "
                        "mask_index_type 1";
  Expansion e(c);
  std::string sum = e.node("Gather", {e.in(2), e.in(0)}, {attrI("axis", 0)});
  std::string pos = e.in(8);
  if (pos.empty()) {
    SmallVector<int64_t> range;
    for (int64_t s = 0; s < (*ids)[1]; ++s)
      range.push_back(s);
    pos = e.ints(range);
  }
  sum = e.node("Add", {sum, e.node("Gather", {e.in(3), pos},
                                   {attrI("axis", 0)})});
  if (c.hasInput(1))
    sum = e.node("Add", {sum, e.node("Gather", {e.in(4), e.in(1)},
                                     {attrI("axis", 0)})});
  std::string y = e.node("LayerNormalization", {sum, e.in(5), e.in(6)},
                         {attrI("axis", -1), attrF("epsilon", *eps)});
  std::string maskIndex;
  if (c.hasOutput(1)) {
    std::string ones = e.node("Equal", {e.in(7), e.scalarLike(1, e.in(7))});
    maskIndex = e.node("ReduceSum",
                       {e.node("Cast", {ones}, {attrI("to", 6)}), e.ints({1})},
                       {attrI("keepdims", 0)});
  }
  return e.finish({y, maskIndex, sum});
}

const ConverterEntry kContribAttention[] = {
    {"Attention", convertAttention},
    {"MultiHeadAttention", convertMultiHeadAttention},
    {"RotaryEmbedding", convertRotaryEmbedding},
    {"EmbedLayerNormalization", convertEmbedLayerNorm},
};
} // namespace

ArrayRef<ConverterEntry> contribAttentionConverters() {
  return kContribAttention;
}

} // namespace strata::onnx_import
