//===- Elementwise.cpp - TOSA elementwise ops to Top ----------------------===//
//
// Binary arithmetic, comparisons, logical and bitwise ops and shifts, the
// unary ops, clamp, select, negate and cast. Where Top has no op of the same
// semantics (floor, ceil, clz, arithmetic shifts, mul's shift, float to int
// rounding) the pattern writes the TOSA spec's formula with integer Top ops.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Conversion/TosaToTop/TosaToTop.h"

namespace strata::conversion {

using namespace mlir;
using namespace tosa_to_top;

namespace {

/// x is NaN.
Value isNan(OpBuilder &b, Location loc, Value x) {
  return compare(b, loc, x, x, top::CompareMode::NotEqual);
}

/// A TOSA op that is the Top op `name` of the same semantics and operands
/// (the binary and unary ops).
template <typename OpTy> struct SamePattern : TosaPattern<OpTy> {
  SamePattern(MLIRContext *ctx, StringRef name)
      : TosaPattern<OpTy>(ctx), name(name) {}
  FailureOr<Value> build(OpTy op, typename OpTy::Adaptor a,
                         OpBuilder &b) const override {
    return makeTop(b, op.getLoc(), name, op.getType(), a.getOperands());
  }
  std::string name;
};

/// maximum / minimum; nan_mode IGNORE returns the other operand for a NaN.
template <typename OpTy> struct MinMaxPattern : TosaPattern<OpTy> {
  MinMaxPattern(MLIRContext *ctx, StringRef name)
      : TosaPattern<OpTy>(ctx), name(name) {}
  FailureOr<Value> build(OpTy op, typename OpTy::Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    Value x = a.getInput1(), y = a.getInput2();
    Value r = makeTop(b, loc, name, op.getType(), {x, y});
    if (op.getNanMode() == tosa::NanPropagationMode::PROPAGATE ||
        !isa<FloatType>(tensorType(x).getElementType()))
      return r;
    r = where(b, loc, isNan(b, loc, y), x, r);
    return where(b, loc, isNan(b, loc, x), y, r);
  }
  std::string name;
};

template <typename OpTy> struct ComparePattern : TosaPattern<OpTy> {
  ComparePattern(MLIRContext *ctx, top::CompareMode mode)
      : TosaPattern<OpTy>(ctx), mode(mode) {}
  FailureOr<Value> build(OpTy op, typename OpTy::Adaptor a,
                         OpBuilder &b) const override {
    return compare(b, op.getLoc(), a.getInput1(), a.getInput2(), mode);
  }
  top::CompareMode mode;
};

Value boolConst(OpBuilder &b, Location loc, bool v) {
  return intConst(b, loc, RankedTensorType::get({}, b.getI1Type()), {v});
}

struct LogicalAnd : TosaPattern<tosa::LogicalAndOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::LogicalAndOp op, Adaptor a,
                         OpBuilder &b) const override {
    return where(b, op.getLoc(), a.getInput1(), a.getInput2(),
                 boolConst(b, op.getLoc(), false));
  }
};
struct LogicalOr : TosaPattern<tosa::LogicalOrOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::LogicalOrOp op, Adaptor a,
                         OpBuilder &b) const override {
    return where(b, op.getLoc(), a.getInput1(), boolConst(b, op.getLoc(), true),
                 a.getInput2());
  }
};
struct LogicalXor : TosaPattern<tosa::LogicalXorOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::LogicalXorOp op, Adaptor a,
                         OpBuilder &b) const override {
    return compare(b, op.getLoc(), a.getInput1(), a.getInput2(),
                   top::CompareMode::NotEqual);
  }
};
struct LogicalNot : TosaPattern<tosa::LogicalNotOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::LogicalNotOp op, Adaptor a,
                         OpBuilder &b) const override {
    return compare(b, op.getLoc(), a.getInput1(),
                   boolConst(b, op.getLoc(), false), top::CompareMode::Equal);
  }
};

/// The unsigned integer type of `t`'s width.
Type unsignedOf(Type t) {
  return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth(),
                          IntegerType::Unsigned);
}

/// top.BitShift of `x` by `s` (unsigned tensors) in direction `dir`.
Value bitShift(OpBuilder &b, Location loc, RankedTensorType type, Value x,
               Value s, top::ShiftDirection dir) {
  return makeTop(b, loc, "BitShift", type, {x, s},
                 {b.getNamedAttr("direction", top::ShiftDirectionAttr::get(
                                                  b.getContext(), dir))});
}

