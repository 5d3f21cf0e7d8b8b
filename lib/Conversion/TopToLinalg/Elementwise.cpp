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
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>

using namespace mlir;

namespace strata::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// Whether a (Top-side) element type is an unsigned integer or `i1`: both
/// compare, extend and convert as unsigned (the interpreter reads `i1` as
/// 0 or 1); a quantized type by its storage.
bool isUnsignedOrBool(Type t) {
  // Quantized tensors compute on their storage integers.
  if (auto q = dyn_cast<quant::QuantizedType>(t))
    return !q.isSigned();
  auto i = dyn_cast<IntegerType>(t);
  return i && (i.isUnsigned() || i.getWidth() == 1);
}

/// Element types the patterns compute on: integers and the four float types
/// LLVM has. The float8/float4 types and quantized types fail the pattern.
bool isSupportedElement(Type t) {
  return isa<IntegerType>(t) || t.isF16() || t.isBF16() || t.isF32() ||
         t.isF64();
}

/// The float8 / float4 types (ONNX FLOAT8*, FLOAT4E2M1, FLOAT8E8M0): only
/// Cast (in integer arithmetic on their bits) and Where handle them.
bool isSmallFloat(Type t) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType, Float4E2M1FNType, Float8E8M0FNUType>(t);
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

Value cmpf(OpBuilder &b, Location l, arith::CmpFPredicate p, Value x, Value y) {
  return arith::CmpFOp::create(b, l, p, x, y);
}

