//===- Elementwise.cpp - Top elementwise ops to linalg.generic ------------===//
//
// Every elementwise Top op becomes one linalg.generic over the result's
// shape with numpy broadcasting (buildElementwise) and a scalar body of
// arith/math ops. Integer signedness comes from the Top-side types: the
// converted tensors are signless.
//
// Float arithmetic runs in f32 for f16/bf16 elements (extf, compute,
// truncf) and in the element type for f32/f64, as docs/TopOps.md states.
// Integer division, shifts and float-to-integer casts never produce poison
// or trap: see docs/codegen-elementwise.md for the values they define.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;

namespace strata::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// Whether a (Top-side) element type is an unsigned integer or `i1`: both
/// compare, extend and convert as unsigned (the interpreter reads `i1` as
/// 0 or 1).
bool isUnsignedOrBool(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && (i.isUnsigned() || i.getWidth() == 1);
}

/// Element types the patterns compute on: integers and the four float types
/// LLVM has. The float8/float4 types and quantized types fail the pattern.
bool isSupportedElement(Type t) {
  return isa<IntegerType>(t) || t.isF16() || t.isBF16() || t.isF32() ||
         t.isF64();
}

/// The type float arithmetic on `t` runs in: f32 for f16/bf16, else `t`.
Type computeType(Type t) {
  if (isa<FloatType>(t) && t.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(t.getContext());
  return t;
}

/// `x` extended to its compute type (a no-op for f32, f64 and integers).
Value toCompute(OpBuilder &b, Location l, Value x) {
  Type c = computeType(x.getType());
  if (c == x.getType())
    return x;
  return arith::ExtFOp::create(b, l, c, x);
}

/// A compute-type float `x` rounded (to nearest even) to element type `t`.
Value fromCompute(OpBuilder &b, Location l, Value x, Type t) {
  if (x.getType() == t)
    return x;
  return arith::TruncFOp::create(b, l, t, x);
}

Value intCst(OpBuilder &b, Location l, Type t, const APInt &v) {
  return arith::ConstantOp::create(b, l, t, b.getIntegerAttr(t, v));
}

/// A float constant, or an integer one holding the low bits of `v` (so -1
/// is all ones in any width).
Value cst(OpBuilder &b, Location l, Type t, double v) {
  if (auto i = dyn_cast<IntegerType>(t))
    return intCst(b, l, t,
                  APInt(i.getWidth(), static_cast<int64_t>(v),
                        /*isSigned=*/true, /*implicitTrunc=*/true));
  return scalarConstant(b, l, t, v);
}

Value select(OpBuilder &b, Location l, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, l, c, x, y);
}

Value cmpf(OpBuilder &b, Location l, arith::CmpFPredicate p, Value x,
           Value y) {
  return arith::CmpFOp::create(b, l, p, x, y);
}

Value cmpi(OpBuilder &b, Location l, arith::CmpIPredicate p, Value x,
           Value y) {
  return arith::CmpIOp::create(b, l, p, x, y);
}

/// `x < 0 ? 0 : x` on a value of its element type (the interpreter's relu:
/// NaN and -0 stay); `x` itself for unsigned integers and `i1`.
Value reluExact(OpBuilder &b, Location l, Value x, bool isUnsigned) {
  Type t = x.getType();
  if (isUnsigned || t.isInteger(1))
    return x;
  if (isa<FloatType>(t)) {
    Value c = toCompute(b, l, x);
    Value neg =
        cmpf(b, l, arith::CmpFPredicate::OLT, c, cst(b, l, c.getType(), 0));
    return select(b, l, neg, cst(b, l, t, 0), x);
  }
  return arith::MaxSIOp::create(b, l, x, cst(b, l, t, 0));
}

