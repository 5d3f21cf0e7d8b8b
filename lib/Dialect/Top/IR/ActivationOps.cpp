//===- ActivationOps.cpp - float-only unary functions and PRelu -----------===//
//
// LeakyRelu, PRelu, Clip, Sigmoid, Tanh, Gelu, SiLU, HardSigmoid, HardSwish,
// Exp, Log, Sqrt, Rsqrt, Erf. All accept float element types only and
// compute in f32 (f64 for f64).
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/ActivationShapes.h"
#include "strata/Dialect/Top/Shapes/ElementwiseShapes.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// A float input and a result of the same element type.
LogicalResult verifyFloatUnary(Operation *op) {
  Value in = op->getOperand(0);
  if (failed(checkElementKind(op, "operand 'input'", in, kFloatElements)))
    return failure();
  return checkSameElementType(op, "operand 'input'", in, "result",
                              op->getResult(0));
}

/// Stores `fn` applied to the op's input as its result.
template <typename UnOp>
LogicalResult interpretMap(UnOp op, InterpreterEnv &env,
                           const std::function<double(double)> &fn) {
  env.set(op.getOutput(),
          mapUnary(env.get(op.getInput()), resultDType(op.getOutput()), fn));
  return success();
}

} // namespace

/// Verifier, shape inference (the input's shape) and FLOPs of a float-only
/// unary op costing `FLOPS` per element.
#define STRATA_FLOAT_UNARY(OP, FLOPS)                                          \
  LogicalResult OP::inferShapes(const ShapeContext &ctx,                       \
                                SmallVectorImpl<SmallVector<int64_t>> &s) {    \
    return appendShape(*this, shapes::inferUnary(ctx.shape(getInput())), s);   \
  }                                                                            \
  int64_t OP::getFlops() { return elementwiseFlops(getOutput(), FLOPS); }

/// Also defines the verifier, for ops without attributes to check.
#define STRATA_SIMPLE_FLOAT_UNARY(OP, FLOPS)                                   \
  STRATA_FLOAT_UNARY(OP, FLOPS)                                                \
  LogicalResult OP::verify() { return verifyFloatUnary(*this); }

//===----------------------------------------------------------------------===//
// Ops with attributes
//===----------------------------------------------------------------------===//

STRATA_SIMPLE_FLOAT_UNARY(LeakyReluOp, 2)

LogicalResult LeakyReluOp::interpret(InterpreterEnv &env) {
  double alpha = getAlpha().convertToDouble();
  return interpretMap(*this, env,
                      [alpha](double x) { return x >= 0 ? x : alpha * x; });
}

STRATA_FLOAT_UNARY(ClipOp, 2)

LogicalResult ClipOp::verify() {
  if (failed(verifyFloatUnary(*this)))
    return failure();
  double lo = getMin().convertToDouble(), hi = getMax().convertToDouble();
  if (!(lo <= hi))
    return emitOpError() << "attribute 'min' = " << lo
                         << " must be <= attribute 'max' = " << hi;
  return success();
}

LogicalResult ClipOp::interpret(InterpreterEnv &env) {
  double lo = getMin().convertToDouble(), hi = getMax().convertToDouble();
  return interpretMap(*this, env, [lo, hi](double x) {
    return std::isnan(x) ? x : std::clamp(x, lo, hi);
  });
}

STRATA_FLOAT_UNARY(GeluOp,
                   getApproximate() == GeluApproximation::Tanh ? 9 : 5)

LogicalResult GeluOp::verify() { return verifyFloatUnary(*this); }

LogicalResult GeluOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env,
                      getApproximate() == GeluApproximation::Tanh ? geluTanh
                                                                  : geluErf);
}

STRATA_SIMPLE_FLOAT_UNARY(HardSigmoidOp, 4)

