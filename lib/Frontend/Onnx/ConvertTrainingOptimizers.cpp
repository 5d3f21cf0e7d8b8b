//===- ConvertTrainingOptimizers.cpp - ai.onnx.preview.training -----------===//
//
// The optimizer update rules of the ai.onnx.preview.training domain
// (Adagrad, Adam, Momentum), as elementwise Top ops. Each node updates n
// tensors at once: inputs R (learning rate), T (step count), then the n
// tensors X, the n gradients G and the n (or 2n for Adam) state tensors;
// outputs the n new X and the new states. The formulas are the ONNX
// reference's; the step-dependent choices (T > 0) are Where ops, since T is
// usually a runtime input.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

/// The update formulas in X's float type `f` (scalars and integer inputs
/// are converted to it).
class Update : public ValueBuilder {
public:
  Update(NodeContext &c, Type f) : ValueBuilder(c), c(c), f(f) {}

  Value k(double v) { return scalar(f, v); }
  FailureOr<Value> add(FailureOr<Value> l, FailureOr<Value> r) {
    return op<AddOp>(l, r);
  }
  FailureOr<Value> sub(FailureOr<Value> l, FailureOr<Value> r) {
    return op<SubOp>(l, r);
  }
  FailureOr<Value> mul(FailureOr<Value> l, FailureOr<Value> r) {
    return op<MulOp>(l, r);
  }
  FailureOr<Value> div(FailureOr<Value> l, FailureOr<Value> r) {
    return op<DivOp>(l, r);
  }
  FailureOr<Value> sqrt(FailureOr<Value> v) { return unary<SqrtOp>(v); }
  FailureOr<Value> input(size_t i) { return convert(c.input(i), f); }
  /// `whenPositive` where T > 0, else `otherwise`.
  FailureOr<Value> ifStepPositive(FailureOr<Value> whenPositive,
                                  FailureOr<Value> otherwise) {
    auto t = input(1);
    if (failed(t) || failed(whenPositive) || failed(otherwise))
      return failure();
    OpBuilder &b = c.builder();
    auto positive = c.create<CompareOp>(b.getI1Type(), *t, k(0.0),
                                        CompareModeAttr::get(b.getContext(), CompareMode::Greater));
    if (failed(positive))
      return failure();
    return c.create<WhereOp>(f, *positive, *whenPositive, *otherwise);
  }

private:
  NodeContext &c;
  Type f;
};

/// Checks the input count (2 + groups * n) and returns n; every tensor
/// input must have the type of X.
FailureOr<int64_t> tensorCount(NodeContext &c, int64_t groups) {
  int64_t rest = static_cast<int64_t>(c.numInputs()) - 2;
  if (rest < groups || rest % groups != 0)
    return c.error() << "expected R, T and " << groups
                     << " groups of n tensors, got " << c.numInputs()
                     << " inputs";
  int64_t n = rest / groups;
  if (static_cast<int64_t>(c.numOutputs()) > n * (groups - 1))
    return c.error() << "has " << c.numOutputs() << " outputs, at most "
                     << n * (groups - 1);
  Type f = c.inputElementType(2);
  if (!f || !isa<FloatType>(f))
    return c.error() << "input X must be a float tensor, got " << f;
  for (int64_t i = 2; i < 2 + rest; ++i)
    if (c.inputElementType(i) != f)
      return c.error() << "input " << i << " has element type "
                       << c.inputElementType(i) << ", X has " << f;
  return n;
}

void setOutput(NodeContext &c, size_t i, FailureOr<Value> v) {
  if (succeeded(v) && c.hasOutput(i))
    c.setOutput(i, *v);
}

LogicalResult convertAdagrad(NodeContext &c) {
  auto n = tensorCount(c, 3);
  auto decay = c.attrFloat("decay_factor", 0.0f);
  auto epsilon = c.attrFloat("epsilon", 0.0f);
  auto norm = c.attrFloat("norm_coefficient", 0.0f);
  if (failed(n) || failed(decay) || failed(epsilon) || failed(norm))
    return failure();
  Update u(c, c.inputElementType(2));
  // r / (1 + t * decay_factor)
  auto rate = u.div(u.input(0),
                    u.add(u.k(1.0), u.mul(u.input(1), u.k(*decay))));
  for (int64_t i = 0; i < *n; ++i) {
    Value x = c.input(2 + i), g = c.input(2 + *n + i), h = c.input(2 + 2 * *n + i);
    auto gr = u.add(u.mul(u.k(*norm), x), g);
    auto hNew = u.add(h, u.mul(gr, gr));
    auto xNew = u.sub(x, u.div(u.mul(rate, gr), u.add(u.sqrt(hNew), u.k(*epsilon))));
    if (failed(xNew))
      return failure();
    setOutput(c, i, xNew);
    setOutput(c, *n + i, hNew);
  }
  return success();
}