/// numpy.maximum / numpy.minimum on floats: NaN in either operand gives
/// NaN; otherwise `x < y ? y : x` (max) and `y < x ? y : x` (min), as the
/// interpreter's std::max / std::min (so max(-0, +0) is -0).
Value nanMaxMin(OpBuilder &b, Location l, Value x, Value y, bool isMax) {
  Value pick = isMax ? cmpf(b, l, arith::CmpFPredicate::OLT, x, y)
                     : cmpf(b, l, arith::CmpFPredicate::OLT, y, x);
  Value r = select(b, l, pick, y, x); // NaN x: the compare is false: x
  Value yNaN = cmpf(b, l, arith::CmpFPredicate::UNO, y, y);
  return select(b, l, yNaN, y, r);
}

/// The logistic function `1 / (1 + exp(-x))`.
Value sigmoid(OpBuilder &b, Location l, Value x) {
  Type t = x.getType();
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  Value d = arith::AddFOp::create(b, l, cst(b, l, t, 1), e);
  return arith::DivFOp::create(b, l, cst(b, l, t, 1), d);
}

/// `lo <= v <= hi` clamping with NaN kept: `v < lo ? lo : (hi < v ? hi : v)`.
Value clampKeepNaN(OpBuilder &b, Location l, Value v, double lo, double hi) {
  Type t = v.getType();
  Value loC = cst(b, l, t, lo), hiC = cst(b, l, t, hi);
  Value r = select(b, l, cmpf(b, l, arith::CmpFPredicate::OLT, hiC, v), hiC, v);
  return select(b, l, cmpf(b, l, arith::CmpFPredicate::OLT, v, loC), loC, r);
}

/// `max(0, min(1, alpha * x + beta))` with NaN kept (ONNX HardSigmoid).
Value hardSigmoid(OpBuilder &b, Location l, Value x, double alpha,
                  double beta) {
  Type t = x.getType();
  Value v = arith::AddFOp::create(
      b, l, arith::MulFOp::create(b, l, cst(b, l, t, alpha), x),
      cst(b, l, t, beta));
  return clampKeepNaN(b, l, v, 0.0, 1.0);
}

/// Applies `fn` to float `x` in its compute type and rounds the result back
/// to `x`'s type.
template <typename Fn>
Value mapFloat(OpBuilder &b, Location l, Value x, Fn fn) {
  return fromCompute(b, l, fn(toCompute(b, l, x)), x.getType());
}

//===----------------------------------------------------------------------===//
// The generic pattern
//===----------------------------------------------------------------------===//

/// Checks what buildElementwise needs: every operand a static ranked tensor
/// broadcasting to `result` (dims aligned from the right, each equal or 1),
/// and element types the scalar bodies handle.
LogicalResult checkOperands(Operation *op, ValueRange operands,
                            RankedTensorType result,
                            ConversionPatternRewriter &rewriter) {
  if (!isSupportedElement(result.getElementType()))
    return rewriter.notifyMatchFailure(op, "unsupported result element type");
  for (Value v : operands) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "operand is not a static "
                                             "ranked tensor");
    if (!isSupportedElement(t.getElementType()))
      return rewriter.notifyMatchFailure(op,
                                         "unsupported operand element type");
    int64_t offset = result.getRank() - t.getRank();
    if (offset < 0)
      return rewriter.notifyMatchFailure(op, "operand rank exceeds the "
                                             "result's");
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (t.getDimSize(d) != 1 &&
          t.getDimSize(d) != result.getDimSize(d + offset))
        return rewriter.notifyMatchFailure(op, "operand shape does not "
                                               "broadcast to the result's");
  }
  return success();
}

/// The scalar function of an elementwise op: the op (for attributes and
/// Top-side types), the operands' scalars (converted, signless types) and
/// the converted result element type.
template <typename OpTy>
using ScalarFn = Value (*)(OpTy, OpBuilder &, Location, ValueRange, Type);

