//===- CompositeConverters.cpp - built-in composite converters ------------===//
//
// embedding_lookup -> top.Gather, layer_norm -> top.LayerNorm,
// rms_norm -> top.RMSNorm, gelu / gelu_tanh -> top.Gelu, silu -> top.SiLU,
// scaled_dot_product_attention -> top.Attention. The recurrent ones (LSTM,
// GRU) are in CompositeRecurrent.cpp.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/Transforms/CompositeRegistry.h"

using namespace mlir;

namespace strata::top {
namespace {
using Problem = std::optional<std::string>;

/// "input 1" / "result 0".
std::string where(bool result, unsigned i) {
  return (result ? "result " : "input ") + std::to_string(i);
}

/// Checks the number of arguments and results.
Problem checkArity(func::FuncOp fn, unsigned minIn, unsigned maxIn,
                   unsigned results) {
  unsigned in = fn.getNumArguments();
  if (in < minIn || in > maxIn) {
    std::string want = minIn == maxIn ? std::to_string(minIn)
                                      : std::to_string(minIn) + " to " +
                                            std::to_string(maxIn);
    return "takes " + std::to_string(in) + " inputs, expected " + want;
  }
  if (fn.getNumResults() != results)
    return "returns " + std::to_string(fn.getNumResults()) +
           " results, expected " + std::to_string(results);
  return std::nullopt;
}

/// Checks that input (or result) `i` is a ranked float tensor with static
/// shape.
Problem checkFloat(func::FuncOp fn, unsigned i, bool result = false) {
  Type t = result ? fn.getResultTypes()[i] : fn.getArgumentTypes()[i];
  auto ranked = rankedFloatTensor(t);
  if (!ranked)
    return where(result, i) + " must be a ranked float tensor";
  if (!ranked.hasStaticShape())
    return where(result, i) + " must have a static shape";
  return std::nullopt;
}

/// The attribute `name` as an integer, or `fallback`.
int64_t intAttr(DictionaryAttr attrs, StringRef name, int64_t fallback) {
  std::optional<double> v = numberAttr(attrs, name);
  return v ? static_cast<int64_t>(*v) : fallback;
}

/// Normalization axis from attrs (default -1), checked against `rank`.
FailureOr<int64_t> normAxis(DictionaryAttr attrs, int64_t rank) {
  int64_t axis = intAttr(attrs, "axis", -1);
  if (axis < -rank || axis >= rank)
    return failure();
  return axis < 0 ? axis + rank : axis;
}

/// Elements of `shape[from:]`.
int64_t trailingCount(ArrayRef<int64_t> shape, int64_t from) {
  int64_t n = 1;
  for (int64_t d : shape.drop_front(from))
    n *= d;
  return n;
}

/// The fused op's results (failure if it could not be built).
template <typename OpTy>
FailureOr<SmallVector<Value>> resultsOf(FailureOr<OpTy> op) {
  if (failed(op))
    return failure();
  return SmallVector<Value>((*op)->getResults());
}

/// The `epsilon` attribute (also spelled `eps`, as PyTorch does).
std::optional<double> epsilonAttr(DictionaryAttr attrs) {
  if (std::optional<double> eps = numberAttr(attrs, "epsilon"))
    return eps;
  return numberAttr(attrs, "eps");
}

/// Checks the `axis` and `epsilon` attributes of a normalization of input 0.
Problem checkNormAttrs(func::FuncOp fn, DictionaryAttr attrs) {
  auto x = cast<RankedTensorType>(fn.getArgumentTypes()[0]);
  if (failed(normAxis(attrs, x.getRank())))
    return "attribute 'axis' = " + std::to_string(intAttr(attrs, "axis", -1)) +
           " is out of range for input 0 of rank " +
           std::to_string(x.getRank());
  if (std::optional<double> eps = epsilonAttr(attrs); eps && *eps < 0)
    return std::string("attribute 'epsilon' must be >= 0");
  return std::nullopt;
}

/// `axis` and `epsilon` of a fused normalization op.
SmallVector<NamedAttribute> normAttrs(OpBuilder &b, DictionaryAttr attrs) {
  int64_t axis = intAttr(attrs, "axis", -1);
  double epsilon = epsilonAttr(attrs).value_or(1e-5);
  return {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
          b.getNamedAttr("epsilon", b.getF64FloatAttr(epsilon))};
}

//===----------------------------------------------------------------------===//
// embedding_lookup(table [V, D...], ids [int]) -> table[ids]
//===----------------------------------------------------------------------===//

struct EmbeddingLookup : CompositeConverter {
  Problem verify(func::FuncOp fn, DictionaryAttr) const override {
    if (Problem p = checkArity(fn, 2, 2, 1))
      return p;
    auto table = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[0]);
    if (!table || table.getRank() < 1 || !table.hasStaticShape())
      return std::string("input 0 (table) must be a tensor of static shape "
                         "and rank >= 1");
    auto ids = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[1]);
    if (!ids || !isa<IntegerType>(ids.getElementType()) ||
        !ids.hasStaticShape())
      return std::string("input 1 (ids) must be an integer tensor of static "
                         "shape");
    return std::nullopt;
  }
  FailureOr<SmallVector<Value>> build(OpBuilder &b, Location loc,
                                      ValueRange in,
                                      DictionaryAttr) const override {
    Type elem = cast<RankedTensorType>(in[0].getType()).getElementType();
    return resultsOf(createFused<GatherOp>(
        b, loc, 1, elem, in, {b.getNamedAttr("axis", b.getI64IntegerAttr(0))}));
  }
};

