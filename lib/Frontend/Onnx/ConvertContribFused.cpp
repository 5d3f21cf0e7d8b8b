//===- ConvertContribFused.cpp - com.microsoft FusedConv/Gemm/MatMul ------===//
//
// ONNX Runtime's fused contrib ops (domain com.microsoft) as the standard
// ops they fuse, through an Expansion (ContribExpansion.h):
//   FusedConv(X, W, B, Z)  = act(Conv(X, W, B) + Z)
//   FusedGemm(A, B, C)     = act(Gemm(A, B, C))
//   FusedMatMul(A, B)      = alpha * MatMul(opA(A), opB(B))
// The activation is a string attribute naming a standard ONNX activation;
// FusedConv passes its parameters in `activation_params`, FusedGemm in
// `activation_alpha`, `activation_beta`, `activation_gamma`.
//
//===----------------------------------------------------------------------===//

#include "ContribExpansion.h"

namespace strata::onnx_import {
namespace {

/// The activations ONNX Runtime fuses, with the names of their float
/// attributes in the order FusedConv's `activation_params` lists them.
struct FusedActivation {
  const char *name;
  std::initializer_list<const char *> params;
};
const FusedActivation kActivations[] = {
    {"Relu", {}},
    {"Tanh", {}},
    {"Sigmoid", {}},
    {"LeakyRelu", {"alpha"}},
    {"HardSigmoid", {"alpha", "beta"}},
    {"Clip", {"min", "max"}},
    {"Elu", {"alpha"}},
    {"Selu", {"alpha", "gamma"}},
    {"ThresholdedRelu", {"alpha"}},
    {"Softplus", {}},
    {"Softsign", {}},
};

const FusedActivation *findActivation(StringRef name) {
  for (const FusedActivation &a : kActivations)
    if (name == a.name)
      return &a;
  return nullptr;
}

/// `act(x)` with the activation's parameters `params` (by name; a missing
/// one takes the ONNX op's default). Clip's bounds become inputs.
FailureOr<std::string>
applyActivation(NodeContext &c, Expansion &e, const std::string &x,
                StringRef name,
                ArrayRef<std::pair<std::string, float>> params) {
  if (name == "Clip") {
    std::string lo, hi;
    for (auto &[k, v] : params)
      (k == "min" ? lo : hi) = e.scalarLike(v, x);
    return e.node("Clip", {x, lo, hi});
  }
  SmallVector<onnx::AttributeProto> attrs;
  for (auto &[k, v] : params)
    attrs.push_back(attrF(k, v));
  return e.node(name, {x}, attrs);
}

/// The activation of FusedConv: `activation` with the values of
/// `activation_params` in the order of kActivations (all or none).
FailureOr<std::string> convActivation(NodeContext &c, Expansion &e,
                                      const std::string &x) {
  auto name = c.attrString("activation", "");
  auto params = c.attrFloats("activation_params");
  if (failed(name) || failed(params))
    return failure();
  if (name->empty()) {
    if (*params && !(*params)->empty())
      return c.error() << "attribute 'activation_params' is set but "
                          "'activation' is not";
    return x;
  }
  const FusedActivation *act = findActivation(*name);
  if (!act)
    return c.error() << "attribute 'activation' = '" << *name
                     << "' is not supported (Relu, Tanh, Sigmoid, LeakyRelu, "
                        "HardSigmoid, Clip, Elu, Selu, ThresholdedRelu, "
                        "Softplus, Softsign)";
  SmallVector<std::pair<std::string, float>> named;
  size_t n = *params ? (*params)->size() : 0;
  if (n != 0 && n != act->params.size())
    return c.error() << "attribute 'activation_params' has " << n
                     << " values; activation '" << *name << "' takes "
                     << act->params.size();
  if (n == 0 && StringRef(*name) == "Clip")
    return c.error() << "attribute 'activation_params' must give Clip's "
                        "min and max";
  size_t i = 0;
  for (const char *p : act->params)
    if (n)
      named.push_back({p, (**params)[i++]});
  return applyActivation(c, e, x, *name, named);
}

LogicalResult convertFusedConv(NodeContext &c) {
  Expansion e(c);
  SmallVector<onnx::AttributeProto> attrs;
  for (const char *a :
       {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"})
    e.copyAttr(a, attrs);
  std::string y = e.node("Conv", {e.in(0), e.in(1), e.in(2)}, attrs);
  if (c.hasInput(3))
    y = e.node("Add", {y, e.in(3)});
  auto out = convActivation(c, e, y);
  if (failed(out))
    return failure();
  return e.finish({*out});
}

LogicalResult convertFusedGemm(NodeContext &c) {
  auto name = c.attrString("activation", "");
  if (failed(name))
    return failure();
  Expansion e(c);
  SmallVector<onnx::AttributeProto> attrs;
  for (const char *a : {"alpha", "beta", "transA", "transB"})
    e.copyAttr(a, attrs);
  std::string y = e.node("Gemm", {e.in(0), e.in(1), e.in(2)}, attrs);
  if (name->empty())
    return e.finish({y});
  const FusedActivation *act = findActivation(*name);
  if (!act || StringRef(*name) == "Clip")
    return c.error() << "attribute 'activation' = '" << *name
                     << "' is not supported (Relu, Tanh, Sigmoid, LeakyRelu, "
                        "HardSigmoid, Elu, Selu, ThresholdedRelu, Softplus, "
                        "Softsign)";
  // activation_alpha/beta/gamma carry the activation's attributes: alpha,
  // beta and gamma by name.
  SmallVector<std::pair<std::string, float>> named;
  for (StringRef p : {"alpha", "beta", "gamma"}) {
    std::string slot = "activation_" + p.str();
    if (!c.attr(slot))
      continue;
    if (!llvm::is_contained(act->params, p))
      return c.error() << "attribute '" << slot << "' has no meaning for "
                       << "activation '" << *name << "'";
    auto v = c.attrFloat(slot, 0.0f);
    if (failed(v))
      return failure();
    named.push_back({p.str(), *v});
  }
  auto out = applyActivation(c, e, y, *name, named);
  if (failed(out))
    return failure();
  return e.finish({*out});
}

/// The permutation FusedMatMul applies to an operand of rank `rank`:
/// `transBatch` moves dim 0 behind the batch dims (to rank - 2), `trans`
/// then swaps the last two.
SmallVector<int64_t> matmulPerm(int64_t rank, bool trans, bool transBatch) {
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  if (transBatch && rank > 2) {
    perm.erase(perm.begin());
    perm.insert(perm.begin() + rank - 2, 0);
  }
  if (trans && rank >= 2)
    std::swap(perm[rank - 2], perm[rank - 1]);
  return perm;
}

LogicalResult convertFusedMatMul(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 1.0f);
  auto transA = c.attrInt("transA", 0), transB = c.attrInt("transB", 0);
  auto batchA = c.attrInt("transBatchA", 0),
       batchB = c.attrInt("transBatchB", 0);
  auto rankA = c.requireRank(0), rankB = c.requireRank(1);
  if (failed(alpha) || failed(transA) || failed(transB) || failed(batchA) ||
      failed(batchB) || failed(rankA) || failed(rankB))
    return failure();
  for (auto [name, v] : {std::pair{"transA", *transA}, {"transB", *transB},
                         {"transBatchA", *batchA}, {"transBatchB", *batchB}})
    if (v != 0 && v != 1)
      return c.error() << "attribute '" << name << "' = " << v
                       << " must be 0 or 1";
  Expansion e(c);
  auto operand = [&](size_t i, int64_t rank, bool trans,
                     bool transBatch) -> FailureOr<std::string> {
    if (!trans && !transBatch)
      return e.in(i);
    if (rank < 2)
      return c.error() << "input " << i << " of rank " << rank
                       << " cannot be transposed (attribute '"
                       << (trans ? "trans" : "transBatch") << (i ? "B" : "A")
                       << "' = 1)";
    return e.node("Transpose", {e.in(i)},
                  {attrIs("perm", matmulPerm(rank, trans, transBatch))});
  };
  auto a = operand(0, *rankA, *transA, *batchA);
  auto b = operand(1, *rankB, *transB, *batchB);
  if (failed(a) || failed(b))
    return failure();
  std::string y = e.node("MatMul", {*a, *b});
  if (*alpha != 1.0f)
    y = e.node("Mul", {y, e.scalarLike(*alpha, y)});
  return e.finish({y});
}

const ConverterEntry kContribFused[] = {
    {"FusedConv", convertFusedConv},
    {"FusedGemm", convertFusedGemm},
    {"FusedMatMul", convertFusedMatMul},
};
} // namespace

ArrayRef<ConverterEntry> contribFusedConverters() { return kContribFused; }

} // namespace strata::onnx_import