/// One linalg.generic computing `Fn` over the broadcast operands.
template <typename OpTy, ScalarFn<OpTy> Fn>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *this->getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    ValueRange operands = adaptor.getOperands();
    if (failed(checkOperands(op, operands, *type, rewriter)))
      return failure();
    Value r = buildElementwise(
        rewriter, op.getLoc(), *type, operands,
        [&](OpBuilder &b, Location l, ValueRange xs, Type elem) {
          return Fn(op, b, l, xs, elem);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Binary arithmetic (with do_relu)
//===----------------------------------------------------------------------===//

/// The scalar function of a binary op on two compute-type floats or two
/// integers.
using BinaryFn = Value (*)(OpBuilder &, Location, Value, Value,
                           bool isUnsigned);

Value addFn(OpBuilder &b, Location l, Value x, Value y, bool) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, x, y);
  return arith::AddIOp::create(b, l, x, y);
}
Value subFn(OpBuilder &b, Location l, Value x, Value y, bool) {
  if (isa<FloatType>(x.getType()))
    return arith::SubFOp::create(b, l, x, y);
  return arith::SubIOp::create(b, l, x, y);
}
Value mulFn(OpBuilder &b, Location l, Value x, Value y, bool) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, l, x, y);
  return arith::MulIOp::create(b, l, x, y);
}

/// Float division is IEEE. Integer division truncates toward zero; it never
/// traps: `x / 0` is 0 and `MIN / -1` wraps to MIN (as `0 - x`), computed
/// with a divisor of 1 in place of 0 and -1.
Value divFn(OpBuilder &b, Location l, Value x, Value y, bool isUnsigned) {
  Type t = x.getType();
  if (isa<FloatType>(t))
    return arith::DivFOp::create(b, l, x, y);
  Value zero = cst(b, l, t, 0), one = cst(b, l, t, 1);
  Value isZero = cmpi(b, l, arith::CmpIPredicate::eq, y, zero);
  if (isUnsigned) {
    Value q =
        arith::DivUIOp::create(b, l, x, select(b, l, isZero, one, y));
    return select(b, l, isZero, zero, q);
  }
  Value isMinusOne = cmpi(b, l, arith::CmpIPredicate::eq, y, cst(b, l, t, -1));
  Value unsafe = arith::OrIOp::create(b, l, isZero, isMinusOne);
  Value q = arith::DivSIOp::create(b, l, x, select(b, l, unsafe, one, y));
  Value r =
      select(b, l, isMinusOne, arith::SubIOp::create(b, l, zero, x), q);
  return select(b, l, isZero, zero, r);
}

Value maxFn(OpBuilder &b, Location l, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return nanMaxMin(b, l, x, y, /*isMax=*/true);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, l, x, y);
  return arith::MaxSIOp::create(b, l, x, y);
}
Value minFn(OpBuilder &b, Location l, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return nanMaxMin(b, l, x, y, /*isMax=*/false);
  if (isUnsigned)
    return arith::MinUIOp::create(b, l, x, y);
  return arith::MinSIOp::create(b, l, x, y);
}

/// C `pow` (the verifier only accepts floats).
Value powFn(OpBuilder &b, Location l, Value x, Value y, bool) {
  return math::PowFOp::create(b, l, x, y);
}

/// A binary Top op (Add, Sub, ...): `Fn` in the compute type, rounded to
/// the element type, then the `do_relu` epilogue on the rounded value (as
/// the interpreter applies it to the result tensor).
template <typename OpTy, BinaryFn Fn>
Value binaryScalar(OpTy op, OpBuilder &b, Location l, ValueRange xs, Type) {
  bool isUnsigned = isUnsignedOrBool(getElementTypeOrSelf(op.getOutput()));
  Value v;
  if (isa<FloatType>(xs[0].getType()))
    v = fromCompute(
        b, l,
        Fn(b, l, toCompute(b, l, xs[0]), toCompute(b, l, xs[1]), isUnsigned),
        xs[0].getType());
  else
    v = Fn(b, l, xs[0], xs[1], isUnsigned);
  return op.getDoRelu() ? reluExact(b, l, v, isUnsigned) : v;
}

//===----------------------------------------------------------------------===//
// Unary ops on floats and integers: Relu, Abs, Neg
//===----------------------------------------------------------------------===//

Value reluScalarOp(top::ReluOp op, OpBuilder &b, Location l, ValueRange xs,
                   Type) {
  return reluExact(b, l, xs[0],
                   isUnsignedOrBool(getElementTypeOrSelf(op.getOutput())));
}