//===----------------------------------------------------------------------===//
// layer_norm(x, [scale], [bias]) {axis, epsilon}
//===----------------------------------------------------------------------===//

struct LayerNorm : CompositeConverter {
  ArrayRef<ConverterAttr> attributes() const override {
    static const ConverterAttr kAttrs[] = {{"axis", AttrKind::Number},
                                           {"epsilon", AttrKind::Number},
                                           {"eps", AttrKind::Number}};
    return kAttrs;
  }
  Problem verify(func::FuncOp fn, DictionaryAttr attrs) const override {
    if (Problem p = checkArity(fn, 1, 3, 1))
      return p;
    if (Problem p = checkFloat(fn, 0))
      return p;
    if (Problem p = checkNormAttrs(fn, attrs))
      return p;
    auto x = cast<RankedTensorType>(fn.getArgumentTypes()[0]);
    int64_t axis = *normAxis(attrs, x.getRank());
    int64_t count = trailingCount(x.getShape(), axis);
    for (unsigned i = 1; i < fn.getNumArguments(); ++i) {
      if (Problem p = checkFloat(fn, i))
        return p;
      auto t = cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      if (t.getNumElements() != count)
        return where(false, i) + (i == 1 ? " (scale)" : " (bias)") +
               " must have " + std::to_string(count) +
               " elements (the normalized shape), has " +
               std::to_string(t.getNumElements());
    }
    return std::nullopt;
  }
  FailureOr<SmallVector<Value>> build(OpBuilder &b, Location loc,
                                      ValueRange in,
                                      DictionaryAttr attrs) const override {
    Value none = in.size() < 3 ? createNone(b, loc) : Value();
    SmallVector<Value> operands = {in[0], in.size() > 1 ? in[1] : none,
                                   in.size() > 2 ? in[2] : none};
    Type elem = cast<RankedTensorType>(in[0].getType()).getElementType();
    return resultsOf(createFused<LayerNormOp>(b, loc, 1, elem, operands,
                                              normAttrs(b, attrs)));
  }
};

//===----------------------------------------------------------------------===//
// rms_norm(x, scale) {axis, epsilon}
//===----------------------------------------------------------------------===//

struct RMSNorm : CompositeConverter {
  ArrayRef<ConverterAttr> attributes() const override {
    static const ConverterAttr kAttrs[] = {{"axis", AttrKind::Number},
                                           {"epsilon", AttrKind::Number},
                                           {"eps", AttrKind::Number}};
    return kAttrs;
  }
  Problem verify(func::FuncOp fn, DictionaryAttr attrs) const override {
    if (Problem p = checkArity(fn, 2, 2, 1))
      return p;
    if (Problem p = checkFloat(fn, 0))
      return p;
    if (Problem p = checkFloat(fn, 1))
      return p;
    return checkNormAttrs(fn, attrs);
  }
  FailureOr<SmallVector<Value>> build(OpBuilder &b, Location loc,
                                      ValueRange in,
                                      DictionaryAttr attrs) const override {
    Type elem = cast<RankedTensorType>(in[0].getType()).getElementType();
    return resultsOf(
        createFused<RMSNormOp>(b, loc, 1, elem, in, normAttrs(b, attrs)));
  }
};

//===----------------------------------------------------------------------===//
// gelu(x) {approximate = "none" | "tanh"}, gelu_tanh(x); silu(x)
//===----------------------------------------------------------------------===//

/// A float elementwise activation `OpTy(x)`; `approximate` is passed for
/// Gelu (the attribute overrides the registered default).
template <typename OpTy>
struct Activation : CompositeConverter {
  explicit Activation(std::optional<std::string> approximate = std::nullopt)
      : defaultApproximate(std::move(approximate)) {}