/// logical_left_shift / logical_right_shift: the bits as unsigned, then
/// top.BitShift (Top's shifts are on unsigned types).
template <typename OpTy> struct LogicalShift : TosaPattern<OpTy> {
  LogicalShift(MLIRContext *ctx, top::ShiftDirection dir)
      : TosaPattern<OpTy>(ctx), dir(dir) {}
  FailureOr<Value> build(OpTy op, typename OpTy::Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    Type elem = tensorType(a.getInput1()).getElementType();
    Type u = unsignedOf(elem);
    Value x = castTo(b, loc, a.getInput1(), u);
    Value s = castTo(b, loc, a.getInput2(), u);
    Value r = bitShift(b, loc, withElement(tensorType(op->getResult(0)), u), x,
                       s, dir);
    return castTo(b, loc, r, elem);
  }
  top::ShiftDirection dir;
};

/// 2^s for an integer tensor s in [0, 62], as i64.
Value pow2(OpBuilder &b, Location loc, Value s) {
  Type u64 = IntegerType::get(b.getContext(), 64, IntegerType::Unsigned);
  Value one = intConst(b, loc, RankedTensorType::get({}, u64), {1});
  Value p = bitShift(b, loc, withElement(tensorType(s), u64), one,
                     castTo(b, loc, s, u64), top::ShiftDirection::Left);
  return castTo(b, loc, p, b.getI64Type());
}

/// arithmetic_right_shift: floor(x / 2^s); with `round`, floor((x +
/// 2^(s-1)) / 2^s) (the spec adds bit s-1 of x, the same value).
struct ArithmeticRightShift : TosaPattern<tosa::ArithmeticRightShiftOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ArithmeticRightShiftOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    Type i64 = b.getI64Type();
    Type elem = op.getType().getElementType();
    Value x = castTo(b, loc, a.getInput1(), i64);
    Value p = pow2(b, loc, a.getInput2());
    if (op.getRound())
      x = binary(b, loc, "Add", x,
                 binary(b, loc, "Div", p, scalar(b, loc, i64, 2)));
    return castTo(b, loc, floorDiv(b, loc, x, p), elem);
  }
};

/// mul: floats and shift-free integers are top.Mul (integer operands are
/// widened to the i32 result first); an i32 mul with shift s > 0 is
/// floor((a * b + 2^(s-1)) / 2^s) in 64 bits.
struct Mul : TosaPattern<tosa::MulOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::MulOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    Type out = op.getType().getElementType();
    if (isa<FloatType>(out))
      return makeTop(b, loc, "Mul", op.getType(),
                     {a.getInput1(), a.getInput2()});
    FailureOr<SmallVector<int64_t>> shift =
        requireConstInts(op, op.getShift(), "shift");
    if (failed(shift))
      return failure();
    int64_t s = shift->empty() ? 0 : (*shift)[0];
    if (s < 0 || s > 62)
      return unsupported(op, "shift", "must be in [0, 62], got " + Twine(s));
    if (s == 0)
      return makeTop(b, loc, "Mul", op.getType(),
                     {castTo(b, loc, a.getInput1(), out),
                      castTo(b, loc, a.getInput2(), out)});
    Type i64 = b.getI64Type();
    Value p = binary(b, loc, "Mul", castTo(b, loc, a.getInput1(), i64),
                     castTo(b, loc, a.getInput2(), i64));
    p = binary(b, loc, "Add", p,
               scalar(b, loc, i64, double(int64_t(1) << (s - 1))));
    Value r = floorDiv(b, loc, p, scalar(b, loc, i64, double(int64_t(1) << s)));
    return castTo(b, loc, r, out);
  }
};

struct Reciprocal : TosaPattern<tosa::ReciprocalOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ReciprocalOp op, Adaptor a,
                         OpBuilder &b) const override {
    Type elem = op.getType().getElementType();
    return makeTop(b, op.getLoc(), "Div", op.getType(),
                   {scalar(b, op.getLoc(), elem, 1.0), a.getInput1()});
  }
};

/// floor / ceil of a float tensor: t = trunc(x) (through i64; |x| >= 2^52 is
/// already integral, and NaN and infinities stay), then one step down (up)
/// where t > x (t < x).
Value roundToward(OpBuilder &b, Location loc, Value x, bool up) {
  Type elem = tensorType(x).getElementType();
  Value t = castTo(b, loc, castTo(b, loc, x, b.getI64Type()), elem);
  Value one = scalar(b, loc, elem, 1.0);
  Value stepped =
      up ? where(b, loc, compare(b, loc, t, x, top::CompareMode::Less),
                 binary(b, loc, "Add", t, one), t)
         : where(b, loc, compare(b, loc, t, x, top::CompareMode::Greater),
                 binary(b, loc, "Sub", t, one), t);
  Value small =
      compare(b, loc, makeTop(b, loc, "Abs", tensorType(x), x),
              scalar(b, loc, elem, 4503599627370496.0), top::CompareMode::Less);
  return where(b, loc, small, stepped, x);
}