/// |x|; the minimum signed integer wraps to itself; unsigned is `x`.
Value absScalar(top::AbsOp op, OpBuilder &b, Location l, ValueRange xs,
                Type) {
  Value x = xs[0];
  Type t = x.getType();
  if (isa<FloatType>(t))
    return mapFloat(b, l, x,
                    [&](Value c) { return math::AbsFOp::create(b, l, c); });
  if (isUnsignedOrBool(getElementTypeOrSelf(op.getOutput())))
    return x;
  Value zero = cst(b, l, t, 0);
  Value neg = cmpi(b, l, arith::CmpIPredicate::slt, x, zero);
  return select(b, l, neg, arith::SubIOp::create(b, l, zero, x), x);
}

/// -x; integers wrap around (`0 - x`).
Value negScalar(top::NegOp, OpBuilder &b, Location l, ValueRange xs, Type) {
  Value x = xs[0];
  if (isa<FloatType>(x.getType()))
    return mapFloat(b, l, x,
                    [&](Value c) { return arith::NegFOp::create(b, l, c); });
  return arith::SubIOp::create(b, l, cst(b, l, x.getType(), 0), x);
}

//===----------------------------------------------------------------------===//
// Float-only unary functions
//===----------------------------------------------------------------------===//

/// A float unary op whose function is the single math op `MathOp`.
template <typename OpTy, typename MathOp>
Value mathScalar(OpTy, OpBuilder &b, Location l, ValueRange xs, Type) {
  return mapFloat(b, l, xs[0],
                  [&](Value c) -> Value { return MathOp::create(b, l, c); });
}

Value leakyReluScalar(top::LeakyReluOp op, OpBuilder &b, Location l,
                      ValueRange xs, Type) {
  double alpha = op.getAlpha().convertToDouble();
  return mapFloat(b, l, xs[0], [&](Value x) {
    Type t = x.getType();
    Value scaled = arith::MulFOp::create(b, l, cst(b, l, t, alpha), x);
    Value nonNeg = cmpf(b, l, arith::CmpFPredicate::OGE, x, cst(b, l, t, 0));
    return select(b, l, nonNeg, x, scaled); // NaN: alpha * NaN
  });
}

Value clipScalar(top::ClipOp op, OpBuilder &b, Location l, ValueRange xs,
                 Type) {
  double lo = op.getMin().convertToDouble();
  double hi = op.getMax().convertToDouble();
  return mapFloat(b, l, xs[0],
                  [&](Value x) { return clampKeepNaN(b, l, x, lo, hi); });
}

Value sigmoidScalar(top::SigmoidOp, OpBuilder &b, Location l, ValueRange xs,
                    Type) {
  return mapFloat(b, l, xs[0], [&](Value x) { return sigmoid(b, l, x); });
}

/// `0.5 * x * (1 + erf(x / sqrt(2)))`, or with `approximate = tanh`
/// `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`, computed
/// without the cancellation of `1 + erf` / `1 + tanh` near -1 (which costs
/// f32 most of its digits for x < -3): as `0.5 * x * erfc(-x / sqrt(2))`
/// and `x / (1 + exp(-2 * u))` (since `1 + tanh(u) = 2 * sigmoid(2u)`).
Value geluScalar(top::GeluOp op, OpBuilder &b, Location l, ValueRange xs,
                 Type) {
  bool useTanh = op.getApproximate() == top::GeluApproximation::Tanh;
  return mapFloat(b, l, xs[0], [&](Value x) -> Value {
    Type t = x.getType();
    if (useTanh) {
      Value x3 =
          arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, x, x), x);
      Value s = arith::AddFOp::create(
          b, l, x, arith::MulFOp::create(b, l, cst(b, l, t, 0.044715), x3));
      Value minus2u = arith::MulFOp::create(
          b, l, cst(b, l, t, -2.0 * std::sqrt(2.0 / M_PI)), s);
      Value d = arith::AddFOp::create(b, l, cst(b, l, t, 1),
                                      math::ExpOp::create(b, l, minus2u));
      return arith::DivFOp::create(b, l, x, d);
    }
    Value c = math::ErfcOp::create(
        b, l, arith::MulFOp::create(b, l, x, cst(b, l, t, -M_SQRT1_2)));
    Value half = arith::MulFOp::create(b, l, cst(b, l, t, 0.5), x);
    return arith::MulFOp::create(b, l, half, c);
  });
}