LogicalResult convertAdam(NodeContext &c) {
  auto n = tensorCount(c, 4);
  auto alpha = c.attrFloat("alpha", 0.9f);
  auto beta = c.attrFloat("beta", 0.999f);
  auto epsilon = c.attrFloat("epsilon", 0.0f);
  auto norm = c.attrFloat("norm_coefficient", 0.0f);
  auto normPost = c.attrFloat("norm_coefficient_post", 0.0f);
  if (failed(n) || failed(alpha) || failed(beta) || failed(epsilon) ||
      failed(norm) || failed(normPost))
    return failure();
  Update u(c, c.inputElementType(2));
  // With bias correction once T > 0: r * sqrt(1 - beta^t) / (1 - alpha^t).
  auto t = u.input(1);
  auto r = u.input(0);
  auto corrected =
      u.div(u.mul(r, u.sqrt(u.sub(u.k(1.0), u.op<PowOp>(u.k(*beta), t)))),
            u.sub(u.k(1.0), u.op<PowOp>(u.k(*alpha), t)));
  auto rate = u.ifStepPositive(corrected, r);
  for (int64_t i = 0; i < *n; ++i) {
    Value x = c.input(2 + i), g = c.input(2 + *n + i);
    Value v = c.input(2 + 2 * *n + i), h = c.input(2 + 3 * *n + i);
    auto gr = u.add(u.mul(u.k(*norm), x), g);
    auto vNew = u.add(u.mul(u.k(*alpha), v), u.mul(u.k(1.0 - *alpha), gr));
    auto hNew =
        u.add(u.mul(u.k(*beta), h), u.mul(u.k(1.0 - *beta), u.mul(gr, gr)));
    auto step = u.div(vNew, u.add(u.sqrt(hNew), u.k(*epsilon)));
    auto xNew = u.mul(u.k(1.0 - *normPost), u.sub(x, u.mul(rate, step)));
    if (failed(xNew))
      return failure();
    setOutput(c, i, xNew);
    setOutput(c, *n + i, vNew);
    setOutput(c, 2 * *n + i, hNew);
  }
  return success();
}

LogicalResult convertMomentum(NodeContext &c) {
  auto n = tensorCount(c, 3);
  auto alpha = c.attrFloat("alpha", 0.0f);
  auto beta = c.attrFloat("beta", 0.0f);
  auto norm = c.attrFloat("norm_coefficient", 0.0f);
  auto mode = c.attrString("mode", "");
  if (failed(n) || failed(alpha) || failed(beta) || failed(norm) ||
      failed(mode))
    return failure();
  if (!c.attr("alpha") || !c.attr("beta") || !c.attr("norm_coefficient") ||
      !c.attr("mode"))
    return c.error() << "attributes 'alpha', 'beta', 'mode' and "
                        "'norm_coefficient' are required";
  if (*mode != "standard" && *mode != "nesterov")
    return c.error() << "attribute 'mode' = '" << *mode
                     << "' must be 'standard' or 'nesterov'";
  Update u(c, c.inputElementType(2));
  // The gradient's coefficient is 1 at the first step (T = 0).
  auto betaT = u.ifStepPositive(u.k(*beta), u.k(1.0));
  auto r = u.input(0);
  for (int64_t i = 0; i < *n; ++i) {
    Value x = c.input(2 + i), g = c.input(2 + *n + i), v = c.input(2 + 2 * *n + i);
    auto gr = u.add(u.mul(u.k(*norm), x), g);
    auto vNew = u.add(u.mul(u.k(*alpha), v), u.mul(betaT, gr));
    auto direction =
        *mode == "standard" ? vNew : u.add(gr, u.mul(u.k(*alpha), vNew));
    auto xNew = u.sub(x, u.mul(r, direction));
    if (failed(xNew))
      return failure();
    setOutput(c, i, xNew);
    setOutput(c, *n + i, vNew);
  }
  return success();
}

} // namespace

llvm::ArrayRef<ConverterEntry> trainingOptimizerConverters() {
  static const ConverterEntry table[] = {
      {"Adagrad", convertAdagrad},
      {"Adam", convertAdam},
      {"Momentum", convertMomentum},
  };
  return table;
}

} // namespace strata::onnx_import