  std::optional<std::string> approximate(DictionaryAttr attrs) const {
    if (!std::is_same_v<OpTy, GeluOp>)
      return std::nullopt;
    if (std::optional<std::string> a = stringAttr(attrs, "approximate"))
      return a;
    return defaultApproximate;
  }
  ArrayRef<ConverterAttr> attributes() const override {
    static const ConverterAttr kAttrs[] = {{"approximate", AttrKind::String}};
    return kAttrs;
  }
  Problem verify(func::FuncOp fn, DictionaryAttr attrs) const override {
    if (Problem p = checkArity(fn, 1, 1, 1))
      return p;
    if (Problem p = checkFloat(fn, 0))
      return p;
    if (std::optional<std::string> a = approximate(attrs);
        a && !symbolizeGeluApproximation(*a))
      return "attribute 'approximate' = \"" + *a +
             "\" must be \"none\" or \"tanh\"";
    return std::nullopt;
  }
  FailureOr<SmallVector<Value>> build(OpBuilder &b, Location loc,
                                      ValueRange in,
                                      DictionaryAttr attrs) const override {
    SmallVector<NamedAttribute> opAttrs;
    if (std::optional<std::string> a = approximate(attrs))
      opAttrs.push_back(b.getNamedAttr(
          "approximate", GeluApproximationAttr::get(
                             b.getContext(), *symbolizeGeluApproximation(*a))));
    Type elem = cast<RankedTensorType>(in[0].getType()).getElementType();
    return resultsOf(createFused<OpTy>(b, loc, 1, elem, in, opAttrs));
  }
  std::optional<std::string> defaultApproximate;
};

//===----------------------------------------------------------------------===//
// scaled_dot_product_attention(q, k, v, [mask])
//     {scale, is_causal, softcap, q_num_heads, kv_num_heads}
//===----------------------------------------------------------------------===//

struct ScaledDotProductAttention : CompositeConverter {
  ArrayRef<ConverterAttr> attributes() const override {
    static const ConverterAttr kAttrs[] = {
        {"scale", AttrKind::Number},       {"softcap", AttrKind::Number},
        {"is_causal", AttrKind::Number},   {"q_num_heads", AttrKind::Number},
        {"kv_num_heads", AttrKind::Number}};
    return kAttrs;
  }
  Problem verify(func::FuncOp fn, DictionaryAttr attrs) const override {
    if (Problem p = checkArity(fn, 3, 4, 1))
      return p;
    int64_t rank = -1;
    Type elem;
    for (unsigned i = 0; i < 3; ++i) {
      if (Problem p = checkFloat(fn, i))
        return p;
      auto t = cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      if (i == 0) {
        rank = t.getRank();
        elem = t.getElementType();
        if (rank != 3 && rank != 4)
          return std::string("input 0 (query) must have rank 3 or 4, has ") +
                 std::to_string(rank);
      } else if (t.getRank() != rank) {
        return where(false, i) + " must have the query's rank " +
               std::to_string(rank);
      } else if (t.getElementType() != elem) {
        return where(false, i) + " must have the query's element type";
      }
    }
    if (fn.getNumArguments() == 4) {
      auto mask = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[3]);
      if (!mask || !mask.hasStaticShape() ||
          !(mask.getElementType().isInteger(1) ||
            isa<FloatType>(mask.getElementType())))
        return std::string("input 3 (mask) must be a bool or float tensor of "
                           "static shape");
    }
    return std::nullopt;
  }
  FailureOr<SmallVector<Value>> build(OpBuilder &b, Location loc,
                                      ValueRange in,
                                      DictionaryAttr attrs) const override {
    Value none = createNone(b, loc);
    SmallVector<Value> operands = {in[0], in[1], in[2],
                                   in.size() > 3 ? in[3] : none,
                                   none, none, none};
    auto q = cast<RankedTensorType>(in[0].getType());
    SmallVector<NamedAttribute> opAttrs;
    bool rank3 = q.getRank() == 3;
    for (StringRef heads : {"q_num_heads", "kv_num_heads"})
      if (std::optional<double> h = numberAttr(attrs, heads))
        opAttrs.push_back(b.getNamedAttr(heads, b.getI64IntegerAttr(*h)));
      else if (rank3) // [B, S, D] with no head count: one head
        opAttrs.push_back(b.getNamedAttr(heads, b.getI64IntegerAttr(1)));
    if (std::optional<double> s = numberAttr(attrs, "scale"))
      opAttrs.push_back(b.getNamedAttr("scale", b.getF64FloatAttr(*s)));
    if (std::optional<double> s = numberAttr(attrs, "softcap"))
      opAttrs.push_back(b.getNamedAttr("softcap", b.getF64FloatAttr(*s)));
    if (std::optional<double> c = numberAttr(attrs, "is_causal"))
      opAttrs.push_back(b.getNamedAttr("is_causal", b.getBoolAttr(*c != 0)));
    // output, present_key, present_value, qk_matmul_output: the pass uses
    // the first.
    return resultsOf(createFused<AttentionOp>(b, loc, 4, q.getElementType(),
                                              operands, opAttrs));
  }
};
} // namespace

void registerBuiltinCompositeConverters(CompositeRegistry &registry) {
  registry.add("embedding_lookup", std::make_shared<EmbeddingLookup>());
  registry.add("layer_norm", std::make_shared<LayerNorm>());
  registry.add("rms_norm", std::make_shared<RMSNorm>());
  registry.add("gelu", std::make_shared<Activation<GeluOp>>());
  registry.add("gelu_tanh", std::make_shared<Activation<GeluOp>>("tanh"));
  registry.add("silu", std::make_shared<Activation<SiLUOp>>());
  registry.add("scaled_dot_product_attention",
               std::make_shared<ScaledDotProductAttention>());
}

} // namespace strata::top