Value siluScalar(top::SiLUOp, OpBuilder &b, Location l, ValueRange xs, Type) {
  return mapFloat(b, l, xs[0], [&](Value x) {
    return arith::MulFOp::create(b, l, x, sigmoid(b, l, x));
  });
}

Value hardSigmoidScalar(top::HardSigmoidOp op, OpBuilder &b, Location l,
                        ValueRange xs, Type) {
  double alpha = op.getAlpha().convertToDouble();
  double beta = op.getBeta().convertToDouble();
  return mapFloat(b, l, xs[0],
                  [&](Value x) { return hardSigmoid(b, l, x, alpha, beta); });
}

Value hardSwishScalar(top::HardSwishOp, OpBuilder &b, Location l,
                      ValueRange xs, Type) {
  return mapFloat(b, l, xs[0], [&](Value x) {
    return arith::MulFOp::create(b, l, x,
                                 hardSigmoid(b, l, x, 1.0 / 6.0, 0.5));
  });
}

Value rsqrtScalar(top::RsqrtOp, OpBuilder &b, Location l, ValueRange xs,
                  Type) {
  return mapFloat(b, l, xs[0], [&](Value x) {
    return arith::DivFOp::create(b, l, cst(b, l, x.getType(), 1),
                                 math::SqrtOp::create(b, l, x));
  });
}

/// `x >= 0 ? x : slope * x` with `slope` broadcast to `x`.
Value preluScalar(top::PReluOp, OpBuilder &b, Location l, ValueRange xs,
                  Type) {
  Type t = xs[0].getType();
  Value x = toCompute(b, l, xs[0]), s = toCompute(b, l, xs[1]);
  Value nonNeg =
      cmpf(b, l, arith::CmpFPredicate::OGE, x, cst(b, l, x.getType(), 0));
  Value r = select(b, l, nonNeg, x, arith::MulFOp::create(b, l, s, x));
  return fromCompute(b, l, r, t);
}

/// C `fmod`: exact, so computing in f32 for f16/bf16 and rounding back
/// gives the result of the element type.
Value fmodScalar(top::FmodOp, OpBuilder &b, Location l, ValueRange xs, Type) {
  Type t = xs[0].getType();
  return fromCompute(b, l,
                     arith::RemFOp::create(b, l, toCompute(b, l, xs[0]),
                                           toCompute(b, l, xs[1])),
                     t);
}

//===----------------------------------------------------------------------===//
// Where, Compare
//===----------------------------------------------------------------------===//

Value whereScalar(top::WhereOp, OpBuilder &b, Location l, ValueRange xs,
                  Type) {
  return select(b, l, xs[0], xs[1], xs[2]);
}

