//===- ConvertElementwise.cpp - ONNX elementwise and logic ops to Top -----===//
//
// The Elementwise family (TopElementwiseOps.td; the activations are in
// ConvertElementwiseActivation.cpp): arithmetic, comparison, selection,
// logic, casts, sign and rounding. Ops without a Top counterpart are
// decomposed into Top ops only where the decomposition is exact (up to the
// rounding of the intermediate results): Mod, Reciprocal, Floor, Ceil,
// Round, Sign, the logic ops (Where/Compare on i1) and so on.
//
//===----------------------------------------------------------------------===//

#include "ValueChain.h"

#include <cmath>
#include <limits>

namespace strata::onnx_import {
using namespace chain;
namespace {

// Building blocks (null-chained): ValueChain.h.

Value castTo(NodeContext &c, Value v, Type to) {
  if (!v || elemType(v) == to)
    return v;
  return make<CastOp>(c, to, v);
}

Value boolConst(NodeContext &c, bool v) {
  return scalar(c, c.builder().getI1Type(), v ? 1 : 0, v ? "true" : "false");
}

//===----------------------------------------------------------------------===//
// Direct mappings
//===----------------------------------------------------------------------===//

template <typename OpTy> LogicalResult convertBinary(NodeContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  if (c.inputElementType(0) != c.inputElementType(1))
    return c.error() << "operand element types differ: "
                     << c.inputElementType(0) << " and "
                     << c.inputElementType(1);
  return finish(c, binary<OpTy>(c, c.input(0), c.input(1)));
}

/// Max, Min, Sum (and Mean before its division): a chain of binary ops.
template <typename OpTy> Value chainInputs(NodeContext &c) {
  if (c.numInputs() == 0 || !c.hasInput(0)) {
    c.error() << "at least one input is required";
    return {};
  }
  Value acc = c.input(0);
  for (size_t i = 1; i < c.numInputs(); ++i) {
    if (!c.hasInput(i)) {
      c.error() << "input " << i << " is empty";
      return {};
    }
    if (c.inputElementType(i) != elemType(acc)) {
      c.error() << "input " << i << " has element type "
                << c.inputElementType(i) << " but input 0 has "
                << elemType(acc);
      return {};
    }
    acc = binary<OpTy>(c, acc, c.input(i));
  }
  return acc;
}

template <typename OpTy> LogicalResult convertVariadic(NodeContext &c) {
  return finish(c, chainInputs<OpTy>(c));
}

LogicalResult convertMean(NodeContext &c) {
  Value sum = chainInputs<AddOp>(c);
  if (!sum || c.numInputs() == 1)
    return finish(c, sum);
  Value n = scalarLike(c, sum, static_cast<double>(c.numInputs()), "count");
  return finish(c, binary<DivOp>(c, sum, n));
}

/// Pow with possibly different base and exponent types: computed in the
/// base's float type (the exponent's if it is a wider float; f64 for an
/// integer base) and cast back to the base's type.
LogicalResult convertPow(NodeContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  Value x = c.input(0), y = c.input(1);
  Type tx = elemType(x), ty = elemType(y);
  Type compute = tx;
  auto fx = dyn_cast_or_null<FloatType>(tx);
  auto fy = dyn_cast_or_null<FloatType>(ty);
  if (!fx)
    compute = c.builder().getF64Type();
  else if (fy && fy.getWidth() > fx.getWidth())
    compute = fy;
  Value r = make<PowOp>(c, compute, castTo(c, x, compute),
                        castTo(c, y, compute));
  return finish(c, castTo(c, r, tx));
}

LogicalResult convertReciprocal(NodeContext &c) {
  if (failed(requireInputs(c, 1)))
    return failure();
  Value x = c.input(0);
  return finish(c, binary<DivOp>(c, scalarLike(c, x, 1.0, "one"), x));
}

/// Integer Mod: the C remainder a - trunc(a / b) * b, moved into b's sign
/// for fmod = 0 (Python's %). Float Mod has no exact decomposition.
LogicalResult convertMod(NodeContext &c) {
  auto fmod = c.attrInt("fmod", 0);
  if (failed(fmod) || failed(requireInputs(c, 2)))
    return failure();
  if (*fmod != 0 && *fmod != 1)
    return c.error() << "attribute 'fmod' = " << *fmod << " must be 0 or 1";
  Value a = c.input(0), b = c.input(1);
  Type t = elemType(a);
  if (t != elemType(b))
    return c.error() << "operand element types differ: " << t << " and "
                     << elemType(b);
  if (isa_and_nonnull<FloatType>(t)) {
    if (!*fmod)
      return c.error() << "attribute 'fmod' = 0 is invalid for element type "
                       << t << " (float Mod needs fmod = 1)";
    return finish(c, binary<FmodOp>(c, a, b));
  }
  if (!t || !t.isIntOrIndex() || t.isInteger(1))
    return c.error() << "element type " << t << " is not supported (only "
                     << "integer and float Mod)";
  Value r = binary<SubOp>(c, a, binary<MulOp>(c, binary<DivOp>(c, a, b), b));
  if (*fmod || t.isUnsignedInteger())
    return finish(c, r);
  Value zero = scalarLike(c, a, 0, "zero");
  Value signsDiffer = compare(c, compare(c, r, zero, CompareMode::Less),
                              compare(c, b, zero, CompareMode::Less), CompareMode::NotEqual);
  Value fix = where(c, compare(c, r, zero, CompareMode::NotEqual), signsDiffer,
                    boolConst(c, false));
  return finish(c, where(c, fix, binary<AddOp>(c, r, b), r));
}

//===----------------------------------------------------------------------===//
// Comparison, selection, logic
//===----------------------------------------------------------------------===//

template <CompareMode Mode> LogicalResult convertCompare(NodeContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  if (c.inputElementType(0) != c.inputElementType(1))
    return c.error() << "operand element types differ: "
                     << c.inputElementType(0) << " and "
                     << c.inputElementType(1);
  return finish(c, compare(c, c.input(0), c.input(1), Mode));
}

LogicalResult convertWhere(NodeContext &c) {
  if (failed(requireInputs(c, 3)))
    return failure();
  return finish(c, where(c, c.input(0), c.input(1), c.input(2)));
}

/// The logic ops take i1 operands.
LogicalResult requireBool(NodeContext &c, size_t n) {
  if (failed(requireInputs(c, n)))
    return failure();
  for (size_t i = 0; i < n; ++i)
    if (!c.inputElementType(i) || !c.inputElementType(i).isInteger(1))
      return c.error() << "input " << i << " has element type "
                       << c.inputElementType(i) << "; expected bool";
  return success();
}

LogicalResult convertNot(NodeContext &c) {
  if (failed(requireBool(c, 1)))
    return failure();
  return finish(c, compare(c, c.input(0), boolConst(c, false), CompareMode::Equal));
}

LogicalResult convertAnd(NodeContext &c) {
  if (failed(requireBool(c, 2)))
    return failure();
  return finish(c, where(c, c.input(0), c.input(1), boolConst(c, false)));
}

LogicalResult convertOr(NodeContext &c) {
  if (failed(requireBool(c, 2)))
    return failure();
  return finish(c, where(c, c.input(0), boolConst(c, true), c.input(1)));
}

LogicalResult convertXor(NodeContext &c) {
  if (failed(requireBool(c, 2)))
    return failure();
  return finish(c, compare(c, c.input(0), c.input(1), CompareMode::NotEqual));
}

LogicalResult convertIsNaN(NodeContext &c) {
  if (failed(requireInputs(c, 1)) || failed(requireFloat(c, 0)))
    return failure();
  Value x = c.input(0);
  return finish(c, compare(c, x, x, CompareMode::NotEqual));
}

LogicalResult convertIsInf(NodeContext &c) {
  auto pos = c.attrInt("detect_positive", 1);
  auto neg = c.attrInt("detect_negative", 1);
  if (failed(pos) || failed(neg) || failed(requireInputs(c, 1)) ||
      failed(requireFloat(c, 0)))
    return failure();
  Value x = c.input(0);
  double inf = std::numeric_limits<double>::infinity();
  Value pinf = scalarLike(c, x, inf, "inf");
  if (*pos && *neg)
    return finish(c, compare(c, unary<AbsOp>(c, x), pinf, CompareMode::Equal));
  if (*pos)
    return finish(c, compare(c, x, pinf, CompareMode::Equal));
  if (*neg)
    return finish(c, compare(c, x, scalarLike(c, x, -inf, "ninf"), CompareMode::Equal));
  return finish(c, compare(c, x, pinf, CompareMode::Greater)); // always false
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

/// Validates `saturate` (opset >= 19; only affects float8 targets) and
/// `round_mode` (opset >= 24; only affects float8e8m0, which Strata does not
/// support); returns `saturate`.
struct CastAttrs {
  bool saturate;
  RoundMode roundMode;
};

FailureOr<CastAttrs> checkCastAttrs(NodeContext &c) {
  auto sat = c.attrInt("saturate", 1);
  auto round = c.attrString("round_mode", "up");
  if (failed(sat) || failed(round))
    return failure();
  if (*sat != 0 && *sat != 1)
    return c.error() << "attribute 'saturate' = " << *sat
                     << " must be 0 or 1";
  if (*round != "up" && *round != "down" && *round != "nearest")
    return c.error() << "attribute 'round_mode' = '" << *round
                     << "' must be 'up', 'down' or 'nearest'";
  return CastAttrs{*sat == 1, *symbolizeRoundMode(*round)};
}

/// top.Cast of `v` to `to`; `saturate` matters for float8 results only,
/// the rounding mode for float8e8m0 ones.
Value castSaturating(NodeContext &c, Value v, Type to, const CastAttrs &a) {
  if (!v || !to || elemType(v) == to)
    return v;
  return make<CastOp>(c, to, v, a.saturate, a.roundMode);
}

LogicalResult convertCast(NodeContext &c) {
  auto to = c.attrIntOpt("to");
  if (failed(to) || failed(requireInputs(c, 1)))
    return failure();
  auto attrs = checkCastAttrs(c);
  if (failed(attrs))
    return failure();
  if (!*to)
    return c.error() << "attribute 'to' is required";
  Type t = elementTypeFromOnnx(static_cast<int32_t>(**to), c.context());
  if (!t)
    return c.error() << "attribute 'to' = " << **to << " ("
                     << onnxTypeName(static_cast<int32_t>(**to))
                     << ") is not a supported target type";
  return finish(c, castSaturating(c, c.input(0), t, *attrs));
}

LogicalResult convertCastLike(NodeContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  auto attrs = checkCastAttrs(c);
  if (failed(attrs))
    return failure();
  return finish(c, castSaturating(c, c.input(0), c.inputElementType(1),
                                  *attrs));
}

//===----------------------------------------------------------------------===//
// Sign and rounding
//===----------------------------------------------------------------------===//

LogicalResult convertSign(NodeContext &c) {
  if (failed(requireInputs(c, 1)))
    return failure();
  Value x = c.input(0);
  Value zero = scalarLike(c, x, 0, "zero");
  // Floats: x * 0 keeps NaN (numpy.sign(nan) is nan); ints: 0.
  Type t = elemType(x);
  Value rest = isa_and_nonnull<FloatType>(t) ? binary<MulOp>(c, x, zero) : zero;
  // Unsigned integers are never negative (and have no -1 constant).
  Value negOrRest = t && t.isUnsignedInteger()
                        ? rest
                        : where(c, compare(c, x, zero, CompareMode::Less),
                                scalarLike(c, x, -1, "minus_one"), rest);
  return finish(c, where(c, compare(c, x, zero, CompareMode::Greater),
                         scalarLike(c, x, 1, "one"), negOrRest));
}

/// x truncated toward zero through i64; exact for |x| < 2^mantissa.
Value truncate(NodeContext &c, Value x) {
  Type i64 = c.builder().getIntegerType(64);
  return castTo(c, castTo(c, x, i64), elemType(x));
}

/// Applies `fn` where |x| < 2^(mantissa bits), where floats can have a
/// fraction; elsewhere (large values, inf, NaN) x is already integral.
template <typename Fn> LogicalResult roundWith(NodeContext &c, Fn fn) {
  if (failed(requireInputs(c, 1)))
    return failure();
  auto ft = requireFloat(c, 0);
  if (failed(ft))
    return failure();
  Value x = c.input(0);
  double bound = std::ldexp(1.0, ft->getFPMantissaWidth() - 1);
  Value small = compare(c, unary<AbsOp>(c, x),
                        scalarLike(c, x, bound, "bound"), CompareMode::Less);
  return finish(c, where(c, small, fn(x, truncate(c, x)), x));
}

LogicalResult convertFloor(NodeContext &c) {
  return roundWith(c, [&](Value x, Value t) {
    Value down = binary<SubOp>(c, t, scalarLike(c, x, 1, "one"));
    return where(c, compare(c, t, x, CompareMode::Greater), down, t);
  });
}

LogicalResult convertCeil(NodeContext &c) {
  return roundWith(c, [&](Value x, Value t) {
    Value up = binary<AddOp>(c, t, scalarLike(c, x, 1, "one"));
    return where(c, compare(c, t, x, CompareMode::Less), up, t);
  });
}

/// Round half to even: away from t = trunc(x) when |x - t| > 0.5, or when
/// it is 0.5 and t is odd.
LogicalResult convertRound(NodeContext &c) {
  return roundWith(c, [&](Value x, Value t) {
    Value half = scalarLike(c, x, 0.5, "half");
    Value frac = unary<AbsOp>(c, binary<SubOp>(c, x, t)); // exact
    Value halfT = binary<MulOp>(c, t, half);               // exact
    Value odd = compare(c, halfT, truncate(c, halfT), CompareMode::NotEqual);
    Value tie = where(c, compare(c, frac, half, CompareMode::Equal), odd,
                      boolConst(c, false));
    Value away = where(c, compare(c, frac, half, CompareMode::Greater),
                       boolConst(c, true), tie);
    Value step = where(c, compare(c, x, scalarLike(c, x, 0, "zero"), CompareMode::Less),
                       scalarLike(c, x, -1, "minus_one"),
                       scalarLike(c, x, 1, "one"));
    return where(c, away, binary<AddOp>(c, t, step), t);
  });
}

const ConverterEntry kElementwise[] = {
    {"Add", convertBinary<AddOp>},
    {"Sub", convertBinary<SubOp>},
    {"Mul", convertBinary<MulOp>},
    {"Div", convertBinary<DivOp>},
    {"Pow", convertPow},
    {"Max", convertVariadic<MaxOp>},
    {"Min", convertVariadic<MinOp>},
    {"Sum", convertVariadic<AddOp>},
    {"Mean", convertMean},
    {"Exp", convertUnary<ExpOp>},
    {"Log", convertUnary<LogOp>},
    {"Sqrt", convertUnary<SqrtOp>},
    {"Abs", convertUnary<AbsOp>},
    {"Neg", convertUnary<NegOp>},
    {"Erf", convertUnary<ErfOp>},
    {"Reciprocal", convertReciprocal},
    {"Mod", convertMod},
    {"Where", convertWhere},
    {"Equal", convertCompare<CompareMode::Equal>},
    {"Greater", convertCompare<CompareMode::Greater>},
    {"GreaterOrEqual", convertCompare<CompareMode::GreaterOrEqual>},
    {"Less", convertCompare<CompareMode::Less>},
    {"LessOrEqual", convertCompare<CompareMode::LessOrEqual>},
    {"Not", convertNot},
    {"And", convertAnd},
    {"Or", convertOr},
    {"Xor", convertXor},
    {"IsNaN", convertIsNaN},
    {"IsInf", convertIsInf},
    {"Cast", convertCast},
    {"CastLike", convertCastLike},
    {"Sign", convertSign},
    {"Floor", convertFloor},
    {"Ceil", convertCeil},
    {"Round", convertRound},
};
} // namespace

ArrayRef<ConverterEntry> elementwiseConverters() { return kElementwise; }

} // namespace strata::onnx_import
