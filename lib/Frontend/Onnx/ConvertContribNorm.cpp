//===- ConvertContribNorm.cpp - com.microsoft GELUs, norms, biased adds ---===//
//
// ONNX Runtime's elementwise and normalization contrib ops of transformer
// models as standard ONNX ops, through an Expansion (ContribExpansion.h):
//   Gelu(X)            = Gelu(X)                      (erf form)
//   BiasGelu(A, B)     = Gelu(A + B)
//   FastGelu(X, bias)  = Gelu(X + bias, approximate = "tanh")
//   QuickGelu(X)       = X * Sigmoid(alpha * X)
//   BiasAdd(X, b, S)   = X + b + S
//   BiasSoftmax(D, b)  = Softmax(D + b) over the dims from `axis` on
//   SkipLayerNormalization(x, skip, gamma, beta, bias)
//                      = LayerNormalization(x + skip + bias, gamma, beta)
//   SkipSimplifiedLayerNormalization(x, skip, gamma, bias)
//                      = RMS-normalize(x + skip + bias) * gamma
// and, in the default domain where ONNX Runtime registers them at version
// 1: SimplifiedLayerNormalization (RMS normalization over the dims from
// `axis`) and LayerNormalization before opset 17. The statistics are
// computed in f32 (ONNX Runtime's stash type).
//
//===----------------------------------------------------------------------===//

#include "ContribExpansion.h"

namespace strata::onnx_import {
namespace {

LogicalResult convertGelu(NodeContext &c) {
  Expansion e(c);
  return e.finish({e.node("Gelu", {e.in(0)})});
}

LogicalResult convertBiasGelu(NodeContext &c) {
  Expansion e(c);
  return e.finish({e.node("Gelu", {e.node("Add", {e.in(0), e.in(1)})})});
}

LogicalResult convertFastGelu(NodeContext &c) {
  Expansion e(c);
  std::string x = e.in(0);
  if (c.hasInput(1))
    x = e.node("Add", {x, e.in(1)});
  return e.finish({e.node("Gelu", {x}, {attrS("approximate", "tanh")})});
}

LogicalResult convertQuickGelu(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 1.702f);
  if (failed(alpha))
    return failure();
  Expansion e(c);
  std::string x = e.in(0);
  std::string ax = e.node("Mul", {x, e.scalarLike(*alpha, x)});
  return e.finish({e.node("Mul", {x, e.node("Sigmoid", {ax})})});
}

LogicalResult convertBiasAdd(NodeContext &c) {
  Expansion e(c);
  return e.finish(
      {e.node("Add", {e.node("Add", {e.in(0), e.in(1)}), e.in(2)})});
}

LogicalResult convertBiasSoftmax(NodeContext &c) {
  auto axis = c.attrInt("axis", 1);
  auto inner = c.attrInt("is_inner_broadcast", 0);
  auto rank = c.requireRank(0);
  auto biasRank = c.requireRank(1);
  if (failed(axis) || failed(inner) || failed(rank) || failed(biasRank))
    return failure();
  if (!c.attr("is_inner_broadcast"))
    return c.error() << "attribute 'is_inner_broadcast' is required";
  if (*inner != 0 && *inner != 1)
    return c.error() << "attribute 'is_inner_broadcast' = " << *inner
                     << " must be 0 or 1";
  // Both modes are numpy broadcasting when the bias has the data's rank;
  // a lower-rank bias is right-aligned (outer broadcast) only.
  if (*inner == 1 && *biasRank != *rank)
    return c.error() << "attribute 'is_inner_broadcast' = 1 with a bias of "
                        "rank "
                     << *biasRank << " for data of rank " << *rank
                     << " is not supported (the bias must have the data's "
                        "rank, with 1 for the broadcast dims)";
  auto ax = c.normalizeAxis("attribute 'axis' =", *axis, *rank);
  if (failed(ax))
    return failure();
  Expansion e(c);
  std::string sum = e.node("Add", {e.in(0), e.in(1)});
  if (*ax == *rank - 1)
    return e.finish({e.node("Softmax", {sum}, {attrI("axis", -1)})});
  // Softmax over the dims from `axis` on, flattened (Softmax-1's meaning).
  std::string flat = e.node("Flatten", {sum}, {attrI("axis", *ax)});
  std::string y = e.node("Softmax", {flat}, {attrI("axis", -1)});
  return e.finish({e.node("Reshape", {y, e.node("Shape", {sum})})});
}

/// x * 1/sqrt(mean(x^2 over the dims from `axis`) + eps) in f32, cast back
/// like `like`; `invStd` gets the f32 1/sqrt(...) (keepdims).
std::string rmsNormalize(Expansion &e, const std::string &x, int64_t axis,
                         int64_t rank, float eps, const std::string &like,
                         std::string &invStd) {
  std::string x32 = e.node("Cast", {x}, {attrI("to", 1)});
  SmallVector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i)
    axes.push_back(i);
  std::string ms = e.node("ReduceMean", {e.node("Mul", {x32, x32}), e.ints(axes)},
                          {attrI("keepdims", 1)});
  std::string var = e.node("Add", {ms, e.scalarLike(eps, ms)});
  invStd = e.node("Reciprocal", {e.node("Sqrt", {var})});
  return e.node("CastLike", {e.node("Mul", {x32, invStd}), like});
}