Value cmpi(OpBuilder &b, Location l, arith::CmpIPredicate p, Value x, Value y) {
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
  // Cast converts float8/float4 bits; Where only moves them.
  bool bitsOnly = isa<top::CastOp, top::WhereOp>(op);
  auto supported = [&](Type t) {
    return isSupportedElement(t) || (bitsOnly && isSmallFloat(t));
  };
  if (!supported(result.getElementType()))
    return rewriter.notifyMatchFailure(op, "unsupported result element type");
  for (Value v : operands) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "operand is not a static "
                                             "ranked tensor");
    if (!supported(t.getElementType()))
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
    Value r =
        buildElementwise(rewriter, op.getLoc(), *type, operands,
                         [&](OpBuilder &b, Location l, ValueRange xs,
                             Type elem) { return Fn(op, b, l, xs, elem); });
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
    Value q = arith::DivUIOp::create(b, l, x, select(b, l, isZero, one, y));
    return select(b, l, isZero, zero, q);
  }
  Value isMinusOne = cmpi(b, l, arith::CmpIPredicate::eq, y, cst(b, l, t, -1));
  Value unsafe = arith::OrIOp::create(b, l, isZero, isMinusOne);
  Value q = arith::DivSIOp::create(b, l, x, select(b, l, unsafe, one, y));
  Value r = select(b, l, isMinusOne, arith::SubIOp::create(b, l, zero, x), q);
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
Value absScalar(top::AbsOp op, OpBuilder &b, Location l, ValueRange xs, Type) {
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

/// `x * scale + offset` as two roundings (no fused multiply-add).
Value scalarAffineScalar(top::ScalarAffineOp op, OpBuilder &b, Location l,
                         ValueRange xs, Type) {
  double scale = op.getScale().convertToDouble();
  double offset = op.getOffset().convertToDouble();
  return mapFloat(b, l, xs[0], [&](Value x) -> Value {
    Type t = x.getType();
    Value scaled = arith::MulFOp::create(b, l, x, cst(b, l, t, scale));
    return arith::AddFOp::create(b, l, scaled, cst(b, l, t, offset));
  });
}

Value hardSwishScalar(top::HardSwishOp, OpBuilder &b, Location l, ValueRange xs,
                      Type) {
  return mapFloat(b, l, xs[0], [&](Value x) {
    return arith::MulFOp::create(b, l, x, hardSigmoid(b, l, x, 1.0 / 6.0, 0.5));
  });
}

Value rsqrtScalar(top::RsqrtOp, OpBuilder &b, Location l, ValueRange xs, Type) {
  return mapFloat(b, l, xs[0], [&](Value x) {
    return arith::DivFOp::create(b, l, cst(b, l, x.getType(), 1),
                                 math::SqrtOp::create(b, l, x));
  });
}

/// `x >= 0 ? x : slope * x` with `slope` broadcast to `x`.
Value preluScalar(top::PReluOp, OpBuilder &b, Location l, ValueRange xs, Type) {
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

Value whereScalar(top::WhereOp, OpBuilder &b, Location l, ValueRange xs, Type) {
  return select(b, l, xs[0], xs[1], xs[2]);
}

/// Floats compare ordered (false with NaN) except NotEqual (true with NaN);
/// unsigned integers and `i1` compare unsigned.
Value compareScalar(top::CompareOp op, OpBuilder &b, Location l, ValueRange xs,
                    Type) {
  top::CompareMode mode = op.getMode();
  if (isa<FloatType>(xs[0].getType())) {
    using P = arith::CmpFPredicate;
    P p = P::UNE;
    switch (mode) {
    case top::CompareMode::Equal:
      p = P::OEQ;
      break;
    case top::CompareMode::Greater:
      p = P::OGT;
      break;
    case top::CompareMode::GreaterOrEqual:
      p = P::OGE;
      break;
    case top::CompareMode::Less:
      p = P::OLT;
      break;
    case top::CompareMode::LessOrEqual:
      p = P::OLE;
      break;
    case top::CompareMode::NotEqual:
      p = P::UNE;
      break;
    }
    return cmpf(b, l, p, toCompute(b, l, xs[0]), toCompute(b, l, xs[1]));
  }
  bool u = isUnsignedOrBool(getElementTypeOrSelf(op.getLhs()));
  using P = arith::CmpIPredicate;
  P p = P::ne;
  switch (mode) {
  case top::CompareMode::Equal:
    p = P::eq;
    break;
  case top::CompareMode::Greater:
    p = u ? P::ugt : P::sgt;
    break;
  case top::CompareMode::GreaterOrEqual:
    p = u ? P::uge : P::sge;
    break;
  case top::CompareMode::Less:
    p = u ? P::ult : P::slt;
    break;
  case top::CompareMode::LessOrEqual:
    p = u ? P::ule : P::sle;
    break;
  case top::CompareMode::NotEqual:
    p = P::ne;
    break;
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
    Value finite = cmpf(b, l, arith::CmpFPredicate::OLT,
                        math::AbsFOp::create(b, l, x), cst(b, l, ft, INFINITY));
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
  Value bad = arith::OrIOp::create(b, l, isNaN,
                                   arith::OrIOp::create(b, l, tooLow, tooHigh));
  Value safe = select(b, l, bad, zeroF, x);
  Value conv = toUnsigned ? Value(arith::FPToUIOp::create(b, l, to, safe))
                          : Value(arith::FPToSIOp::create(b, l, to, safe));
  Value r = select(b, l, tooLow, intCst(b, l, to, minI), conv);
  return select(b, l, tooHigh, intCst(b, l, to, maxI), r);
}

/// f64 `x` rounded to f32 (nearest even). The explicit rounding mode keeps
/// the canonicalizer from folding truncf(sitofp) into a single rounding of
/// the integer, which can differ from the interpreter's two.
Value truncToF32(OpBuilder &b, Location l, Value x) {
  return arith::TruncFOp::create(
      b, l, b.getF32Type(), x,
      arith::RoundingModeAttr::get(b.getContext(),
                                   arith::RoundingMode::to_nearest_even),
      /*fastmath=*/nullptr);
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
  return fromCompute(b, l, truncToF32(b, l, conv(b.getF64Type())), to);
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

/// Bit layout of a float8 / float4 type (as lib/Support/Tensor.cpp): 1 sign
/// bit, `expBits`, `manBits`, and which encodings are special.
struct SmallFloatFormat {
  unsigned expBits, manBits;
  int bias;
  enum Special {
    IEEE, ///< all-ones exponent: Inf (mantissa 0) or NaN (f8E5M2)
    FN,   ///< only S.1111.111 is NaN; no Inf (f8E4M3FN)
    FNUZ, ///< 1.0000.000 (negative zero) is the one NaN; no Inf
    None, ///< no Inf, no NaN (f4E2M1FN)
  } special;

  unsigned width() const { return 1 + expBits + manBits; }
  uint64_t signBit() const { return uint64_t(1) << (expBits + manBits); }
  /// The largest finite magnitude's bits.
  uint64_t maxBits() const {
    uint64_t allOnes = signBit() - 1;
    switch (special) {
    case IEEE:
      return allOnes - (uint64_t(1) << manBits);
    case FN:
      return allOnes - 1;
    case FNUZ:
    case None:
      return allOnes;
    }
    return allOnes;
  }
  double magnitude(uint64_t bits) const {
    uint64_t e = bits >> manBits, m = bits & ((uint64_t(1) << manBits) - 1);
    if (e == 0)
      return std::ldexp(double(m), 1 - bias - int(manBits));
    return std::ldexp(double(m + (uint64_t(1) << manBits)),
                      int(e) - bias - int(manBits));
  }
};

std::optional<SmallFloatFormat> smallFloatFormat(Type t) {
  using F = SmallFloatFormat;
  if (isa<Float8E4M3FNType>(t))
    return F{4, 3, 7, F::FN};
  if (isa<Float8E4M3FNUZType>(t))
    return F{4, 3, 8, F::FNUZ};
  if (isa<Float8E5M2Type>(t))
    return F{5, 2, 15, F::IEEE};
  if (isa<Float8E5M2FNUZType>(t))
    return F{5, 2, 16, F::FNUZ};
  if (isa<Float4E2M1FNType>(t))
    return F{2, 1, 1, F::None};
  return std::nullopt;
}

/// Integer constant `v` of type `t`.
Value bitsCst(OpBuilder &b, Location l, Type t, uint64_t v) {
  return intCst(b, l, t, APInt(t.getIntOrFloatBitWidth(), v));
}

/// A float8/float4/f8E8M0FNU scalar `x` as the exact f32 it denotes (every
/// value of these types is an f32): NaN keeps the sign bit, as the
/// interpreter (ml_dtypes) does; f8E8M0FNU's NaN (0xFF) is +NaN.
Value smallFloatToF32(OpBuilder &b, Location l, Value x) {
  Type t = x.getType();
  unsigned w = t.getIntOrFloatBitWidth();
  Type iw = b.getIntegerType(w), i32 = b.getI32Type();
  Value bits =
      arith::ExtUIOp::create(b, l, i32, arith::BitcastOp::create(b, l, iw, x));
  auto c = [&](uint64_t v) { return bitsCst(b, l, i32, v); };
  auto eq = [&](Value v, uint64_t k) {
    return cmpi(b, l, arith::CmpIPredicate::eq, v, c(k));
  };
  auto toF32 = [&](Value v) -> Value {
    return arith::BitcastOp::create(b, l, b.getF32Type(), v);
  };
  if (isa<Float8E8M0FNUType>(t)) {
    // 2^(bits - 127): the f32 exponent field is `bits`; 0 is 2^-127, an f32
    // subnormal (0x00400000).
    Value pow2 = select(b, l, eq(bits, 0), c(0x00400000),
                        arith::ShLIOp::create(b, l, bits, c(23)));
    return toF32(select(b, l, eq(bits, 0xFF), c(0x7FC00000), pow2));
  }
  SmallFloatFormat f = *smallFloatFormat(t);
  Value sign = arith::AndIOp::create(b, l, bits, c(f.signBit()));
  Value mag = arith::AndIOp::create(b, l, bits, c(f.signBit() - 1));
  Value e = arith::ShRUIOp::create(b, l, mag, c(f.manBits));
  Value m = arith::AndIOp::create(b, l, mag, c((1u << f.manBits) - 1));
  Value sign32 =
      arith::ShLIOp::create(b, l, sign, c(31 - f.expBits - f.manBits));
  // Normal: rebias the exponent, left-align the mantissa.
  Value normal = arith::OrIOp::create(
      b, l,
      arith::ShLIOp::create(
          b, l, arith::AddIOp::create(b, l, e, c(127 - f.bias)), c(23)),
      arith::ShLIOp::create(b, l, m, c(23 - f.manBits)));
  // Subnormal: m * 2^(1 - bias - manBits), exact in f32.
  Value sub = arith::MulFOp::create(
      b, l, arith::UIToFPOp::create(b, l, b.getF32Type(), m),
      cst(b, l, b.getF32Type(), std::ldexp(1.0, 1 - f.bias - int(f.manBits))));
  Value magBits =
      select(b, l, eq(e, 0), arith::BitcastOp::create(b, l, i32, sub), normal);
  Value nanBits = c(0x7FC00000);
  Value isNaN;
  switch (f.special) {
  case SmallFloatFormat::IEEE: {
    uint64_t expOnes = (1u << f.expBits) - 1;
    Value special = eq(e, expOnes);
    isNaN = arith::AndIOp::create(
        b, l, special, cmpi(b, l, arith::CmpIPredicate::ne, m, c(0)));
    magBits = select(b, l, special, c(0x7F800000), magBits); // Inf
    break;
  }
  case SmallFloatFormat::FN:
    isNaN = eq(mag, f.signBit() - 1);
    break;
  case SmallFloatFormat::FNUZ:
    isNaN = eq(bits, f.signBit());
    break;
  case SmallFloatFormat::None:
    break;
  }
  if (isNaN)
    magBits = select(b, l, isNaN, nanBits, magBits);
  return toF32(arith::OrIOp::create(b, l, sign32, magBits));
}

/// `v` (f32 or f64) rounded to a float8/float4 type as the interpreter's
/// doubleToSmallFloat: to nearest even on the exact value; NaN to the
/// type's NaN (f4E2M1FN, without NaN: a zero with the sign flipped); beyond
/// the largest finite value (and Inf) to +-max with `saturate` (always for
/// f4E2M1FN), else to Inf (f8E5M2) or NaN; FNUZ types have no -0.
Value f64ToSmallFloat(OpBuilder &b, Location l, Value v, Type to,
                      bool saturate) {
  SmallFloatFormat f = *smallFloatFormat(to);
  if (f.special == SmallFloatFormat::None)
    saturate = true;
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  if (v.getType() != f64)
    v = arith::ExtFOp::create(b, l, f64, v);
  auto c = [&](uint64_t k) { return bitsCst(b, l, i64, k); };
  auto cf = [&](double k) { return cst(b, l, f64, k); };
  Value vBits = arith::BitcastOp::create(b, l, i64, v);
  Value neg = cmpi(b, l, arith::CmpIPredicate::slt, vBits, c(0));
  Value sign = select(b, l, neg, c(f.signBit()), c(0));
  // Special results.
  Value nanBits;
  switch (f.special) {
  case SmallFloatFormat::IEEE:
    nanBits = arith::OrIOp::create(
        b, l, sign,
        c((f.signBit() - 1) - ((uint64_t(1) << (f.manBits - 1)) - 1)));
    break;
  case SmallFloatFormat::FN:
    nanBits = arith::OrIOp::create(b, l, sign, c(f.signBit() - 1));
    break;
  case SmallFloatFormat::FNUZ:
    nanBits = c(f.signBit());
    break;
  case SmallFloatFormat::None:
    nanBits = select(b, l, neg, c(0), c(f.signBit()));
    break;
  }
  Value overflowBits;
  if (saturate)
    overflowBits = arith::OrIOp::create(b, l, sign, c(f.maxBits()));
  else if (f.special == SmallFloatFormat::IEEE)
    overflowBits = arith::OrIOp::create(
        b, l, sign, c((f.signBit() - 1) & ~((uint64_t(1) << f.manBits) - 1)));
  else
    overflowBits = nanBits;
  Value zeroBits = f.special == SmallFloatFormat::FNUZ ? c(0) : sign;
  // Round |v| to a multiple of the quantum of its binade (or the subnormal
  // quantum): exact scaling by powers of two, then roundeven.
  Value a = math::AbsFOp::create(b, l, v);
  auto exponentOf = [&](Value x) -> Value { // unbiased; -1023 for 0
    Value bits = arith::BitcastOp::create(b, l, i64, x);
    return arith::SubIOp::create(
        b, l, arith::ShRUIOp::create(b, l, bits, c(52)), c(1023));
  };
  int minExp = 1 - f.bias;
  Value minExpC = bitsCst(b, l, i64, uint64_t(int64_t(minExp)));
  Value e = arith::MaxSIOp::create(b, l, exponentOf(a), minExpC);
  // q = 2^(e - manBits) and 1/q, built from their exponent fields.
  auto pow2 = [&](Value exp) -> Value {
    return arith::BitcastOp::create(
        b, l, f64,
        arith::ShLIOp::create(b, l, arith::AddIOp::create(b, l, exp, c(1023)),
                              c(52)));
  };
  Value shift = arith::SubIOp::create(b, l, e, c(f.manBits));
  Value q = pow2(shift);
  Value invQ = pow2(arith::SubIOp::create(b, l, c(0), shift));
  Value rounded = arith::MulFOp::create(
      b, l,
      math::RoundEvenOp::create(b, l, arith::MulFOp::create(b, l, a, invQ)), q);
  // Past the largest finite value (Inf too: its quantum is meaningless);
  // NaN compares false and is selected last.
  Value over = arith::OrIOp::create(
      b, l,
      cmpf(b, l, arith::CmpFPredicate::OGT, rounded,
           cf(f.magnitude(f.maxBits()))),
      cmpf(b, l, arith::CmpFPredicate::OEQ, a, cf(INFINITY)));
  // Encode r (0 in place of the special cases, so every conversion below
  // sees a representable value): subnormal as r / 2^(minExp - manBits),
  // normal from its bits.
  Value special = arith::OrIOp::create(
      b, l, over, cmpf(b, l, arith::CmpFPredicate::UNO, v, v));
  Value r = select(b, l, special, cf(0), rounded);
  Value re = exponentOf(r);
  Value subBits = arith::FPToUIOp::create(
      b, l, i64,
      arith::MulFOp::create(b, l, r,
                            cf(std::ldexp(1.0, int(f.manBits) - minExp))));
  Value rBits = arith::BitcastOp::create(b, l, i64, r);
  Value manField = arith::AndIOp::create(
      b, l, arith::ShRUIOp::create(b, l, rBits, c(52 - f.manBits)),
      c((uint64_t(1) << f.manBits) - 1));
  Value expField = arith::ShLIOp::create(
      b, l, arith::AddIOp::create(b, l, re, c(uint64_t(int64_t(f.bias)))),
      c(f.manBits));
  Value isSub = cmpi(b, l, arith::CmpIPredicate::slt, re, minExpC);
  Value magBits = select(b, l, isSub, subBits,
                         arith::OrIOp::create(b, l, expField, manField));
  Value res = arith::OrIOp::create(b, l, sign, magBits);
  res = select(b, l, cmpf(b, l, arith::CmpFPredicate::OEQ, r, cf(0)), zeroBits,
               res);
  res = select(b, l, over, overflowBits, res);
  res = select(b, l, cmpf(b, l, arith::CmpFPredicate::UNO, v, v), nanBits, res);
  Type iw = b.getIntegerType(f.width());
  return arith::BitcastOp::create(b, l, to,
                                  arith::TruncIOp::create(b, l, iw, res));
}

/// `v` (f32 or f64) to f8E8M0FNU as the interpreter's doubleToE8M0: rounded
/// to f32, sign dropped, the exponent kept and rounded per `mode` by the
/// fraction; NaN and Inf give 0xFF (NaN); past 2^127, 0xFE with `saturate`.
Value toE8M0(OpBuilder &b, Location l, Value v, Type to, bool saturate,
             top::RoundMode mode) {
  Type i32 = b.getI32Type();
  v = v.getType().isF64() ? truncToF32(b, l, v) : toCompute(b, l, v);
  auto c = [&](uint64_t k) { return bitsCst(b, l, i32, k); };
  auto nonZero = [&](Value x) {
    return cmpi(b, l, arith::CmpIPredicate::ne, x, c(0));
  };
  Value bits = arith::BitcastOp::create(b, l, i32, v);
  Value exponent = arith::AndIOp::create(
      b, l, arith::ShRUIOp::create(b, l, bits, c(23)), c(0xFF));
  Value roundUp;
  switch (mode) {
  case top::RoundMode::Up:
    roundUp = nonZero(arith::AndIOp::create(b, l, bits, c(0x7FFFFF)));
    break;
  case top::RoundMode::Down:
    roundUp = cmpi(b, l, arith::CmpIPredicate::ne, c(0), c(0));
    break;
  case top::RoundMode::Nearest: {
    Value guard = nonZero(arith::AndIOp::create(b, l, bits, c(0x400000)));
    // Round or sticky bits, or the "lsb" the interpreter tests (exp > 0).
    Value rest = arith::OrIOp::create(
        b, l, nonZero(arith::AndIOp::create(b, l, bits, c(0x3FFFFF))),
        nonZero(exponent));
    roundUp = arith::AndIOp::create(b, l, guard, rest);
    break;
  }
  }
  if (saturate)
    roundUp = arith::AndIOp::create(
        b, l, roundUp, cmpi(b, l, arith::CmpIPredicate::ne, exponent, c(0xFE)));
  Value r = select(b, l, roundUp, arith::AddIOp::create(b, l, exponent, c(1)),
                   exponent); // 0xFE + 1 = 0xFF: NaN without saturation
  r = select(b, l, cmpi(b, l, arith::CmpIPredicate::eq, exponent, c(0xFF)),
             c(0xFF), r); // NaN, Inf
  Type i8 = b.getI8Type();
  return arith::BitcastOp::create(b, l, to,
                                  arith::TruncIOp::create(b, l, i8, r));
}

/// Cast semantics of docs/TopOps.md between the supported element types
/// (`from`/`to` are the Top-side types, for signedness).
Value castScalar(top::CastOp op, OpBuilder &b, Location l, ValueRange xs,
                 Type dst) {
  Value x = xs[0];
  Type from = getElementTypeOrSelf(op.getInput());
  Type to = getElementTypeOrSelf(op.getOutput());
  if (from == to)
    return x;
  // Small floats: through their exact f32 value, or rounded from f64.
  if (isSmallFloat(x.getType()))
    x = smallFloatToF32(b, l, x);
  if (isSmallFloat(dst)) {
    Value v = x;
    if (isa<IntegerType>(v.getType()))
      v = intToFloat(b, l, v, isUnsignedOrBool(from), b.getF64Type());
    if (isa<Float8E8M0FNUType>(dst))
      return toE8M0(b, l, v, dst, op.getSaturate(), op.getRoundMode());
    return f64ToSmallFloat(b, l, toCompute(b, l, v), dst, op.getSaturate());
  }
  bool fromUnsigned = isUnsignedOrBool(from);
  auto dstInt = dyn_cast<IntegerType>(dst);
  if (isa<IntegerType>(x.getType())) {
    unsigned fw = x.getType().getIntOrFloatBitWidth();
    if (!dstInt)
      return intToFloat(b, l, x, fromUnsigned, cast<FloatType>(dst));
    unsigned tw = dstInt.getWidth();
    if (tw == 1 && fw != 1)
      return cmpi(b, l, arith::CmpIPredicate::ne, x, cst(b, l, x.getType(), 0));
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
    return cmpf(b, l, arith::CmpFPredicate::UNE, c, cst(b, l, c.getType(), 0));
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
using BitwiseLowering = ElementwiseLowering<OpTy, bitwiseScalar<OpTy, ArithOp>>;

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
      ElementwiseLowering<top::ScalarAffineOp, scalarAffineScalar>,
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
