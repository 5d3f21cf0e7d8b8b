//===- Epilogue.cpp - activation functions and fused epilogues ------------===//
//
// The scalar activation functions the activation ops and the epilogues of
// Conv, Deconv and MatMul (`do_relu`/`relu_limit`, `activation`/
// `activation_params`) share, so a fused epilogue computes exactly what the
// activation op it replaced computed.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"

#include <algorithm>

using namespace mlir;

namespace strata::top::impl {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double hardSigmoid(double x, double alpha, double beta) {
  double v = alpha * x + beta;
  return std::isnan(v) ? v : std::clamp(v, 0.0, 1.0);
}

double geluErf(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

double geluTanh(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

namespace {
/// The number of `activation_params` epilogue activation `act` takes.
unsigned epilogueParamCount(EpilogueActivation act) {
  switch (act) {
  case EpilogueActivation::LeakyRelu:
    return 1;
  case EpilogueActivation::HardSigmoid:
  case EpilogueActivation::Clip:
    return 2;
  default:
    return 0;
  }
}
} // namespace

LogicalResult verifyEpilogue(Operation *op) {
  auto actAttr = op->getAttrOfType<EpilogueActivationAttr>("activation");
  auto params = op->getAttrOfType<DenseF64ArrayAttr>("activation_params");
  if (!actAttr) {
    if (params)
      return op->emitOpError()
             << "attribute 'activation_params' needs attribute 'activation'";
    return success();
  }
  EpilogueActivation act = actAttr.getValue();
  StringRef name = stringifyEpilogueActivation(act);
  unsigned count = epilogueParamCount(act);
  size_t given = params ? params.size() : 0;
  if (given != count)
    return op->emitOpError()
           << "attribute 'activation_params' has " << given
           << " values, activation \"" << name << "\" takes " << count;
  auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
  if (type && !isa<FloatType>(type.getElementType()))
    return op->emitOpError() << "attribute 'activation' = \"" << name
                             << "\" needs a float result, got "
                             << type.getElementType();
  auto doRelu = op->getAttrOfType<BoolAttr>("do_relu");
  if (doRelu && doRelu.getValue())
    return op->emitOpError() << "attribute 'activation' = \"" << name
                             << "\" cannot be combined with do_relu = true";
  if (act == EpilogueActivation::Clip && !(params[0] <= params[1]))
    return op->emitOpError()
           << "attribute 'activation_params' = [" << params[0] << ", "
           << params[1] << "] of clip needs min <= max";
  return success();
}

std::function<double(double)> activationFunction(EpilogueActivation act,
                                                 ArrayRef<double> p) {
  switch (act) {
  case EpilogueActivation::Sigmoid:
    return sigmoid;
  case EpilogueActivation::SiLU:
    return [](double x) { return x * sigmoid(x); };
  case EpilogueActivation::Gelu:
    return geluErf;
  case EpilogueActivation::GeluTanh:
    return geluTanh;
  case EpilogueActivation::HardSwish:
    return [](double x) { return x * hardSigmoid(x, 1.0 / 6.0, 0.5); };
  case EpilogueActivation::HardSigmoid: {
    double alpha = p[0], beta = p[1];
    return [=](double x) { return hardSigmoid(x, alpha, beta); };
  }
  case EpilogueActivation::LeakyRelu: {
    double alpha = p[0];
    return [=](double x) { return x >= 0 ? x : alpha * x; };
  }
  case EpilogueActivation::Clip:
    break;
  }
  double lo = p[0], hi = p[1];
  return [=](double x) { return std::isnan(x) ? x : std::clamp(x, lo, hi); };
}

void applyEpilogue(Operation *op, Tensor &t) {
  auto doRelu = op->getAttrOfType<BoolAttr>("do_relu");
  if (doRelu && doRelu.getValue()) {
    auto limit = op->getAttrOfType<FloatAttr>("relu_limit");
    applyRelu(t, limit ? limit.getValueAsDouble() : -1.0);
  }
  auto act = op->getAttrOfType<EpilogueActivationAttr>("activation");
  if (!act)
    return;
  ArrayRef<double> params;
  if (auto p = op->getAttrOfType<DenseF64ArrayAttr>("activation_params"))
    params = p.asArrayRef();
  t = mapUnary(t, t.dtype(), activationFunction(act.getValue(), params));
}

} // namespace strata::top::impl
