//===- Epilogue.cpp - activation functions and fused epilogues ------------===//
//
// The scalar activation functions the activation ops and the epilogues of
// Conv, Deconv and MatMul (`do_relu`/`relu_limit`, `activation`/
// `activation_params`) share, so a fused epilogue computes exactly what the
// activation op it replaced computed.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"

#include "llvm/ADT/StringSwitch.h"

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
/// The number of `activation_params` an epilogue activation takes, or -1 if
/// the name is unknown.
int epilogueParamCount(StringRef name) {
  return llvm::StringSwitch<int>(name)
      .Cases({"sigmoid", "silu", "gelu", "gelu_tanh", "hardswish"}, 0)
      .Case("leaky_relu", 1)
      .Cases({"hardsigmoid", "clip"}, 2)
      .Default(-1);
}
} // namespace

LogicalResult verifyEpilogue(Operation *op) {
  auto act = op->getAttrOfType<StringAttr>("activation");
  auto params = op->getAttrOfType<DenseF64ArrayAttr>("activation_params");
  if (!act) {
    if (params)
      return op->emitOpError()
             << "attribute 'activation_params' needs attribute 'activation'";
    return success();
  }
  int count = epilogueParamCount(act.getValue());
  if (count < 0)
    return op->emitOpError()
           << "attribute 'activation' = \"" << act.getValue()
           << "\" must be one of sigmoid, silu, gelu, gelu_tanh, hardswish, "
              "hardsigmoid, leaky_relu, clip";
  size_t given = params ? params.size() : 0;
  if (given != static_cast<size_t>(count))
    return op->emitOpError()
           << "attribute 'activation_params' has " << given
           << " values, activation \"" << act.getValue() << "\" takes "
           << count;
  auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
  if (type && !isa<FloatType>(type.getElementType()))
    return op->emitOpError() << "attribute 'activation' = \""
                             << act.getValue()
                             << "\" needs a float result, got "
                             << type.getElementType();
  auto doRelu = op->getAttrOfType<BoolAttr>("do_relu");
  if (doRelu && doRelu.getValue())
    return op->emitOpError() << "attribute 'activation' = \""
                             << act.getValue()
                             << "\" cannot be combined with do_relu = true";
  if (act.getValue() == "clip" && !(params[0] <= params[1]))
    return op->emitOpError()
           << "attribute 'activation_params' = [" << params[0] << ", "
           << params[1] << "] of clip needs min <= max";
  return success();
}

std::function<double(double)> activationFunction(StringRef name,
                                                 ArrayRef<double> p) {
  if (name == "sigmoid")
    return sigmoid;
  if (name == "silu")
    return [](double x) { return x * sigmoid(x); };
  if (name == "gelu")
    return geluErf;
  if (name == "gelu_tanh")
    return geluTanh;
  if (name == "hardswish")
    return [](double x) { return x * hardSigmoid(x, 1.0 / 6.0, 0.5); };
  if (name == "hardsigmoid") {
    double alpha = p[0], beta = p[1];
    return [=](double x) { return hardSigmoid(x, alpha, beta); };
  }
  if (name == "leaky_relu") {
    double alpha = p[0];
    return [=](double x) { return x >= 0 ? x : alpha * x; };
  }
  double lo = p[0], hi = p[1]; // clip
  return [=](double x) { return std::isnan(x) ? x : std::clamp(x, lo, hi); };
}

void applyEpilogue(Operation *op, Tensor &t) {
  auto doRelu = op->getAttrOfType<BoolAttr>("do_relu");
  if (doRelu && doRelu.getValue()) {
    auto limit = op->getAttrOfType<FloatAttr>("relu_limit");
    applyRelu(t, limit ? limit.getValueAsDouble() : -1.0);
  }
  auto act = op->getAttrOfType<StringAttr>("activation");
  if (!act)
    return;
  ArrayRef<double> params;
  if (auto p = op->getAttrOfType<DenseF64ArrayAttr>("activation_params"))
    params = p.asArrayRef();
  t = mapUnary(t, t.dtype(), activationFunction(act.getValue(), params));
}

} // namespace strata::top::impl
