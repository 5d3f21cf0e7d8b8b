//===- ConvertFlexAttention.cpp - ai.onnx.preview FlexAttention -----------===//
//
// FlexAttention (ai.onnx.preview, version 1; PyTorch's flex_attention) in
// Top ops, in the order the ONNX reference computes: Q and K each scaled by
// sqrt(scale) in their own type (K and V heads repeated for grouped-query
// attention), Q·K^T, cast to the softmax precision, the `score_mod`
// subgraph applied to the scores, Softmax over the key axis, the `prob_mod`
// subgraph applied to the probabilities, the product with V in the softmax
// precision, and a cast back to V's type. The modifier subgraphs are inlined
// with their one input bound to the tensor they modify.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include <cmath>

namespace strata::onnx_import {
namespace {

/// The steps of the computation that are more than one op.
class Builder : public ValueBuilder {
public:
  explicit Builder(NodeContext &c) : ValueBuilder(c), c(c) {}

  /// Repeats each of the H heads (dim 1) of a rank-4 `v` `r` times in a row,
  /// as np.repeat(v, r, axis=1) does.
  FailureOr<Value> repeatHeads(Value v, ArrayRef<int64_t> shape, int64_t r) {
    if (r == 1)
      return v;
    OpBuilder &b = c.builder();
    auto five = reshape(v, {shape[0], shape[1], 1, shape[2], shape[3]});
    if (failed(five))
      return failure();
    auto tiled = c.create<TileOp>(elem(v), *five,
                                  b.getDenseI64ArrayAttr({1, 1, r, 1, 1}));
    return reshape(tiled, {shape[0], shape[1] * r, shape[2], shape[3]});
  }
  FailureOr<Value> matmul(FailureOr<Value> a, FailureOr<Value> b,
                          bool transposeB) {
    if (failed(a) || failed(b))
      return failure();
    return c.create<MatMulOp>(elem(*a), *a, *b, c.none(), transposeB, false,
                              llvm::APFloat(-1.0));
  }
  /// Applies the graph attribute `name`, if present, to `v`; its one output
  /// is cast to `type`.
  FailureOr<Value> modify(StringRef name, FailureOr<Value> v, Type type) {
    if (failed(v) || !c.attr(name))
      return v;
    auto graph = c.attrGraph(name);
    if (failed(graph))
      return failure();
    if ((*graph)->input_size() != 1 || (*graph)->output_size() != 1)
      return c.error() << "attribute '" << name
                       << "' must be a graph of one input and one output, got "
                       << (*graph)->input_size() << " and "
                       << (*graph)->output_size();
    SmallVector<Value> outs;
    if (failed(c.inlineSubgraph(**graph, {*v}, outs)))
      return failure();
    auto before = cast<ShapedType>(v->getType()).getShape();
    auto after = dyn_cast<RankedTensorType>(outs[0].getType());
    if (!after || after.getShape() != before)
      return c.error() << "attribute '" << name
                       << "': the graph's output has type " << outs[0].getType()
                       << ", its input " << v->getType();
    return convert(outs[0], type);
  }

private:
  NodeContext &c;
};

/// The softmax precision: the attribute's type, else f32 for types narrower
/// than 32 bits and the input type otherwise.
FailureOr<Type> softmaxType(NodeContext &c, Type input) {
  auto precision = c.attrIntOpt("softmax_precision");
  if (failed(precision))
    return failure();
  if (!*precision)
    return input.getIntOrFloatBitWidth() < 32
               ? Type(c.builder().getF32Type())
               : input;
  Type t = elementTypeFromOnnx(static_cast<int32_t>(**precision), c.context());
  if (!t || !(t.isF32() || t.isF16() || t.isBF16() || t.isF64()))
    return c.error() << "attribute 'softmax_precision' = " << **precision
                     << " must be FLOAT, FLOAT16, BFLOAT16 or DOUBLE";
  return t;
}

LogicalResult convertFlexAttention(NodeContext &c) {
  auto q = c.requireShape(0);
  auto k = c.requireShape(1);
  auto v = c.requireShape(2);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  if (q->size() != 4 || k->size() != 4 || v->size() != 4)
    return c.error() << "Q, K and V must have rank 4, got shapes "
                     << formatArray(*q) << ", " << formatArray(*k) << ", "
                     << formatArray(*v);
  int64_t heads = (*q)[1], kvHeads = (*k)[1], headSize = (*q)[3];
  if ((*k)[0] != (*q)[0] || (*v)[0] != (*q)[0] || (*v)[1] != kvHeads ||
      (*v)[2] != (*k)[2] || (*k)[3] != headSize)
    return c.error() << "shapes Q " << formatArray(*q) << ", K "
                     << formatArray(*k) << ", V " << formatArray(*v)
                     << " do not fit (batch, heads, length, head size)";
  if (kvHeads < 1 || heads % kvHeads != 0)
    return c.error() << "the query heads (" << heads
                     << ") must be a multiple of the key/value heads ("
                     << kvHeads << ")";
  Type elem = c.inputElementType(0);
  if (!isa<FloatType>(elem) || c.inputElementType(1) != elem ||
      c.inputElementType(2) != elem)
    return c.error() << "Q, K and V must have one float element type, got "
                     << elem << ", " << c.inputElementType(1) << ", "
                     << c.inputElementType(2);
  auto scaleAttr = c.attrFloat("scale", 0.0f);
  auto compute = softmaxType(c, elem);
  if (failed(scaleAttr) || failed(compute))
    return failure();
  float scale = c.attr("scale") ? *scaleAttr
                                : static_cast<float>(1.0 / std::sqrt(double(headSize)));
  if (!(scale > 0.0f) || !std::isfinite(scale))
    return c.error() << "attribute 'scale' = " << scale
                     << " must be positive and finite";

  Builder b(c);
  auto dt = dtypeOf(elem);
  Tensor root(*dt, {});
  root.setFromDouble(0, std::sqrt(scale));
  Value sqrtScale = c.constant(root, "sqrt_scale");
  auto repeatedK = b.repeatHeads(c.input(1), *k, heads / kvHeads);
  auto repeatedV = b.repeatHeads(c.input(2), *v, heads / kvHeads);
  if (failed(repeatedK) || failed(repeatedV))
    return failure();
  auto qs = c.create<MulOp>(elem, c.input(0), sqrtScale);
  auto ks = c.create<MulOp>(elem, *repeatedK, sqrtScale);
  auto scores = b.convert(b.matmul(qs, ks, /*transposeB=*/true), *compute);
  scores = b.modify("score_mod", scores, *compute);
  if (failed(scores))
    return failure();
  auto probs = c.create<SoftmaxOp>(*compute, *scores,
                                   c.builder().getI64IntegerAttr(3));
  probs = b.modify("prob_mod", probs, *compute);
  return c.setResult(b.convert(
      b.matmul(probs, b.convert(*repeatedV, *compute), /*transposeB=*/false),
      elem));
}

} // namespace

llvm::ArrayRef<ConverterEntry> previewConverters() {
  static const ConverterEntry table[] = {
      {"FlexAttention", convertFlexAttention},
  };
  return table;
}

} // namespace strata::onnx_import