template <typename OpTy> struct RoundPattern : TosaPattern<OpTy> {
  RoundPattern(MLIRContext *ctx, bool up) : TosaPattern<OpTy>(ctx), up(up) {}
  FailureOr<Value> build(OpTy op, typename OpTy::Adaptor a,
                         OpBuilder &b) const override {
    return roundToward(b, op.getLoc(), a.getInput1(), up);
  }
  bool up;
};

/// Round half to even of a float tensor (cast's float to integer rounding).
Value roundHalfEven(OpBuilder &b, Location loc, Value x) {
  Type elem = tensorType(x).getElementType();
  Value f = roundToward(b, loc, x, /*up=*/false);
  Value half = scalar(b, loc, elem, 0.5);
  Value frac = binary(b, loc, "Sub", x, f);
  Value halfF = binary(b, loc, "Mul", f, half);
  Value even = compare(b, loc, roundToward(b, loc, halfF, false), halfF,
                       top::CompareMode::Equal);
  Value up = binary(b, loc, "Add", f, scalar(b, loc, elem, 1.0));
  Value tie = where(b, loc, even, f, up);
  Value r = where(b, loc, compare(b, loc, frac, half, top::CompareMode::Less),
                  f, tie);
  return where(b, loc, compare(b, loc, frac, half, top::CompareMode::Greater),
               up, r);
}

/// clz of i32: the number of j in [0, 32) with x (as unsigned) < 2^j.
struct Clz : TosaPattern<tosa::ClzOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ClzOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    RankedTensorType t = tensorType(op->getResult(0));
    unsigned width = t.getElementType().getIntOrFloatBitWidth();
    if (width != 32)
      return unsupported(op, "element type", "only i32 is handled");
    Type i64 = b.getI64Type();
    Type u32 = unsignedOf(t.getElementType());
    Value x = castTo(b, loc, castTo(b, loc, a.getInput1(), u32), i64);
    SmallVector<int64_t> shape(t.getShape());
    shape.push_back(1);
    x = makeTop(b, loc, "Reshape", RankedTensorType::get(shape, i64), x,
                {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))});
    SmallVector<int64_t> powers;
    for (unsigned j = 0; j < 32; ++j)
      powers.push_back(int64_t(1) << j);
    Value p = intConst(b, loc, RankedTensorType::get({32}, i64), powers);
    Value less = castTo(b, loc, compare(b, loc, x, p, top::CompareMode::Less),
                        b.getI32Type());
    return makeTop(
        b, loc, "Reduce", t, less,
        {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({t.getRank()})),
         b.getNamedAttr("keepdims", b.getBoolAttr(false)),
         b.getNamedAttr("mode", top::ReduceModeAttr::get(
                                    b.getContext(), top::ReduceMode::Sum))});
  }
};

/// negate: -x for floats; for integers -(x - zp_in) + zp_out, saturated to
/// the type.
struct Negate : TosaPattern<tosa::NegateOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::NegateOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    Type elem = op.getType().getElementType();
    FailureOr<int64_t> zpIn = zeroPoint(op, op.getInput1Zp(), "input1_zp");
    FailureOr<int64_t> zpOut = zeroPoint(op, op.getOutputZp(), "output_zp");
    if (failed(zpIn) || failed(zpOut))
      return failure();
    if (isa<FloatType>(elem) || (*zpIn == 0 && *zpOut == 0))
      return makeTop(b, loc, "Neg", op.getType(), a.getInput1());
    Type i64 = b.getI64Type();
    Value x = castTo(b, loc, a.getInput1(), i64);
    Value r =
        binary(b, loc, "Sub", scalar(b, loc, i64, double(*zpIn + *zpOut)), x);
    return saturateTo(b, loc, r, elem);
  }
};