/// input + skip (+ bias) of the skip normalizations.
std::string skipSum(Expansion &e, NodeContext &c, size_t biasInput) {
  std::string sum = e.node("Add", {e.in(0), e.in(1)});
  if (c.hasInput(biasInput))
    sum = e.node("Add", {sum, e.in(biasInput)});
  return sum;
}

LogicalResult convertSkipLayerNorm(NodeContext &c) {
  auto eps = c.attrFloat("epsilon", 1e-12f);
  if (failed(eps))
    return failure();
  Expansion e(c);
  std::string sum = skipSum(e, c, 4);
  SmallVector<std::string> ins = {sum, e.in(2)};
  if (c.hasInput(3))
    ins.push_back(e.in(3));
  auto y = e.nodeN("LayerNormalization", ins, 3,
                   {attrI("axis", -1), attrF("epsilon", *eps)});
  return e.finish({y[0], y[1], y[2], sum});
}

LogicalResult convertSkipSimplifiedLayerNorm(NodeContext &c) {
  auto eps = c.attrFloat("epsilon", 1e-12f);
  auto rank = c.requireRank(0);
  if (failed(eps) || failed(rank))
    return failure();
  if (c.hasOutput(1))
    return c.error() << "output 1 ('mean') is not defined for an RMS "
                        "normalization";
  Expansion e(c);
  std::string sum = skipSum(e, c, 3), invStd;
  std::string n = rmsNormalize(e, sum, *rank - 1, *rank, *eps, sum, invStd);
  return e.finish({e.node("Mul", {n, e.in(2)}), "", invStd, sum});
}

/// Checks a `stash_type` attribute: Strata computes the statistics in f32.
LogicalResult checkStashType(NodeContext &c) {
  auto stash = c.attrInt("stash_type", 1);
  if (failed(stash))
    return failure();
  if (*stash != 1)
    return c.error() << "attribute 'stash_type' = " << *stash
                     << " is not supported (only 1, float)";
  return success();
}

LogicalResult convertSimplifiedLayerNorm(NodeContext &c) {
  auto axis = c.attrInt("axis", -1);
  auto eps = c.attrFloat("epsilon", 1e-5f);
  auto rank = c.requireRank(0);
  if (failed(axis) || failed(eps) || failed(rank) || failed(checkStashType(c)))
    return failure();
  auto ax = c.normalizeAxis("attribute 'axis' =", *axis, *rank);
  if (failed(ax))
    return failure();
  Expansion e(c);
  std::string invStd;
  std::string n = rmsNormalize(e, e.in(0), *ax, *rank, *eps, e.in(1), invStd);
  return e.finish({e.node("Mul", {n, e.in(1)}), invStd});
}

/// ONNX Runtime's LayerNormalization-1 of the default domain (before
/// ONNX's own at opset 17): the same op.
LogicalResult convertLayerNormV1(NodeContext &c) {
  if (failed(checkStashType(c)))
    return failure();
  Expansion e(c);
  SmallVector<onnx::AttributeProto> attrs;
  for (const char *a : {"axis", "epsilon"})
    e.copyAttr(a, attrs);
  SmallVector<std::string> ins = {e.in(0), e.in(1)};
  if (c.hasInput(2))
    ins.push_back(e.in(2));
  auto y = e.nodeN("LayerNormalization", ins, 3, attrs);
  return e.finish({y[0], y[1], y[2]});
}

const ConverterEntry kContribNorm[] = {
    {"Gelu", convertGelu},
    {"BiasGelu", convertBiasGelu},
    {"FastGelu", convertFastGelu},
    {"QuickGelu", convertQuickGelu},
    {"BiasAdd", convertBiasAdd},
    {"BiasSoftmax", convertBiasSoftmax},
    {"SkipLayerNormalization", convertSkipLayerNorm},
    {"SkipSimplifiedLayerNormalization", convertSkipSimplifiedLayerNorm},
    {"SimplifiedLayerNormalization", convertSimplifiedLayerNorm},
};

const ConverterEntry kOrtDefaultDomain[] = {
    {"SimplifiedLayerNormalization", convertSimplifiedLayerNorm},
    {"LayerNormalization", convertLayerNormV1},
};
} // namespace

ArrayRef<ConverterEntry> contribNormConverters() { return kContribNorm; }
ArrayRef<ConverterEntry> ortDefaultDomainConverters() {
  return kOrtDefaultDomain;
}

} // namespace strata::onnx_import
