//===- ConvertNNNorm.cpp - ONNX normalizations to Top ---------------------===//
//
// Part of the NN family (TopNNOps.td): BatchNormalization (inference:
// top.BatchNorm; training mode: batch statistics and running averages from
// Reduce and elementwise ops), LayerNormalization (with its optional Mean
// and InvStdDev outputs), GroupNormalization, InstanceNormalization (a
// GroupNorm of one group per channel), MeanVarianceNormalization and
// LpNormalization (decomposed as their ONNX function bodies are).
//
//===----------------------------------------------------------------------===//

#include "ValueChain.h"

namespace strata::onnx_import {
namespace {

/// Errors if any output past the first is requested.
LogicalResult onlyFirstOutput(NodeContext &c, StringRef what) {
  for (size_t i = 1; i < c.numOutputs(); ++i)
    if (c.hasOutput(i))
      return c.error() << "output " << i << " ('" << c.node().output(i)
                       << "') is not supported: " << what;
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNormalization
//===----------------------------------------------------------------------===//

/// BatchNormalization with training_mode = 1: normalizes with the batch
/// statistics (mean and population variance over all dims but 1) and also
/// returns running_mean = mean * momentum + batch_mean * (1 - momentum) and
/// running_var likewise.
LogicalResult convertBatchNormTraining(NodeContext &c, float epsilon) {
  // Null-chained building blocks (ValueChain.h), not this file's
  // FailureOr-chained ones.
  using chain::binary, chain::elemType, chain::make, chain::requireInputs,
      chain::scalarLike;
  auto momentum = c.attrFloat("momentum", 0.9f);
  auto rank = c.requireRank(0);
  if (failed(momentum) || failed(rank) || failed(requireInputs(c, 5)))
    return failure();
  if (*rank < 2)
    return c.error() << "input 0 must have rank >= 2, got " << *rank;
  Value x = c.input(0);
  Type t = elemType(x);
  SmallVector<int64_t> axes{0};
  for (int64_t d = 2; d < *rank; ++d)
    axes.push_back(d);
  OpBuilder &b = c.builder();
  auto reduceMean = [&](Value v, bool keep) {
    return make<ReduceOp>(c, t, v, b.getDenseI64ArrayAttr(axes),
                          b.getBoolAttr(keep), ReduceModeAttr::get(b.getContext(), ReduceMode::Mean));
  };
  Value mean = reduceMean(x, false);
  Value centered = binary<SubOp>(c, x, reduceMean(x, true));
  Value var = reduceMean(binary<MulOp>(c, centered, centered), false);
  Value y = make<BatchNormOp>(c, t, x, mean, var, c.input(1), c.input(2),
                              b.getF64FloatAttr(epsilon),
                              LayoutAttr()); // layout: the default, NCHW
  if (!y)
    return failure();
  c.setOutput(0, y);
  Value keep = scalarLike(c, x, *momentum, "momentum");
  Value take = scalarLike(c, x, 1.0 - static_cast<double>(*momentum),
                          "one_minus_momentum");
  auto blend = [&](Value running, Value batch) {
    return binary<AddOp>(c, binary<MulOp>(c, running, keep),
                         binary<MulOp>(c, batch, take));
  };
  if (c.numOutputs() > 1 && c.hasOutput(1)) {
    Value v = blend(c.input(3), mean);
    if (!v)
      return failure();
    c.setOutput(1, v);
  }
  if (c.numOutputs() > 2 && c.hasOutput(2)) {
    Value v = blend(c.input(4), var);
    if (!v)
      return failure();
    c.setOutput(2, v);
  }
  if (c.numOutputs() > 3)
    return c.error() << "saved mean/variance outputs (opset < 14) are not "
                        "supported";
  return success();
}

LogicalResult convertBatchNorm(NodeContext &c) {
  auto eps = c.attrFloat("epsilon", 1e-5f);
  auto training = c.attrInt("training_mode", 0);
  auto spatial = c.attrInt("spatial", 1);
  if (failed(eps) || failed(training) || failed(spatial))
    return failure();
  if (*training != 0)
    return convertBatchNormTraining(c, *eps);
  if (c.version() < 9 && *spatial != 1)
    return c.error() << "attribute 'spatial' = " << *spatial
                     << " is not supported (only 1)";
  if (failed(onlyFirstOutput(c, "running/saved statistics are only produced "
                                "in training mode")))
    return failure();
  OpBuilder &b = c.builder();
  return emit<BatchNormOp>(c, elemOf(c, 0), c.input(0), c.input(3), c.input(4),
                           c.input(1), c.input(2), b.getF64FloatAttr(*eps),
                           LayoutAttr()); // layout: the default, NCHW
}

//===----------------------------------------------------------------------===//
// Layer, group, instance, mean-variance and Lp normalization
//===----------------------------------------------------------------------===//

/// `v` (scale or bias) brought to `shape` if it has fewer elements.
FailureOr<Value> expandTo(NodeContext &c, size_t i, ArrayRef<int64_t> shape) {
  if (!c.hasInput(i))
    return c.none();
  auto s = c.requireShape(i);
  if (failed(s))
    return failure();
  if (product(*s) == product(shape))
    return c.input(i);
  return c.create<ExpandOp>(elemOf(c, i), c.input(i),
                            c.builder().getDenseI64ArrayAttr(shape));
}

FailureOr<Value> reduce(NodeContext &c, FailureOr<Value> x,
                        ArrayRef<int64_t> axes, ReduceMode mode) {
  if (failed(x))
    return failure();
  OpBuilder &b = c.builder();
  return c.create<ReduceOp>(cast<ShapedType>(x->getType()).getElementType(), *x,
                            b.getDenseI64ArrayAttr(axes), b.getBoolAttr(true),
                            ReduceModeAttr::get(b.getContext(), mode));
}

/// LayerNormalization's optional Mean and InvStdDev outputs (outputs 1, 2),
/// as the ONNX function body computes them: mean and 1 / sqrt(var + eps)
/// over dims axis..rank-1, kept as size 1.
LogicalResult layerNormStats(NodeContext &c, int64_t axis, int64_t rank,
                             float eps) {
  if (!c.hasOutput(1) && !c.hasOutput(2))
    return success();
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i)
    axes.push_back(i);
  Value x = c.input(0);
  Type elem = elemOf(c, 0);
  auto mean = reduce(c, x, axes, ReduceMode::Mean);
  auto d = binary<SubOp>(c, x, mean);
  auto var = reduce(c, binary<MulOp>(c, d, d), axes, ReduceMode::Mean);
  auto shifted = binary<AddOp>(c, var, scalar(c, elem, eps));
  if (failed(shifted))
    return failure();
  auto inv = c.create<RsqrtOp>(elem, *shifted);
  if (failed(inv))
    return failure();
  c.setOutput(1, *mean);
  c.setOutput(2, *inv);
  return success();
}

LogicalResult convertLayerNorm(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto axisAttr = c.attrInt("axis", -1);
  auto eps = c.attrFloat("epsilon", 1e-5f);
  if (failed(shape) || failed(axisAttr) || failed(eps))
    return failure();
  int64_t rank = shape->size();
  auto axis = c.normalizeAxis("attribute 'axis' =", *axisAttr, rank);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = ArrayRef<int64_t>(*shape).drop_front(*axis);
  auto scale = expandTo(c, 1, normalized);
  auto bias = expandTo(c, 2, normalized);
  if (failed(scale) || failed(bias))
    return failure();
  OpBuilder &b = c.builder();
  if (failed(emit<LayerNormOp>(c, elemOf(c, 0), c.input(0), *scale, *bias,
                               b.getI64IntegerAttr(*axis),
                               b.getF64FloatAttr(*eps))))
    return failure();
  return layerNormStats(c, *axis, rank, *eps);
}

/// Opset 18 GroupNormalization: one scale/bias per group, repeated for each
/// channel of the group.
FailureOr<Value> perGroupToPerChannel(NodeContext &c, size_t i, int64_t groups,
                                      int64_t channels) {
  auto s = c.requireShape(i);
  if (failed(s))
    return failure();
  if (product(*s) != groups)
    return c.error() << "input " << i << " must have num_groups = " << groups
                     << " elements (opset 18 semantics), got shape "
                     << formatArray(*s);
  auto col = reshape(c, c.input(i), {groups, 1});
  if (failed(col))
    return failure();
  auto wide = c.create<ExpandOp>(elemOf(c, i), *col,
                                 c.builder().getDenseI64ArrayAttr(
                                     {groups, channels / groups}));
  if (failed(wide))
    return failure();
  return reshape(c, *wide, {channels});
}

LogicalResult convertGroupNorm(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto groups = c.attrIntOpt("num_groups");
  auto eps = c.attrFloat("epsilon", 1e-5f);
  if (failed(shape) || failed(groups) || failed(eps))
    return failure();
  if (!*groups)
    return c.error() << "attribute 'num_groups' is required";
  int64_t g = **groups;
  if (shape->size() < 2)
    return c.error() << "input shape " << formatArray(*shape)
                     << " must have rank >= 2";
  int64_t ch = (*shape)[1];
  if (g < 1 || ch % g != 0)
    return c.error() << "attribute 'num_groups' = " << g
                     << " must be >= 1 and divide the " << ch << " channels";
  Value scale = c.input(1), bias = c.input(2);
  if (c.version() < 21) {
    auto s = perGroupToPerChannel(c, 1, g, ch);
    auto b = perGroupToPerChannel(c, 2, g, ch);
    if (failed(s) || failed(b))
      return failure();
    scale = *s;
    bias = *b;
  }
  OpBuilder &b = c.builder();
  return emit<GroupNormOp>(c, elemOf(c, 0), c.input(0), scale, bias,
                           b.getI64IntegerAttr(g), b.getF64FloatAttr(*eps));
}

/// InstanceNormalization = GroupNorm with one group per channel.
LogicalResult convertInstanceNorm(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto eps = c.attrFloat("epsilon", 1e-5f);
  if (failed(shape) || failed(eps))
    return failure();
  if (shape->size() < 3)
    return c.error() << "input shape " << formatArray(*shape)
                     << " must have rank >= 3";
  OpBuilder &b = c.builder();
  return emit<GroupNormOp>(c, elemOf(c, 0), c.input(0), c.input(1), c.input(2),
                           b.getI64IntegerAttr((*shape)[1]),
                           b.getF64FloatAttr(*eps));
}

/// The ONNX function body: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9).
LogicalResult convertMVN(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto axesAttr = c.attrInts("axes");
  if (failed(rank) || failed(axesAttr))
    return failure();
  std::vector<int64_t> axes = axesAttr->value_or(std::vector<int64_t>{0, 2, 3});
  for (int64_t &a : axes) {
    auto n = c.normalizeAxis("attribute 'axes' value", a, *rank);
    if (failed(n))
      return failure();
    a = *n;
  }
  Value x = c.input(0);
  Type elem = elemOf(c, 0);
  auto mean = reduce(c, x, axes, ReduceMode::Mean);
  auto meanSq = binary<MulOp>(c, mean, mean);
  auto sqMean = reduce(c, binary<MulOp>(c, x, x), axes, ReduceMode::Mean);
  auto var = binary<SubOp>(c, sqMean, meanSq);
  if (failed(var))
    return failure();
  auto stdDev = c.create<SqrtOp>(elem, *var);
  auto denom = binary<AddOp>(c, stdDev, scalar(c, elem, 1e-9));
  auto y = binary<DivOp>(c, binary<SubOp>(c, x, mean), denom);
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
}

LogicalResult convertLpNorm(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto axisAttr = c.attrInt("axis", -1);
  auto p = c.attrInt("p", 2);
  if (failed(rank) || failed(axisAttr) || failed(p))
    return failure();
  auto axis = c.normalizeAxis("attribute 'axis' =", *axisAttr, *rank);
  if (failed(axis))
    return failure();
  Value x = c.input(0);
  Type elem = elemOf(c, 0);
  FailureOr<Value> norm;
  if (*p == 1) {
    auto abs = c.create<AbsOp>(elem, x);
    if (failed(abs))
      return failure();
    norm = reduce(c, *abs, {*axis}, ReduceMode::Sum);
  } else if (*p == 2) {
    auto sum = reduce(c, binary<MulOp>(c, x, x), {*axis}, ReduceMode::Sum);
    if (failed(sum))
      return failure();
    norm = c.create<SqrtOp>(elem, *sum);
  } else {
    return c.error() << "attribute 'p' = " << *p << " is invalid (1 or 2)";
  }
  if (failed(norm))
    return failure();
  // A zero norm means the whole slice is zero; ONNX (reference and Runtime)
  // then gives 0, not 0/0 = NaN: divide by 1 there instead.
  auto dt = dtypeOf(elem);
  if (!dt)
    return c.error() << "input 'input' has unsupported element type " << elem;
  auto scalar = [&](double v, StringRef name) {
    Tensor t(*dt, {});
    t.setFromDouble(0, v);
    return c.constant(t, name);
  };
  OpBuilder &b = c.builder();
  auto isZero = c.create<CompareOp>(b.getI1Type(), *norm, scalar(0.0, "zero"),
                                    CompareModeAttr::get(b.getContext(), CompareMode::Equal));
  if (failed(isZero))
    return failure();
  auto divisor = c.create<WhereOp>(elem, *isZero, scalar(1.0, "one"), *norm);
  if (failed(divisor))
    return failure();
  auto y = binary<DivOp>(c, x, *divisor);
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
}

const ConverterEntry kNNNorm[] = {
    {"BatchNormalization", convertBatchNorm},
    {"LayerNormalization", convertLayerNorm},
    {"GroupNormalization", convertGroupNorm},
    {"InstanceNormalization", convertInstanceNorm},
    {"MeanVarianceNormalization", convertMVN},
    {"LpNormalization", convertLpNorm},
};
} // namespace

ArrayRef<ConverterEntry> nnNormConverters() { return kNNNorm; }

} // namespace strata::onnx_import
