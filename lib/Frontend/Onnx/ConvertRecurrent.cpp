//===- ConvertRecurrent.cpp - ONNX LSTM, GRU, RNN to Top ------------------===//
//
// The Recurrent family (TopRecurrentOps.td). One ONNX recurrent node
// becomes one top.LSTM / top.GRU / top.RNN with the same operands. The
// converter resolves what ONNX leaves implicit: the default activations of
// every direction, activation names in any case, and activation_alpha /
// activation_beta, which ONNX consumes only by the functions that take them
// and Top aligns with the activations (defaults filled in).
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include "llvm/ADT/StringExtras.h"

namespace strata::onnx_import {
namespace {

/// ONNX's activation names in their canonical spelling, whether each takes
/// alpha / beta, and the defaults ONNX gives them.
struct OnnxActivation {
  const char *name;
  bool takesAlpha, takesBeta;
  double alpha, beta;
};

const OnnxActivation kOnnxActivations[] = {
    {"Relu", false, false, 0, 0},
    {"Tanh", false, false, 0, 0},
    {"Sigmoid", false, false, 0, 0},
    {"Affine", true, true, 1.0, 0.0},
    {"LeakyRelu", true, false, 0.01, 0},
    {"ThresholdedRelu", true, false, 1.0, 0},
    {"ScaledTanh", true, true, 1.0, 1.0},
    {"HardSigmoid", true, true, 0.2, 0.5},
    {"Elu", true, false, 1.0, 0},
    {"Softsign", false, false, 0, 0},
    {"Softplus", false, false, 0, 0},
};

/// The recurrent node kinds: gate count and default activations.
struct RecurrentKind {
  int64_t gates;
  std::vector<const char *> defaultActivations;
};

/// The Top attributes of a recurrent node, read and normalized.
struct RecurrentAttrs {
  IntegerAttr hiddenSize;
  RnnDirectionAttr direction;
  ArrayAttr activations;
  DenseF64ArrayAttr alpha, beta;
  FloatAttr clip;
  IntegerAttr layout;
};

FailureOr<RecurrentAttrs> readAttrs(NodeContext &c, const RecurrentKind &kind) {
  OpBuilder &b = c.builder();
  RecurrentAttrs attrs;
  auto direction = c.attrString("direction", "forward");
  auto layout = c.attrInt("layout", 0);
  auto hidden = c.attrIntOpt("hidden_size");
  if (failed(direction) || failed(layout) || failed(hidden))
    return failure();
  int64_t dirs;
  if (*direction == "forward" || *direction == "reverse")
    dirs = 1;
  else if (*direction == "bidirectional")
    dirs = 2;
  else
    return c.error() << "attribute 'direction' = \"" << *direction
                     << "\" must be forward, reverse or bidirectional";
  attrs.direction = RnnDirectionAttr::get(
      b.getContext(), *symbolizeRnnDirection(*direction));
  attrs.layout = b.getI64IntegerAttr(*layout);

  // hidden_size defaults to R's last dim.
  int64_t hiddenSize;
  if (*hidden) {
    hiddenSize = **hidden;
  } else {
    auto r = c.requireShape(2);
    if (failed(r))
      return failure();
    if (r->size() != 3)
      return c.error() << "input 2 (R) must have rank 3, got "
                       << formatArray(*r);
    hiddenSize = (*r)[2];
  }
  attrs.hiddenSize = b.getI64IntegerAttr(hiddenSize);

  // Activations: the defaults of every direction, or the listed ones in
  // canonical spelling.
  std::vector<const OnnxActivation *> acts;
  size_t expected = kind.defaultActivations.size() * dirs;
  if (const onnx::AttributeProto *a = c.attr("activations")) {
    if (a->type() != onnx::AttributeProto::STRINGS)
      return c.error() << "attribute 'activations' must be a list of strings";
    for (const std::string &name : a->strings()) {
      const OnnxActivation *found = nullptr;
      for (const OnnxActivation &known : kOnnxActivations)
        if (llvm::StringRef(name).equals_insensitive(known.name))
          found = &known;
      if (!found)
        return c.error() << "attribute 'activations' has unknown activation '"
                         << name << "'";
      acts.push_back(found);
    }
    if (acts.size() != expected)
      return c.error() << "attribute 'activations' has " << acts.size()
                       << " entries, expected " << expected
                       << " for direction '" << *direction << "'";
  } else {
    for (int64_t d = 0; d < dirs; ++d)
      for (const char *name : kind.defaultActivations)
        for (const OnnxActivation &known : kOnnxActivations)
          if (llvm::StringRef(name) == known.name)
            acts.push_back(&known);
  }
  SmallVector<Attribute> names;
  for (const OnnxActivation *a : acts)
    names.push_back(RnnActivationAttr::get(b.getContext(),
                                           *symbolizeRnnActivation(a->name)));
  attrs.activations = b.getArrayAttr(names);

  // alpha / beta: consumed in order by the functions that take them.
  auto alphas = c.attrFloats("activation_alpha");
  auto betas = c.attrFloats("activation_beta");
  if (failed(alphas) || failed(betas))
    return failure();
  bool takesParams = llvm::any_of(acts, [](const OnnxActivation *a) {
    return a->takesAlpha || a->takesBeta;
  });
  if (*alphas || *betas || takesParams) {
    SmallVector<double> alpha, beta;
    size_t nextAlpha = 0, nextBeta = 0;
    for (const OnnxActivation *a : acts) {
      double av = a->alpha, bv = a->beta;
      if (a->takesAlpha && *alphas && nextAlpha < (*alphas)->size())
        av = (**alphas)[nextAlpha++];
      if (a->takesBeta && *betas && nextBeta < (*betas)->size())
        bv = (**betas)[nextBeta++];
      alpha.push_back(av);
      beta.push_back(bv);
    }
    attrs.alpha = b.getDenseF64ArrayAttr(alpha);
    attrs.beta = b.getDenseF64ArrayAttr(beta);
  }

  if (c.attr("clip")) {
    auto clip = c.attrFloat("clip", 0.0f);
    if (failed(clip))
      return failure();
    attrs.clip = b.getF64FloatAttr(*clip);
  }
  return attrs;
}

/// Sets the node's listed outputs from the op's results.
void setOutputs(NodeContext &c, ArrayRef<Value> results) {
  for (size_t i = 0; i < c.numOutputs() && i < results.size(); ++i)
    if (c.hasOutput(i))
      c.setOutput(i, results[i]);
}

/// Errors if the node lists more outputs than the op has.
LogicalResult checkOutputCount(NodeContext &c, size_t count) {
  for (size_t i = count; i < c.numOutputs(); ++i)
    if (c.hasOutput(i))
      return c.error() << "has " << c.numOutputs() << " outputs, at most "
                       << count << " expected";
  return success();
}

LogicalResult convertLSTM(NodeContext &c) {
  auto attrs = readAttrs(c, {4, {"Sigmoid", "Tanh", "Tanh"}});
  auto inputForget = c.attrInt("input_forget", 0);
  if (failed(attrs) || failed(inputForget) || failed(checkOutputCount(c, 3)))
    return failure();
  Type elem = c.inputElementType(0);
  auto r = c.createMulti<LSTMOp>(
      {elem, elem, elem}, c.input(0), c.input(1), c.input(2), c.input(3),
      c.input(4), c.input(5), c.input(6), c.input(7), attrs->hiddenSize,
      attrs->direction, attrs->activations, attrs->alpha, attrs->beta,
      attrs->clip, c.builder().getBoolAttr(*inputForget != 0), attrs->layout);
  if (failed(r))
    return failure();
  setOutputs(c, *r);
  return success();
}

LogicalResult convertGRU(NodeContext &c) {
  auto attrs = readAttrs(c, {3, {"Sigmoid", "Tanh"}});
  auto linearBeforeReset = c.attrInt("linear_before_reset", 0);
  if (failed(attrs) || failed(linearBeforeReset) ||
      failed(checkOutputCount(c, 2)))
    return failure();
  Type elem = c.inputElementType(0);
  auto r = c.createMulti<GRUOp>(
      {elem, elem}, c.input(0), c.input(1), c.input(2), c.input(3),
      c.input(4), c.input(5), attrs->hiddenSize, attrs->direction,
      attrs->activations, attrs->alpha, attrs->beta, attrs->clip,
      c.builder().getBoolAttr(*linearBeforeReset != 0), attrs->layout);
  if (failed(r))
    return failure();
  setOutputs(c, *r);
  return success();
}

LogicalResult convertRNN(NodeContext &c) {
  auto attrs = readAttrs(c, {1, {"Tanh"}});
  if (failed(attrs) || failed(checkOutputCount(c, 2)))
    return failure();
  Type elem = c.inputElementType(0);
  auto r = c.createMulti<RNNOp>(
      {elem, elem}, c.input(0), c.input(1), c.input(2), c.input(3),
      c.input(4), c.input(5), attrs->hiddenSize, attrs->direction,
      attrs->activations, attrs->alpha, attrs->beta, attrs->clip,
      attrs->layout);
  if (failed(r))
    return failure();
  setOutputs(c, *r);
  return success();
}

const ConverterEntry kRecurrent[] = {
    {"LSTM", convertLSTM},
    {"GRU", convertGRU},
    {"RNN", convertRNN},
};

} // namespace

ArrayRef<ConverterEntry> recurrentConverters() { return kRecurrent; }

} // namespace strata::onnx_import