/// clamp: top.Clip for floats (NaN stays NaN; with nan_mode IGNORE a NaN
/// becomes min_val), top.Max/top.Min for integers.
struct Clamp : TosaPattern<tosa::ClampOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ClampOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    Type elem = op.getType().getElementType();
    Value x = a.getInput();
    if (isa<FloatType>(elem)) {
      double lo = cast<FloatAttr>(op.getMinValAttr()).getValueAsDouble();
      double hi = cast<FloatAttr>(op.getMaxValAttr()).getValueAsDouble();
      Value r = makeTop(b, loc, "Clip", op.getType(), x,
                        {b.getNamedAttr("min", b.getF64FloatAttr(lo)),
                         b.getNamedAttr("max", b.getF64FloatAttr(hi))});
      if (op.getNanMode() == tosa::NanPropagationMode::PROPAGATE)
        return r;
      return where(b, loc, isNan(b, loc, x), scalar(b, loc, elem, lo), r);
    }
    auto lo = cast<IntegerAttr>(op.getMinValAttr()).getValue();
    auto hi = cast<IntegerAttr>(op.getMaxValAttr()).getValue();
    return clampInt(b, loc, x, lo.getSExtValue(), hi.getSExtValue());
  }
};

struct Select : TosaPattern<tosa::SelectOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::SelectOp op, Adaptor a,
                         OpBuilder &b) const override {
    return makeTop(b, op.getLoc(), "Where", op.getType(),
                   {a.getInput1(), a.getInput2(), a.getInput3()});
  }
};

/// cast: float to integer rounds half to even and saturates (top.Cast
/// truncates, so the value is rounded first); the rest is top.Cast.
struct Cast : TosaPattern<tosa::CastOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::CastOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    Value x = a.getInput();
    Type from = tensorType(x).getElementType();
    Type to = op.getType().getElementType();
    if (isa<FloatType>(from) && isa<IntegerType>(to) && !to.isInteger(1)) {
      Value r = roundHalfEven(b, loc, castTo(b, loc, x, b.getF64Type()));
      return castTo(b, loc, r, to);
    }
    return castTo(b, loc, x, to);
  }
};

} // namespace

void populateTosaToTopElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SamePattern<tosa::AddOp>>(ctx, "Add");
  patterns.add<SamePattern<tosa::SubOp>>(ctx, "Sub");
  patterns.add<SamePattern<tosa::IntDivOp>>(ctx, "Div");
  patterns.add<SamePattern<tosa::PowOp>>(ctx, "Pow");
  patterns.add<SamePattern<tosa::BitwiseAndOp>>(ctx, "BitwiseAnd");
  patterns.add<SamePattern<tosa::BitwiseOrOp>>(ctx, "BitwiseOr");
  patterns.add<SamePattern<tosa::BitwiseXorOp>>(ctx, "BitwiseXor");
  patterns.add<MinMaxPattern<tosa::MaximumOp>>(ctx, "Max");
  patterns.add<MinMaxPattern<tosa::MinimumOp>>(ctx, "Min");
  patterns.add<ComparePattern<tosa::EqualOp>>(ctx, top::CompareMode::Equal);
  patterns.add<ComparePattern<tosa::GreaterOp>>(ctx, top::CompareMode::Greater);
  patterns.add<ComparePattern<tosa::GreaterEqualOp>>(
      ctx, top::CompareMode::GreaterOrEqual);
  patterns.add<LogicalShift<tosa::LogicalLeftShiftOp>>(
      ctx, top::ShiftDirection::Left);
  patterns.add<LogicalShift<tosa::LogicalRightShiftOp>>(
      ctx, top::ShiftDirection::Right);
  patterns.add<SamePattern<tosa::AbsOp>>(ctx, "Abs");
  patterns.add<SamePattern<tosa::ExpOp>>(ctx, "Exp");
  patterns.add<SamePattern<tosa::LogOp>>(ctx, "Log");
  patterns.add<SamePattern<tosa::RsqrtOp>>(ctx, "Rsqrt");
  patterns.add<SamePattern<tosa::SinOp>>(ctx, "Sin");
  patterns.add<SamePattern<tosa::CosOp>>(ctx, "Cos");
  patterns.add<SamePattern<tosa::SigmoidOp>>(ctx, "Sigmoid");
  patterns.add<SamePattern<tosa::TanhOp>>(ctx, "Tanh");
  patterns.add<SamePattern<tosa::ErfOp>>(ctx, "Erf");
  patterns.add<SamePattern<tosa::BitwiseNotOp>>(ctx, "BitwiseNot");
  patterns.add<RoundPattern<tosa::FloorOp>>(ctx, false);
  patterns.add<RoundPattern<tosa::CeilOp>>(ctx, true);
  patterns
      .add<LogicalAnd, LogicalOr, LogicalXor, LogicalNot, ArithmeticRightShift,
           Mul, Reciprocal, Clz, Negate, Clamp, Select, Cast>(ctx);
}

} // namespace strata::conversion