/// Floats compare ordered (false with NaN) except NotEqual (true with NaN);
/// unsigned integers and `i1` compare unsigned.
Value compareScalar(top::CompareOp op, OpBuilder &b, Location l,
                    ValueRange xs, Type) {
  top::CompareMode mode = op.getMode();
  if (isa<FloatType>(xs[0].getType())) {
    using P = arith::CmpFPredicate;
    P p = P::UNE;
    switch (mode) {
    case top::CompareMode::Equal: p = P::OEQ; break;
    case top::CompareMode::Greater: p = P::OGT; break;
    case top::CompareMode::GreaterOrEqual: p = P::OGE; break;
    case top::CompareMode::Less: p = P::OLT; break;
    case top::CompareMode::LessOrEqual: p = P::OLE; break;
    case top::CompareMode::NotEqual: p = P::UNE; break;
    }
    return cmpf(b, l, p, toCompute(b, l, xs[0]), toCompute(b, l, xs[1]));
  }
  bool u = isUnsignedOrBool(getElementTypeOrSelf(op.getLhs()));
  using P = arith::CmpIPredicate;
  P p = P::ne;
  switch (mode) {
  case top::CompareMode::Equal: p = P::eq; break;
  case top::CompareMode::Greater: p = u ? P::ugt : P::sgt; break;
  case top::CompareMode::GreaterOrEqual: p = u ? P::uge : P::sge; break;
  case top::CompareMode::Less: p = u ? P::ult : P::slt; break;
  case top::CompareMode::LessOrEqual: p = u ? P::ule : P::sle; break;
  case top::CompareMode::NotEqual: p = P::ne; break;
  }
  return cmpi(b, l, p, xs[0], xs[1]);
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

/// Float to integer as the interpreter converts: truncation toward zero,
/// NaN to 0, values at or beyond the type's range saturated; to a 4- or
/// 2-bit type the low bits of the truncated value (NaN and Inf give 0).
/// `x` is in its compute type; the conversion only ever sees in-range
/// values (no poison).
Value floatToInt(OpBuilder &b, Location l, Value x, IntegerType to,
                 bool toUnsigned) {
  Type ft = x.getType();
  unsigned w = to.getWidth();
  Value zeroF = cst(b, l, ft, 0);
  if (w < 8) {
    // fmod(trunc(x), 256) == trunc(fmod(x, 256)), and fptosi truncates.
    Value finite =
        cmpf(b, l, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, l, x),
             cst(b, l, ft, INFINITY));
    Value m = arith::RemFOp::create(b, l, x, cst(b, l, ft, 256));
    Value safe = select(b, l, finite, m, zeroF);
    Type i32 = b.getI32Type();
    Value i = arith::FPToSIOp::create(b, l, i32, safe);
    return arith::TruncIOp::create(b, l, to, i);
  }
  APInt minI = toUnsigned ? APInt::getMinValue(w) : APInt::getSignedMinValue(w);
  APInt maxI = toUnsigned ? APInt::getMaxValue(w) : APInt::getSignedMaxValue(w);
  // The bounds as the interpreter compares them (C++ double of the limit),
  // rounded to the compute type: the nearest float to the bound, which
  // decides `x <= lo` / `x >= hi` alike for every float x.
  double lo = toUnsigned ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi = toUnsigned ? maxI.roundToDouble(false) : maxI.roundToDouble(true);
  Value tooLow = cmpf(b, l, arith::CmpFPredicate::OLE, x, cst(b, l, ft, lo));
  Value tooHigh = cmpf(b, l, arith::CmpFPredicate::OGE, x, cst(b, l, ft, hi));
  Value isNaN = cmpf(b, l, arith::CmpFPredicate::UNO, x, x);
  Value bad = arith::OrIOp::create(
      b, l, isNaN, arith::OrIOp::create(b, l, tooLow, tooHigh));
  Value safe = select(b, l, bad, zeroF, x);
  Value conv = toUnsigned
                   ? Value(arith::FPToUIOp::create(b, l, to, safe))
                   : Value(arith::FPToSIOp::create(b, l, to, safe));
  Value r = select(b, l, tooLow, intCst(b, l, to, minI), conv);
  return select(b, l, tooHigh, intCst(b, l, to, maxI), r);
}

/// Integer (or `i1`) to float: through f64 as the interpreter (so 64-bit
/// integers may round twice), then to f16/bf16 through f32.
Value intToFloat(OpBuilder &b, Location l, Value x, bool fromUnsigned,
                 FloatType to) {
  auto conv = [&](Type t) -> Value {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, l, t, x);
    return arith::SIToFPOp::create(b, l, t, x);
  };
  if (to.isF64())
    return conv(to);
  Type f32 = b.getF32Type();
  // Up to 32 bits the double is exact: one rounding to f32 either way.
  if (x.getType().getIntOrFloatBitWidth() <= 32)
    return fromCompute(b, l, conv(f32), to);
  // The explicit rounding mode keeps the canonicalizer from folding
  // truncf(sitofp) into a single (different) rounding.
  Value v = arith::TruncFOp::create(
      b, l, f32, conv(b.getF64Type()),
      arith::RoundingModeAttr::get(b.getContext(),
                                   arith::RoundingMode::to_nearest_even),
      /*fastmath=*/nullptr);
  return fromCompute(b, l, v, to);
}