LogicalResult HardSigmoidOp::interpret(InterpreterEnv &env) {
  double alpha = getAlpha().convertToDouble();
  double beta = getBeta().convertToDouble();
  return interpretMap(*this, env, [alpha, beta](double x) {
    return hardSigmoid(x, alpha, beta);
  });
}

STRATA_SIMPLE_FLOAT_UNARY(ScalarAffineOp, 2)

LogicalResult ScalarAffineOp::interpret(InterpreterEnv &env) {
  // Each step exact in double, then rounded to the element type: the f32
  // product, then the f32 sum (double rounding is harmless for one f32
  // multiply or add); f64 as is.
  double scale = getScale().convertToDouble();
  double offset = getOffset().convertToDouble();
  if (!getElementTypeOrSelf(getOutput().getType()).isF32())
    return interpretMap(*this, env, [scale, offset](double x) {
      double scaled = x * scale; // two roundings, never a contracted FMA
      return scaled + offset;
    });
  auto s = double(static_cast<float>(scale));
  auto o = double(static_cast<float>(offset));
  return interpretMap(*this, env, [s, o](double x) {
    auto scaled = double(static_cast<float>(x * s));
    return double(static_cast<float>(scaled + o));
  });
}

//===----------------------------------------------------------------------===//
// PRelu
//===----------------------------------------------------------------------===//

LogicalResult PReluOp::verify() {
  if (failed(verifyFloatUnary(*this)))
    return failure();
  return checkSameElementType(*this, "operand 'input'", getInput(),
                              "operand 'slope'", getSlope());
}

LogicalResult PReluOp::inferShapes(const ShapeContext &ctx,
                                   SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(
      *this, shapes::inferPRelu(ctx.shape(getInput()), ctx.shape(getSlope())),
      s);
}

int64_t PReluOp::getFlops() { return elementwiseFlops(getOutput(), 2); }

LogicalResult PReluOp::interpret(InterpreterEnv &env) {
  Tensor in = toCompute(env.get(getInput()));
  Tensor slope =
      broadcastTo(env.get(getSlope()).castTo(in.dtype()), in.shape());
  Tensor out(in.dtype(), in.shape());
  for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
    double x = in.getAsDouble(i);
    out.setFromDouble(i, x >= 0 ? x : slope.getAsDouble(i) * x);
  }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// Ops without attributes
//===----------------------------------------------------------------------===//

STRATA_SIMPLE_FLOAT_UNARY(SigmoidOp, 4)
STRATA_SIMPLE_FLOAT_UNARY(TanhOp, 1)
STRATA_SIMPLE_FLOAT_UNARY(SiLUOp, 5)
STRATA_SIMPLE_FLOAT_UNARY(HardSwishOp, 5)
STRATA_SIMPLE_FLOAT_UNARY(ExpOp, 1)
STRATA_SIMPLE_FLOAT_UNARY(LogOp, 1)
STRATA_SIMPLE_FLOAT_UNARY(SqrtOp, 1)
STRATA_SIMPLE_FLOAT_UNARY(RsqrtOp, 2)
STRATA_SIMPLE_FLOAT_UNARY(ErfOp, 1)

LogicalResult SigmoidOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env, sigmoid);
}

LogicalResult TanhOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env, [](double x) { return std::tanh(x); });
}

LogicalResult SiLUOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env, [](double x) { return x * sigmoid(x); });
}

LogicalResult HardSwishOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env, [](double x) {
    return x * hardSigmoid(x, 1.0 / 6.0, 0.5);
  });
}

LogicalResult ExpOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env, [](double x) { return std::exp(x); });
}

LogicalResult LogOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env, [](double x) { return std::log(x); });
}

LogicalResult SqrtOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env, [](double x) { return std::sqrt(x); });
}

LogicalResult RsqrtOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env,
                      [](double x) { return 1.0 / std::sqrt(x); });
}

LogicalResult ErfOp::interpret(InterpreterEnv &env) {
  return interpretMap(*this, env, [](double x) { return std::erf(x); });
}
