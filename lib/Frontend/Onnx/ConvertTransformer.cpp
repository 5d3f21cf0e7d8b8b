//===- ConvertTransformer.cpp - ONNX attention, RMS norm, rotary to Top ---===//
//
// The Transformer family (TopTransformerOps.td): Attention, LinearAttention, RMSNormalization and RotaryEmbedding each map
// onto one fused Top op (top.Attention, top.LinearAttention, top.RMSNorm,
// top.RotaryEmbedding); the ops' descriptions give the semantics.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

/// Checks a `stash_type` / `softmax_precision` attribute names a float type
/// (FLOAT, FLOAT16, DOUBLE, BFLOAT16). Strata computes in f32 or wider, which
/// is at least the precision asked for.
LogicalResult checkPrecisionAttr(NodeContext &c, StringRef name) {
  auto v = c.attrIntOpt(name);
  if (failed(v))
    return failure();
  if (*v && **v != 1 && **v != 10 && **v != 11 && **v != 16)
    return c.error() << "attribute '" << name << "' = " << **v
                     << " must be a float type (1, 10, 11 or 16)";
  return success();
}

/// Optional int attribute as an I64Attr (null when absent).
IntegerAttr optionalI64(NodeContext &c, std::optional<int64_t> v) {
  return v ? c.builder().getI64IntegerAttr(*v) : IntegerAttr();
}

LogicalResult convertAttention(NodeContext &c) {
  auto causal = c.attrInt("is_causal", 0);
  auto qHeads = c.attrIntOpt("q_num_heads");
  auto kvHeads = c.attrIntOpt("kv_num_heads");
  auto mode = c.attrInt("qk_matmul_output_mode", 0);
  auto softcap = c.attrFloat("softcap", 0.0f);
  auto scale = c.attrFloat("scale", 0.0f);
  if (failed(causal) || failed(qHeads) || failed(kvHeads) || failed(mode) ||
      failed(softcap) || failed(scale) ||
      failed(checkPrecisionAttr(c, "softmax_precision")))
    return failure();
  if (*causal != 0 && *causal != 1)
    return c.error() << "attribute 'is_causal' = " << *causal
                     << " must be 0 or 1";
  Type elem = elemOf(c, 0);
  if (!elem || !isa<FloatType>(elem))
    return c.error() << "input 'Q' must be a float tensor, got " << elem;
  OpBuilder &b = c.builder();
  FloatAttr scaleAttr =
      c.attr("scale") ? b.getF64FloatAttr(*scale) : FloatAttr();
  Value nonpad = c.version() >= 24 ? c.input(6) : c.none();
  Type kElem = elemOf(c, 1), vElem = elemOf(c, 2);
  auto r = c.createMulti<AttentionOp>(
      {elem, kElem ? kElem : elem, vElem ? vElem : elem, elem}, c.input(0),
      c.input(1), c.input(2), c.input(3), c.input(4), c.input(5), nonpad,
      optionalI64(c, *qHeads), optionalI64(c, *kvHeads),
      b.getBoolAttr(*causal != 0), scaleAttr, b.getF64FloatAttr(*softcap),
      b.getI64IntegerAttr(*mode));
  if (failed(r))
    return failure();
  for (size_t i = 0; i < 4 && i < c.numOutputs(); ++i)
    if (c.hasOutput(i))
      c.setOutput(i, (*r)[i]);
  return success();
}

LogicalResult convertRMSNorm(NodeContext &c) {
  auto axis = c.attrInt("axis", -1);
  auto eps = c.attrFloat("epsilon", 1e-5f);
  if (failed(axis) || failed(eps) || failed(checkPrecisionAttr(c, "stash_type")))
    return failure();
  OpBuilder &b = c.builder();
  auto r = c.create<RMSNormOp>(elemOf(c, 0), c.input(0), c.input(1),
                               b.getI64IntegerAttr(*axis),
                               b.getF64FloatAttr(*eps));
  if (failed(r))
    return failure();
  c.setOutput(0, *r);
  return success();
}

LogicalResult convertRotaryEmbedding(NodeContext &c) {
  auto interleaved = c.attrInt("interleaved", 0);
  auto dim = c.attrInt("rotary_embedding_dim", 0);
  auto heads = c.attrInt("num_heads", 0);
  if (failed(interleaved) || failed(dim) || failed(heads))
    return failure();
  if (*interleaved != 0 && *interleaved != 1)
    return c.error() << "attribute 'interleaved' = " << *interleaved
                     << " must be 0 or 1";
  OpBuilder &b = c.builder();
  auto r = c.create<RotaryEmbeddingOp>(
      elemOf(c, 0), c.input(0), c.input(1), c.input(2), c.input(3),
      b.getBoolAttr(*interleaved != 0), b.getI64IntegerAttr(*dim),
      b.getI64IntegerAttr(*heads));
  if (failed(r))
    return failure();
  c.setOutput(0, *r);
  return success();
}

LogicalResult convertLinearAttention(NodeContext &c) {
  auto qHeads = c.attrIntOpt("q_num_heads");
  auto kvHeads = c.attrIntOpt("kv_num_heads");
  auto scale = c.attrFloat("scale", 0.0f);
  auto rule = c.attrEnum<UpdateRule>("update_rule", "gated_delta");
  auto chunk = c.attrInt("chunk_size", 64);
  if (failed(qHeads) || failed(kvHeads) || failed(scale) || failed(rule) ||
      failed(chunk))
    return failure();
  if (!*qHeads || !*kvHeads)
    return c.error() << "attributes 'q_num_heads' and 'kv_num_heads' are "
                        "required";
  // chunk_size is a tuning hint without effect on the result.
  if (*chunk < 1)
    return c.error() << "attribute 'chunk_size' = " << *chunk
                     << " must be >= 1";
  Type elem = elemOf(c, 0);
  Type stateElem = c.hasInput(3) ? elemOf(c, 3) : elem;
  OpBuilder &b = c.builder();
  auto r = c.createMulti<LinearAttentionOp>(
      {elem, stateElem}, c.input(0), c.input(1), c.input(2), c.input(3),
      c.input(4), c.input(5), b.getI64IntegerAttr(**qHeads),
      b.getI64IntegerAttr(**kvHeads), b.getF64FloatAttr(*scale),
      UpdateRuleAttr::get(b.getContext(), *rule));
  if (failed(r))
    return failure();
  for (size_t i = 0; i < 2 && i < c.numOutputs(); ++i)
    if (c.hasOutput(i))
      c.setOutput(i, (*r)[i]);
  return success();
}

const ConverterEntry kTransformer[] = {
    {"LinearAttention", convertLinearAttention},
    {"Attention", convertAttention},
    {"RMSNormalization", convertRMSNorm},
    {"RotaryEmbedding", convertRotaryEmbedding},
};
} // namespace

ArrayRef<ConverterEntry> transformerConverters() { return kTransformer; }

} // namespace strata::onnx_import
