//===- ConvertElementwiseActivation.cpp - ONNX activations to Top ---------===//
//
// Part of the Elementwise family (TopElementwiseOps.td): the activation
// functions. Relu, LeakyRelu, PRelu, Clip, Sigmoid, Tanh, Gelu, HardSigmoid,
// HardSwish and Swish with alpha 1 (SiLU) map to Top ops; Softplus,
// Softsign, Elu, Selu, Celu, ThresholdedRelu, Mish, Shrink and Swish are
// decomposed into Top ops where the decomposition is exact (up to the
// rounding of the intermediate results).
//
//===----------------------------------------------------------------------===//

#include "ValueChain.h"

#include <cfloat>
#include <cmath>

namespace strata::onnx_import {
using namespace chain;
namespace {

// Building blocks (null-chained): ValueChain.h.

Value floatOf(float v, NodeContext &c, Value like, StringRef hint) {
  return scalarLike(c, like, static_cast<double>(v), hint);
}

LogicalResult convertLeakyRelu(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 0.01f);
  if (failed(alpha) || failed(requireInputs(c, 1)))
    return failure();
  Value x = c.input(0);
  return finish(c, make<LeakyReluOp>(c, elemType(x), x,
                                     llvm::APFloat(double(*alpha))));
}

LogicalResult convertPRelu(NodeContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  Value x = c.input(0), slope = c.input(1);
  if (elemType(x) != elemType(slope))
    return c.error() << "input and slope element types differ: "
                     << elemType(x) << " and " << elemType(slope);
  if (isa<FloatType>(elemType(x)))
    return finish(c, make<PReluOp>(c, elemType(x), x, slope));
  // Integers: x < 0 ? x * slope : x.
  Value neg = compare(c, x, scalarLike(c, x, 0, "zero"), CompareMode::Less);
  return finish(c, where(c, neg, binary<MulOp>(c, x, slope), x));
}

/// A Clip bound given as an input (opset >= 11): its constant value if it
/// is a constant scalar.
FailureOr<std::optional<double>> clipBound(NodeContext &c, size_t i,
                                           StringRef name) {
  const Tensor *t = c.constantInput(i);
  if (!t)
    return std::optional<double>();
  if (t->numElements() != 1)
    return c.error() << "input '" << name << "' must be a scalar, got shape "
                     << formatArray(t->shape());
  return std::optional<double>(t->getAsDouble(0));
}

LogicalResult convertClip(NodeContext &c) {
  if (failed(requireInputs(c, 1)))
    return failure();
  Value x = c.input(0);
  Type t = elemType(x);
  double inf = std::numeric_limits<double>::infinity();
  double lo = -inf, hi = inf;
  Value loV, hiV; // bounds as values, for Max/Min
  bool constBounds = true;
  if (c.version() < 11) {
    auto mn = c.attrFloat("min", -FLT_MAX);
    auto mx = c.attrFloat("max", FLT_MAX);
    if (failed(mn) || failed(mx))
      return failure();
    lo = *mn;
    hi = *mx;
    loV = scalar(c, t, lo, "min");
    hiV = scalar(c, t, hi, "max");
  } else {
    auto mn = clipBound(c, 1, "min");
    auto mx = clipBound(c, 2, "max");
    if (failed(mn) || failed(mx))
      return failure();
    if (c.hasInput(1)) {
      loV = c.input(1);
      constBounds &= mn->has_value();
      lo = mn->value_or(lo);
    }
    if (c.hasInput(2)) {
      hiV = c.input(2);
      constBounds &= mx->has_value();
      hi = mx->value_or(hi);
    }
    for (Value b : {loV, hiV})
      if (b && elemType(b) != t)
        return c.error() << "bound element type " << elemType(b)
                         << " differs from the input's " << t;
  }
  if (isa<FloatType>(t) && constBounds && lo <= hi)
    return finish(c, make<ClipOp>(c, t, x, llvm::APFloat(lo),
                                  llvm::APFloat(hi)));
  // Integer, non-constant or min > max bounds: min(max(x, lo), hi), which
  // gives `max` everywhere when min > max, as ONNX specifies.
  Value y = x;
  if (loV)
    y = binary<MaxOp>(c, y, loV);
  if (hiV)
    y = binary<MinOp>(c, y, hiV);
  return finish(c, y);
}

LogicalResult convertGelu(NodeContext &c) {
  auto approx = c.attrString("approximate", "none");
  if (failed(approx) || failed(requireInputs(c, 1)))
    return failure();
  if (*approx != "none" && *approx != "tanh")
    return c.error() << "attribute 'approximate' = '" << *approx
                     << "' must be 'none' or 'tanh'";
  Value x = c.input(0);
  return finish(c, make<GeluOp>(c, elemType(x), x,
                                *symbolizeGeluApproximation(*approx)));
}

LogicalResult convertHardSigmoid(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 0.2f);
  auto beta = c.attrFloat("beta", 0.5f);
  if (failed(alpha) || failed(beta) || failed(requireInputs(c, 1)))
    return failure();
  Value x = c.input(0);
  return finish(c, make<HardSigmoidOp>(c, elemType(x), x,
                                       llvm::APFloat(double(*alpha)),
                                       llvm::APFloat(double(*beta))));
}

