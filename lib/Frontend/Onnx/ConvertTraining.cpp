//===- ConvertTraining.cpp - ONNX Dropout and loss ops to Top -------------===//
//
// Ops that appear in training graphs, imported with their inference
// semantics: Dropout (identity), NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss.
//
// The losses are decomposed into existing Top ops rather than given their
// own: picking `input[n, target[n, d..], d..]` is an exact one-hot select
// (Compare with an iota, Where, a ReduceSum over the class dim adding only
// zeros to the picked value), the weights are a Gather, the reductions are
// Reduce/Div. Every piece already has shape inference, reference semantics
// and lowerings, and SoftmaxCrossEntropyLoss is just LogSoftmax in front, so
// a dedicated op would duplicate them without making anything exact that
// is not already. (Unlike GatherElements, which needs constant indices in
// Strata, this works for runtime targets.)
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

/// A rank-0 constant of element type `elem` holding `v`; an error if `elem`
/// has no host dtype.
FailureOr<Value> checkedScalar(NodeContext &c, Type elem, double v) {
  auto dt = dtypeOf(elem);
  if (!dt)
    return c.error() << "element type " << elem << " is not supported";
  Tensor t(*dt, {});
  t.setFromDouble(0, v);
  return c.constant(t, "scalar");
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

/// Inference Dropout is the identity and its mask all true. Training mode
/// (opset 12+: input 'training_mode' true) drops random elements, which
/// Strata cannot reproduce, except with ratio 0, where it is the identity
/// too. Opsets 7-11 have no training mode (the importer starts at opset 7).
LogicalResult convertDropout(NodeContext &c) {
  bool training = false;
  if (c.version() >= 12 && c.hasInput(2)) {
    const Tensor *t = c.constantInput(2);
    if (!t)
      return c.error() << "the 'training_mode' input must be a constant "
                          "(training mode makes the output random)";
    if (t->numElements() != 1)
      return c.error() << "'training_mode' must be a scalar, has "
                       << t->numElements() << " elements";
    training = t->getAsDouble(0) != 0;
  }
  if (training) {
    double ratio = 0.5;
    if (c.hasInput(1)) {
      const Tensor *r = c.constantInput(1);
      if (!r)
        return c.error() << "training mode with a non-constant 'ratio' "
                            "makes the output random; only inference "
                            "(or ratio 0) is supported";
      if (r->numElements() != 1)
        return c.error() << "'ratio' must be a scalar, has "
                         << r->numElements() << " elements";
      ratio = r->getAsDouble(0);
    }
    if (ratio != 0)
      return c.error() << "training mode with ratio " << ratio
                       << " drops random elements; only inference (or "
                          "ratio 0) is supported";
  }
  c.setOutput(0, c.input(0));
  if (c.numOutputs() > 1 && c.hasOutput(1)) {
    auto shape = c.requireShape(0);
    if (failed(shape))
      return failure();
    // Opsets before 10 return the mask in the input's type.
    Type maskType = c.version() >= 10 ? c.builder().getI1Type() : elemOf(c, 0);
    auto dt = dtypeOf(maskType);
    if (!dt)
      return c.error() << "element type " << maskType << " is not supported";
    Tensor ones(*dt, *shape);
    for (int64_t i = 0; i < ones.numElements(); ++i)
      ones.setFromDouble(i, 1);
    c.setOutput(1, c.constant(ones, "mask"));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
//===----------------------------------------------------------------------===//

/// The loss of `logProb` (`N x C x d1..dk`, ONNX input 0's shape) against
/// the node's target (input 1) and optional weight (input 2), reduced by
/// the node's 'reduction' attribute. Sets output 0.
LogicalResult negativeLogLikelihood(NodeContext &c, Value logProb) {
  auto reduction = c.attrString("reduction", "mean");
  auto ignore = c.attrIntOpt("ignore_index");
  auto shape = c.requireShape(0);
  auto tshape = c.requireShape(1);
  if (failed(reduction) || failed(ignore) || failed(shape) || failed(tshape))
    return failure();
  if (*reduction != "none" && *reduction != "sum" && *reduction != "mean")
    return c.error() << "attribute 'reduction' = '" << *reduction
                     << "' must be 'none', 'sum' or 'mean'";
  int64_t rank = shape->size();
  if (rank < 2)
    return c.error() << "input must have rank >= 2 (N, C, ...), got shape "
                     << formatArray(*shape);
  std::vector<int64_t> expected(*shape);
  expected.erase(expected.begin() + 1);
  if (*tshape != expected)
    return c.error() << "target shape " << formatArray(*tshape)
                     << " must be the input shape without dim 1, "
                     << formatArray(expected);
  Type tElem = elemOf(c, 1);
  auto tdt = tElem ? dtypeOf(tElem) : std::nullopt;
  if (!tdt || isFloat(*tdt) || *tdt == DType::Bool)
    return c.error() << "target must be an integer tensor, got " << tElem;
  int64_t classes = (*shape)[1];
  if (c.hasInput(2)) {
    auto wshape = c.requireShape(2);
    if (failed(wshape))
      return failure();
    if (*wshape != std::vector<int64_t>{classes})
      return c.error() << "weight must have shape [" << classes << "], got "
                       << formatArray(*wshape);
  }
  Type elem = elemOf(c, 0);
  OpBuilder &b = c.builder();
  auto i1 = b.getI1Type();

  // One-hot select of the target class along dim 1.
  std::vector<int64_t> iotaShape(rank, 1), targetShape(*shape);
  iotaShape[1] = classes;
  targetShape[1] = 1;
  Tensor iota(*tdt, iotaShape);
  for (int64_t k = 0; k < classes; ++k)
    iota.setFromDouble(k, static_cast<double>(k));
  auto target = c.create<ReshapeOp>(tElem, c.input(1),
                                    b.getDenseI64ArrayAttr(targetShape));
  if (failed(target))
    return failure();
  auto onehot = c.create<CompareOp>(i1, *target, c.constant(iota, "classes"),
                                    CompareModeAttr::get(b.getContext(), CompareMode::Equal));
  auto zero = checkedScalar(c, elem, 0.0), one = checkedScalar(c, elem, 1.0);
  if (failed(onehot) || failed(zero) || failed(one))
    return failure();
  auto picked = c.create<WhereOp>(elem, *onehot, logProb, *zero);
  if (failed(picked))
    return failure();
  auto sel = c.create<ReduceOp>(elem, *picked, b.getDenseI64ArrayAttr({1}),
                                b.getBoolAttr(false),
                                ReduceModeAttr::get(b.getContext(), ReduceMode::Sum));
  if (failed(sel))
    return failure();
  auto loss = c.create<NegOp>(elem, *sel);
  if (failed(loss))
    return failure();

  // Per-element weights: weight[target], 0 where target == ignore_index.
  Value weights;
  FailureOr<Value> ignored = failure();
  if (*ignore) {
    Tensor ii(*tdt, {});
    ii.setFromDouble(0, static_cast<double>(**ignore));
    ignored = c.create<CompareOp>(i1, c.input(1), c.constant(ii, "ignore_index"),
                                  CompareModeAttr::get(b.getContext(), CompareMode::Equal));
    if (failed(ignored))
      return failure();
  }
  if (c.hasInput(2)) {
    Value idx = c.input(1);
    if (*ignore) {
      // An ignored target may be out of range: read class 0 there instead.
      Tensor z(*tdt, {});
      auto safe = c.create<WhereOp>(tElem, *ignored, c.constant(z, "zero"),
                                    c.input(1));
      if (failed(safe))
        return failure();
      idx = *safe;
    }
    auto w = c.create<GatherOp>(elem, c.input(2), idx, b.getI64IntegerAttr(0));
    if (failed(w))
      return failure();
    weights = *w;
    if (*ignore) {
      auto masked = c.create<WhereOp>(elem, *ignored, *zero, weights);
      if (failed(masked))
        return failure();
      weights = *masked;
    }
  } else if (*ignore) {
    auto w = c.create<WhereOp>(elem, *ignored, *zero, *one);
    if (failed(w))
      return failure();
    weights = *w;
  }
  Value out = *loss;
  if (weights) {
    auto m = c.create<MulOp>(elem, out, weights);
    if (failed(m))
      return failure();
    out = *m;
  }

  auto reduceAll = [&](Value v, ReduceMode mode) {
    return c.create<ReduceOp>(elem, v, b.getDenseI64ArrayAttr({}),
                              b.getBoolAttr(false),
                              ReduceModeAttr::get(b.getContext(), mode));
  };
  if (*reduction == "sum" || (*reduction == "mean" && weights)) {
    auto sum = reduceAll(out, ReduceMode::Sum);
    if (failed(sum))
      return failure();
    out = *sum;
    if (*reduction == "mean") {
      // Weighted mean: divided by the total weight of the counted elements.
      auto total = reduceAll(weights, ReduceMode::Sum);
      if (failed(total))
        return failure();
      auto mean = c.create<DivOp>(elem, out, *total);
      if (failed(mean))
        return failure();
      out = *mean;
    }
  } else if (*reduction == "mean") {
    auto mean = reduceAll(out, ReduceMode::Mean);
    if (failed(mean))
      return failure();
    out = *mean;
  }
  c.setOutput(0, out);
  return success();
}

LogicalResult convertNLLLoss(NodeContext &c) {
  return negativeLogLikelihood(c, c.input(0));
}

/// log_prob = LogSoftmax(scores, axis 1), then the negative log likelihood.
LogicalResult convertSoftmaxCrossEntropy(NodeContext &c) {
  auto rank = c.requireRank(0);
  if (failed(rank))
    return failure();
  if (*rank < 2)
    return c.error() << "scores must have rank >= 2 (N, C, ...), got rank "
                     << *rank;
  Type elem = elemOf(c, 0);
  auto logProb = c.create<LogSoftmaxOp>(elem, c.input(0),
                                        c.builder().getI64IntegerAttr(1));
  if (failed(logProb) || failed(negativeLogLikelihood(c, *logProb)))
    return failure();
  if (c.numOutputs() > 1 && c.hasOutput(1))
    c.setOutput(1, *logProb);
  return success();
}

const ConverterEntry kTraining[] = {
    {"Dropout", convertDropout},
    {"NegativeLogLikelihoodLoss", convertNLLLoss},
    {"SoftmaxCrossEntropyLoss", convertSoftmaxCrossEntropy},
};
} // namespace

ArrayRef<ConverterEntry> trainingConverters() { return kTraining; }

} // namespace strata::onnx_import