/// Float to float: widening is exact; narrowing rounds to nearest even, to
/// f16/bf16 through f32 (as the interpreter: f64 -> f32 -> f16).
Value floatToFloat(OpBuilder &b, Location l, Value x, FloatType to) {
  Type from = x.getType();
  if (from == to)
    return x;
  if (to.isF64())
    return arith::ExtFOp::create(b, l, to, x);
  Value v = from.isF64()
                ? Value(arith::TruncFOp::create(b, l, b.getF32Type(), x))
                : toCompute(b, l, x);
  return fromCompute(b, l, v, to);
}

/// Cast semantics of docs/TopOps.md between the supported element types
/// (`from`/`to` are the Top-side types, for signedness).
Value castScalar(top::CastOp op, OpBuilder &b, Location l, ValueRange xs,
                 Type dst) {
  Value x = xs[0];
  Type from = getElementTypeOrSelf(op.getInput());
  Type to = getElementTypeOrSelf(op.getOutput());
  bool fromUnsigned = isUnsignedOrBool(from);
  auto dstInt = dyn_cast<IntegerType>(dst);
  if (isa<IntegerType>(x.getType())) {
    unsigned fw = x.getType().getIntOrFloatBitWidth();
    if (!dstInt)
      return intToFloat(b, l, x, fromUnsigned, cast<FloatType>(dst));
    unsigned tw = dstInt.getWidth();
    if (tw == 1 && fw != 1)
      return cmpi(b, l, arith::CmpIPredicate::ne, x,
                  cst(b, l, x.getType(), 0));
    if (tw == fw)
      return x; // same bits, e.g. i8 <-> ui8
    if (tw < fw)
      return arith::TruncIOp::create(b, l, dst, x);
    if (fromUnsigned)
      return arith::ExtUIOp::create(b, l, dst, x);
    return arith::ExtSIOp::create(b, l, dst, x);
  }
  if (!dstInt)
    return floatToFloat(b, l, x, cast<FloatType>(dst));
  Value c = toCompute(b, l, x);
  if (dstInt.getWidth() == 1) // NaN is true
    return cmpf(b, l, arith::CmpFPredicate::UNE, c,
                cst(b, l, c.getType(), 0));
  return floatToInt(b, l, c, dstInt, isUnsignedOrBool(to));
}

//===----------------------------------------------------------------------===//
// Bitwise ops
//===----------------------------------------------------------------------===//

template <typename OpTy, typename ArithOp>
Value bitwiseScalar(OpTy, OpBuilder &b, Location l, ValueRange xs, Type) {
  return ArithOp::create(b, l, xs[0], xs[1]);
}

Value bitwiseNotScalar(top::BitwiseNotOp, OpBuilder &b, Location l,
                       ValueRange xs, Type) {
  return arith::XOrIOp::create(b, l, xs[0], cst(b, l, xs[0].getType(), -1));
}

/// Logical shift of unsigned integers; a shift by the bit width or more
/// gives 0 (computed with a shift amount of 0, then replaced).
Value bitShiftScalar(top::BitShiftOp op, OpBuilder &b, Location l,
                     ValueRange xs, Type) {
  Value x = xs[0], s = xs[1];
  Type t = x.getType();
  Value zero = cst(b, l, t, 0);
  Value inRange = cmpi(b, l, arith::CmpIPredicate::ult, s,
                       cst(b, l, t, t.getIntOrFloatBitWidth()));
  Value amount = select(b, l, inRange, s, zero);
  Value r = op.getDirection() == top::ShiftDirection::Left
                ? Value(arith::ShLIOp::create(b, l, x, amount))
                : Value(arith::ShRUIOp::create(b, l, x, amount));
  return select(b, l, inRange, r, zero);
}