/// log(1 + exp(x)) as max(x, 0) + log(1 + exp(-|x|)), which cannot
/// overflow.
Value softplus(NodeContext &c, Value x) {
  Value e = unary<ExpOp>(c, unary<NegOp>(c, unary<AbsOp>(c, x)));
  Value l = unary<LogOp>(c, binary<AddOp>(c, e, scalarLike(c, x, 1, "one")));
  return binary<AddOp>(c, unary<ReluOp>(c, x), l);
}

LogicalResult convertSoftplus(NodeContext &c) {
  if (failed(requireInputs(c, 1)) || failed(requireFloat(c, 0)))
    return failure();
  return finish(c, softplus(c, c.input(0)));
}

LogicalResult convertMish(NodeContext &c) {
  if (failed(requireInputs(c, 1)) || failed(requireFloat(c, 0)))
    return failure();
  Value x = c.input(0);
  return finish(c, binary<MulOp>(c, x, unary<TanhOp>(c, softplus(c, x))));
}

LogicalResult convertSoftsign(NodeContext &c) {
  if (failed(requireInputs(c, 1)) || failed(requireFloat(c, 0)))
    return failure();
  Value x = c.input(0);
  Value d = binary<AddOp>(c, unary<AbsOp>(c, x), scalarLike(c, x, 1, "one"));
  return finish(c, binary<DivOp>(c, x, d));
}

/// alpha * (exp(x) - 1).
Value expm1Scaled(NodeContext &c, Value x, float alpha) {
  Value em1 = binary<SubOp>(c, unary<ExpOp>(c, x), scalarLike(c, x, 1, "one"));
  return binary<MulOp>(c, em1, floatOf(alpha, c, x, "alpha"));
}

LogicalResult convertElu(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 1.0f);
  if (failed(alpha) || failed(requireInputs(c, 1)) ||
      failed(requireFloat(c, 0)))
    return failure();
  Value x = c.input(0);
  Value neg = compare(c, x, scalarLike(c, x, 0, "zero"), CompareMode::Less);
  return finish(c, where(c, neg, expm1Scaled(c, x, *alpha), x));
}

LogicalResult convertSelu(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 1.67326319217681884765625f);
  auto gamma = c.attrFloat("gamma", 1.05070102214813232421875f);
  if (failed(alpha) || failed(gamma) || failed(requireInputs(c, 1)) ||
      failed(requireFloat(c, 0)))
    return failure();
  Value x = c.input(0);
  Value pos = compare(c, x, scalarLike(c, x, 0, "zero"), CompareMode::Greater);
  Value a = floatOf(*alpha, c, x, "alpha");
  Value negPart =
      binary<SubOp>(c, binary<MulOp>(c, unary<ExpOp>(c, x), a), a);
  Value y = where(c, pos, x, negPart);
  return finish(c, binary<MulOp>(c, y, floatOf(*gamma, c, x, "gamma")));
}

LogicalResult convertCelu(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 1.0f);
  if (failed(alpha) || failed(requireInputs(c, 1)) ||
      failed(requireFloat(c, 0)))
    return failure();
  if (*alpha == 0.0f)
    return c.error() << "attribute 'alpha' = 0 is invalid (Celu divides by "
                        "it)";
  Value x = c.input(0);
  // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
  Value scaled = binary<DivOp>(c, x, floatOf(*alpha, c, x, "alpha"));
  Value negPart = binary<MinOp>(c, scalarLike(c, x, 0, "zero"),
                                expm1Scaled(c, scaled, *alpha));
  return finish(c, binary<AddOp>(c, unary<ReluOp>(c, x), negPart));
}

LogicalResult convertThresholdedRelu(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 1.0f);
  if (failed(alpha) || failed(requireInputs(c, 1)) ||
      failed(requireFloat(c, 0)))
    return failure();
  Value x = c.input(0);
  Value above = compare(c, x, floatOf(*alpha, c, x, "alpha"), CompareMode::Greater);
  return finish(c, where(c, above, x, scalarLike(c, x, 0, "zero")));
}

LogicalResult convertSwish(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 1.0f);
  if (failed(alpha) || failed(requireInputs(c, 1)))
    return failure();
  Value x = c.input(0);
  if (*alpha == 1.0f)
    return finish(c, unary<SiLUOp>(c, x));
  Value ax = binary<MulOp>(c, x, floatOf(*alpha, c, x, "alpha"));
  return finish(c, binary<MulOp>(c, x, unary<SigmoidOp>(c, ax)));
}

/// y = x < -lambd ? x + bias : (x > lambd ? x - bias : 0).
LogicalResult convertShrink(NodeContext &c) {
  auto lambd = c.attrFloat("lambd", 0.5f);
  auto bias = c.attrFloat("bias", 0.0f);
  if (failed(lambd) || failed(bias) || failed(requireInputs(c, 1)))
    return failure();
  Value x = c.input(0);
  Type t = elemType(x);
  if (t && t.isInteger()) {
    // Comparisons with a truncated lambd >= 0 are exact for integers; a
    // fractional bias would need a float round trip.
    if (*lambd < 0)
      return c.error() << "attribute 'lambd' = " << *lambd
                       << " must be >= 0 for integer input " << t;
    if (*bias != std::trunc(*bias))
      return c.error() << "attribute 'bias' = " << *bias
                       << " must be integral for integer input " << t;
  }
  Value lo = scalarLike(c, x, -static_cast<double>(*lambd), "neg_lambd");
  if (t && t.isUnsignedInteger())
    lo = scalarLike(c, x, 0, "zero"); // x < -lambd never holds
  Value hi = scalarLike(c, x, *lambd, "lambd");
  Value b = scalarLike(c, x, *bias, "bias");
  Value zero = scalarLike(c, x, 0, "zero");
  Value upper = make<WhereOp>(c, t, compare(c, x, hi, CompareMode::Greater),
                              binary<SubOp>(c, x, b), zero);
  return finish(c, make<WhereOp>(c, t, compare(c, x, lo, CompareMode::Less),
                                 binary<AddOp>(c, x, b), upper));
}

const ConverterEntry kElementwiseActivation[] = {
    {"Relu", convertUnary<ReluOp>},
    {"LeakyRelu", convertLeakyRelu},
    {"PRelu", convertPRelu},
    {"Clip", convertClip},
    {"Sigmoid", convertUnary<SigmoidOp>},
    {"Tanh", convertUnary<TanhOp>},
    {"Gelu", convertGelu},
    {"HardSigmoid", convertHardSigmoid},
    {"HardSwish", convertUnary<HardSwishOp>},
    {"Softplus", convertSoftplus},
    {"Softsign", convertSoftsign},
    {"Elu", convertElu},
    {"Selu", convertSelu},
    {"Celu", convertCelu},
    {"ThresholdedRelu", convertThresholdedRelu},
    {"Mish", convertMish},
    {"Swish", convertSwish},
    {"Shrink", convertShrink},
};
} // namespace

ArrayRef<ConverterEntry> elementwiseActivationConverters() {
  return kElementwiseActivation;
}

} // namespace strata::onnx_import