template <typename OpTy, typename MathOp>
using MathLowering = ElementwiseLowering<OpTy, mathScalar<OpTy, MathOp>>;

template <typename OpTy, BinaryFn Fn>
using BinaryLowering = ElementwiseLowering<OpTy, binaryScalar<OpTy, Fn>>;

template <typename OpTy, typename ArithOp>
using BitwiseLowering =
    ElementwiseLowering<OpTy, bitwiseScalar<OpTy, ArithOp>>;

} // namespace

void populateTopToLinalgElementwisePatterns(const TopTypeConverter &converter,
                                            RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      // Binary arithmetic.
      BinaryLowering<top::AddOp, addFn>, BinaryLowering<top::SubOp, subFn>,
      BinaryLowering<top::MulOp, mulFn>, BinaryLowering<top::DivOp, divFn>,
      BinaryLowering<top::MaxOp, maxFn>, BinaryLowering<top::MinOp, minFn>,
      BinaryLowering<top::PowOp, powFn>,
      // Unary ops on floats and integers.
      ElementwiseLowering<top::ReluOp, reluScalarOp>,
      ElementwiseLowering<top::AbsOp, absScalar>,
      ElementwiseLowering<top::NegOp, negScalar>,
      // Activations.
      ElementwiseLowering<top::LeakyReluOp, leakyReluScalar>,
      ElementwiseLowering<top::ClipOp, clipScalar>,
      ElementwiseLowering<top::SigmoidOp, sigmoidScalar>,
      ElementwiseLowering<top::GeluOp, geluScalar>,
      ElementwiseLowering<top::SiLUOp, siluScalar>,
      ElementwiseLowering<top::HardSigmoidOp, hardSigmoidScalar>,
      ElementwiseLowering<top::HardSwishOp, hardSwishScalar>,
      ElementwiseLowering<top::RsqrtOp, rsqrtScalar>,
      ElementwiseLowering<top::PReluOp, preluScalar>,
      MathLowering<top::TanhOp, math::TanhOp>,
      MathLowering<top::ExpOp, math::ExpOp>,
      MathLowering<top::LogOp, math::LogOp>,
      MathLowering<top::SqrtOp, math::SqrtOp>,
      MathLowering<top::ErfOp, math::ErfOp>,
      // Trigonometric and hyperbolic functions, Fmod.
      MathLowering<top::SinOp, math::SinOp>,
      MathLowering<top::CosOp, math::CosOp>,
      MathLowering<top::TanOp, math::TanOp>,
      MathLowering<top::AsinOp, math::AsinOp>,
      MathLowering<top::AcosOp, math::AcosOp>,
      MathLowering<top::AtanOp, math::AtanOp>,
      MathLowering<top::SinhOp, math::SinhOp>,
      MathLowering<top::CoshOp, math::CoshOp>,
      MathLowering<top::AsinhOp, math::AsinhOp>,
      MathLowering<top::AcoshOp, math::AcoshOp>,
      MathLowering<top::AtanhOp, math::AtanhOp>,
      ElementwiseLowering<top::FmodOp, fmodScalar>,
      // Selection, comparison, conversion.
      ElementwiseLowering<top::WhereOp, whereScalar>,
      ElementwiseLowering<top::CompareOp, compareScalar>,
      ElementwiseLowering<top::CastOp, castScalar>,
      // Bitwise ops.
      BitwiseLowering<top::BitwiseAndOp, arith::AndIOp>,
      BitwiseLowering<top::BitwiseOrOp, arith::OrIOp>,
      BitwiseLowering<top::BitwiseXorOp, arith::XOrIOp>,
      ElementwiseLowering<top::BitwiseNotOp, bitwiseNotScalar>,
      ElementwiseLowering<top::BitShiftOp, bitShiftScalar>>(converter, ctx);
}

} // namespace strata::conversion
