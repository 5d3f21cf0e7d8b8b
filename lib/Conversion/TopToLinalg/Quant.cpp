//===- Quant.cpp - top.Quant, top.Dequant, top.Requant to linalg ----------===//
//
// Tensors of `!quant.uniform` element type compute on their storage integers
// (TopTypeConverter maps the element type to a signless integer of the
// storage width); the parameters come from the Top-side types. Every op is
// one linalg.generic; per-axis scales and zero points (and Requant's
// per-channel multiplier / rshift) are 1-D constant tensors read along their
// dim. The arithmetic is the interpreter's (lib/Dialect/Top/IR/QuantOps.cpp):
// divisions in f64 with ties to even, Requant's integer modes in exact
// 128-bit / 64-bit integers.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <limits>

using namespace mlir;

namespace strata::conversion {
namespace {

/// One parameter of an elementwise quant computation: a single value, or one
/// value per index of iteration dim `dim` (then read from a 1-D constant).
struct Param {
  SmallVector<double> f;
  SmallVector<int64_t> i;
  int64_t dim = -1;
  bool isFloat() const { return !f.empty(); }
  size_t size() const { return isFloat() ? f.size() : i.size(); }
};

/// The quantization parameters of one side, as the interpreter resolves them
/// (a plain integer type: zero point 0, the type's range, no scale).
struct Side {
  Param scale, zeroPoint;
  int64_t qmin = 0, qmax = 0;
  unsigned width = 0;
  bool isUnsigned = false;
  bool quantized = false;
};

static std::optional<Side> sideOf(Type elem) {
  Side s;
  if (auto q = dyn_cast<quant::QuantizedType>(elem)) {
    s.quantized = true;
    s.width = q.getStorageTypeIntegralWidth();
    s.isUnsigned = !q.isSigned();
    s.qmin = q.getStorageTypeMin();
    s.qmax = q.getStorageTypeMax();
    if (auto u = dyn_cast<quant::UniformQuantizedType>(q)) {
      s.scale.f = {u.getScale()};
      s.zeroPoint.i = {u.getZeroPoint()};
    } else if (auto a = dyn_cast<quant::UniformQuantizedPerAxisType>(q)) {
      s.scale.f.assign(a.getScales().begin(), a.getScales().end());
      s.zeroPoint.i.assign(a.getZeroPoints().begin(), a.getZeroPoints().end());
      s.scale.dim = s.zeroPoint.dim = a.getQuantizedDimension();
    } else {
      return std::nullopt;
    }
    return s;
  }
  auto it = dyn_cast<IntegerType>(elem);
  if (!it || it.getWidth() > 32)
    return std::nullopt;
  s.width = it.getWidth();
  s.isUnsigned = it.isUnsigned();
  s.zeroPoint.i = {0};
  s.qmin = s.isUnsigned ? 0 : llvm::minIntN(s.width);
  s.qmax = s.isUnsigned ? static_cast<int64_t>(llvm::maxUIntN(s.width))
                        : llvm::maxIntN(s.width);
  return s;
}

static Type elemOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// A linalg.generic over `resultType` reading `input` (same shape) and the
/// per-dim parameters; `body` gets the input scalar and a function giving
/// each parameter's scalar (f64 or i64) at the current element.
static Value
buildQuantGeneric(OpBuilder &b, Location loc, RankedTensorType resultType,
                  Value input, ArrayRef<const Param *> params,
                  llvm::function_ref<Value(
                      OpBuilder &, Location, Value,
                      llvm::function_ref<Value(OpBuilder &, const Param &)>)>
                      body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<Value> inputs{input};
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<const Param *> perDim;
  for (const Param *p : params) {
    if (p->dim < 0 || p->size() == 1)
      continue;
    perDim.push_back(p);
    int64_t n = p->size();
    Attribute values;
    RankedTensorType t;
    if (p->isFloat()) {
      t = RankedTensorType::get({n}, b.getF64Type());
      values = DenseElementsAttr::get(t, ArrayRef<double>(p->f));
    } else {
      t = RankedTensorType::get({n}, b.getI64Type());
      values = DenseElementsAttr::get(t, ArrayRef<int64_t>(p->i));
    }
    inputs.push_back(
        arith::ConstantOp::create(b, loc, t, cast<TypedAttr>(values)));
    maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(p->dim, ctx)));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs,
      ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        auto paramAt = [&](OpBuilder &pb, const Param &p) -> Value {
          for (auto [k, q] : llvm::enumerate(perDim))
            if (q == &p)
              return args[1 + k];
          if (p.isFloat())
            return scalarConstant(pb, nl, pb.getF64Type(), p.f[0]);
          return arith::ConstantOp::create(pb, nl,
                                           pb.getI64IntegerAttr(p.i[0]));
        };
        linalg::YieldOp::create(nb, nl, body(nb, nl, args[0], paramAt));
      });
  return generic.getResult(0);
}

/// `clamp(round_half_to_even(v) + zp, qmin, qmax)` as an i64 (v in f64; NaN
/// gives clamp(zp)), the interpreter's `quantizeScaled`.
static Value quantizeScaled(OpBuilder &b, Location l, Value v, Value zp,
                            int64_t qmin, int64_t qmax) {
  Type f64 = b.getF64Type();
  Value lo = scalarConstant(b, l, f64, static_cast<double>(qmin));
  Value hi = scalarConstant(b, l, f64, static_cast<double>(qmax));
  Value q = arith::AddFOp::create(b, l, math::RoundEvenOp::create(b, l, v),
                                  arith::SIToFPOp::create(b, l, f64, zp));
  // maxnumf/minnumf would turn NaN into a bound; NaN is handled below.
  q = arith::MinimumFOp::create(b, l, arith::MaximumFOp::create(b, l, q, lo),
                                hi);
  Value isNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, v, v);
  Value zpClamped = arith::MinSIOp::create(
      b, l,
      arith::MaxSIOp::create(
          b, l, zp, arith::ConstantOp::create(b, l, b.getI64IntegerAttr(qmin))),
      arith::ConstantOp::create(b, l, b.getI64IntegerAttr(qmax)));
  // q is finite and in [qmin, qmax] unless v is NaN (then q is NaN too and
  // fptosi's result is discarded by the select).
  Value safe = arith::SelectOp::create(b, l, isNan, lo, q);
  Value qi = arith::FPToSIOp::create(b, l, b.getI64Type(), safe);
  return arith::SelectOp::create(b, l, isNan, zpClamped, qi);
}

/// The storage integer `x` (signless, `s.width` bits) widened to i64.
static Value widen(OpBuilder &b, Location l, Value x, const Side &s) {
  Type i64 = b.getI64Type();
  if (s.isUnsigned)
    return arith::ExtUIOp::create(b, l, i64, x);
  return arith::ExtSIOp::create(b, l, i64, x);
}

/// An i64 in the storage range narrowed to the storage type.
static Value narrow(OpBuilder &b, Location l, Value x, Type storage) {
  if (storage.getIntOrFloatBitWidth() == 64)
    return x;
  return arith::TruncIOp::create(b, l, storage, x);
}

struct QuantLowering : OpConversionPattern<top::QuantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::QuantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    std::optional<Side> out = sideOf(elemOf(op.getOutput()));
    if (!out || !out->quantized)
      return rewriter.notifyMatchFailure(op, "result is not !quant.uniform");
    Type storage = type->getElementType();
    Value r = buildQuantGeneric(
        rewriter, op.getLoc(), *type, adaptor.getInput(),
        {&out->scale, &out->zeroPoint},
        [&](OpBuilder &b, Location l, Value x, auto paramAt) {
          Type f64 = b.getF64Type();
          if (x.getType() != f64)
            x = arith::ExtFOp::create(b, l, f64, x);
          Value v = arith::DivFOp::create(b, l, x, paramAt(b, out->scale));
          return narrow(b, l,
                        quantizeScaled(b, l, v, paramAt(b, out->zeroPoint),
                                       out->qmin, out->qmax),
                        storage);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct DequantLowering : OpConversionPattern<top::DequantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::DequantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    std::optional<Side> in = sideOf(elemOf(op.getInput()));
    if (!in || !in->quantized)
      return rewriter.notifyMatchFailure(op, "input is not !quant.uniform");
    Type elem = type->getElementType();
    Value r = buildQuantGeneric(
        rewriter, op.getLoc(), *type, adaptor.getInput(),
        {&in->scale, &in->zeroPoint},
        [&](OpBuilder &b, Location l, Value q, auto paramAt) {
          Value x = arith::SubIOp::create(b, l, widen(b, l, q, *in),
                                          paramAt(b, in->zeroPoint));
          Value v = arith::MulFOp::create(
              b, l, arith::SIToFPOp::create(b, l, b.getF64Type(), x),
              paramAt(b, in->scale));
          if (elem != v.getType())
            v = arith::TruncFOp::create(b, l, elem, v);
          return v;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// `round_half_away_from_zero(x / 2^s)` on i128 values (s in [0, 63]).
static Value roundingRightShift(OpBuilder &b, Location l, Value x, Value s) {
  Type t = x.getType();
  auto c = [&](int64_t v) {
    return arith::ConstantOp::create(
        b, l, b.getIntegerAttr(t, APInt(128, v, /*isSigned=*/true)));
  };
  // half = 2^s / 2 (0 for s = 0).
  Value half =
      arith::ShRSIOp::create(b, l, arith::ShLIOp::create(b, l, c(1), s), c(1));
  Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x, c(0));
  Value absX = arith::SelectOp::create(b, l, neg,
                                       arith::SubIOp::create(b, l, c(0), x), x);
  Value mag =
      arith::ShRSIOp::create(b, l, arith::AddIOp::create(b, l, absX, half), s);
  return arith::SelectOp::create(b, l, neg,
                                 arith::SubIOp::create(b, l, c(0), mag), mag);
}

/// TFLite's `RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, m), s)`
/// on i64 values (x already saturated to int32, m in the int32 range, s in
/// [0, 63]). With `tiesUp` the division by 2^s rounds ties toward +infinity
/// (TFLiteHalfUp, intq::roundingShiftHalfUp).
static Value tfliteMultiply(OpBuilder &b, Location l, Value x, Value m, Value s,
                            bool tiesUp = false) {
  Type i64 = b.getI64Type();
  auto c = [&](int64_t v) {
    return arith::ConstantOp::create(b, l, b.getIntegerAttr(i64, v));
  };
  int64_t i32min = std::numeric_limits<int32_t>::min();
  int64_t i32max = std::numeric_limits<int32_t>::max();
  Value ab = arith::MulIOp::create(b, l, x, m);
  Value nonNeg =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, ab, c(0));
  Value nudge = arith::SelectOp::create(b, l, nonNeg, c(int64_t(1) << 30),
                                        c(1 - (int64_t(1) << 30)));
  // C division by 2^31 (truncating); the divisor is a nonzero constant.
  Value high = arith::DivSIOp::create(
      b, l, arith::AddIOp::create(b, l, ab, nudge), c(int64_t(1) << 31));
  Value overflow = arith::AndIOp::create(
      b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, c(i32min)),
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, m, c(i32min)));
  high = arith::SelectOp::create(b, l, overflow, c(i32max), high);
  if (tiesUp) {
    // intq::roundingShiftHalfUp: (high + 2^(s-1)) >> s; |high| < 2^31.
    Value half = arith::ShRUIOp::create(
        b, l, arith::ShLIOp::create(b, l, c(1), s), c(1));
    return arith::ShRSIOp::create(b, l, arith::AddIOp::create(b, l, high, half),
                                  s);
  }
  // RoundingDivideByPOT(high, s).
  Value mask =
      arith::SubIOp::create(b, l, arith::ShLIOp::create(b, l, c(1), s), c(1));
  Value remainder = arith::AndIOp::create(b, l, high, mask);
  Value isNeg =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, high, c(0));
  Value threshold =
      arith::AddIOp::create(b, l, arith::ShRUIOp::create(b, l, mask, c(1)),
                            arith::ExtUIOp::create(b, l, i64, isNeg));
  Value up = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ugt, remainder,
                                   threshold);
  return arith::AddIOp::create(b, l, arith::ShRSIOp::create(b, l, high, s),
                               arith::ExtUIOp::create(b, l, i64, up));
}

/// intq::requantTosa on i64 values `x`, `m`, `s` (s in [0, 63]) and the
/// output zero point: `floor((x * m + round) / 2^s) + zp` in i128 with
/// `round = 2^(s-1)` (0 for s = 0), `± 2^30` by the sign of x when
/// `doubleRound` and s > 31, saturated to the result's range; an i64.
static Value tosaRequant(OpBuilder &b, Location l, Value x, Value m, Value s,
                         Value zp, const Side &out, bool doubleRound) {
  Type i128 = b.getIntegerType(128);
  auto c = [&](int64_t v) {
    return arith::ConstantOp::create(
        b, l, b.getIntegerAttr(i128, APInt(128, v, /*isSigned=*/true)));
  };
  auto ext = [&](Value v) { return arith::ExtSIOp::create(b, l, i128, v); };
  Value x128 = ext(x), s128 = ext(s);
  // round = (1 << s) >> 1: 2^(s-1), and 0 for s = 0.
  Value round = arith::ShRSIOp::create(
      b, l, arith::ShLIOp::create(b, l, c(1), s128), c(1));
  if (doubleRound) {
    Value nonNeg =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, x128, c(0));
    Value big =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, s128, c(31));
    Value step = arith::SelectOp::create(b, l, nonNeg, c(int64_t(1) << 30),
                                         c(-(int64_t(1) << 30)));
    round = arith::AddIOp::create(
        b, l, round, arith::SelectOp::create(b, l, big, step, c(0)));
  }
  Value v = arith::AddIOp::create(
      b, l, arith::MulIOp::create(b, l, x128, ext(m)), round);
  // An arithmetic right shift is floor division by 2^s.
  Value y = arith::AddIOp::create(b, l, arith::ShRSIOp::create(b, l, v, s128),
                                  ext(zp));
  y = arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, y, c(out.qmin)),
                             c(out.qmax));
  return arith::TruncIOp::create(b, l, b.getI64Type(), y);
}

struct RequantLowering : OpConversionPattern<top::RequantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::RequantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    std::optional<Side> in = sideOf(elemOf(op.getInput()));
    std::optional<Side> out = sideOf(elemOf(op.getOutput()));
    if (!in || !out)
      return rewriter.notifyMatchFailure(
          op, "input and result must be !quant.uniform or integer types of "
              "at most 32 bits");
    top::RequantMode mode = op.getQuantMode();
    if (mode == top::RequantMode::Float && (!in->quantized || !out->quantized))
      return rewriter.notifyMatchFailure(op, "quant_mode Float needs "
                                             "!quant.uniform on both sides");
    Param mult, shift;
    if (mode != top::RequantMode::Float) {
      auto m = op.getMultiplier();
      auto s = op.getRshift();
      if (!m || !s || m->empty() || s->empty())
        return rewriter.notifyMatchFailure(op,
                                           "multiplier and rshift required");
      mult.i.assign(m->begin(), m->end());
      shift.i.assign(s->begin(), s->end());
      for (int64_t v : shift.i)
        if (v < 0 || v > 63)
          return rewriter.notifyMatchFailure(op, "rshift outside [0, 63]");
      int64_t dim = op.getAxis() ? static_cast<int64_t>(*op.getAxis()) : 1;
      int64_t channels =
          dim >= 0 && dim < type->getRank() ? type->getDimSize(dim) : 1;
      for (Param *p : {&mult, &shift}) {
        if (p->size() != 1 && static_cast<int64_t>(p->size()) != channels)
          return rewriter.notifyMatchFailure(
              op, "multiplier/rshift length is neither 1 nor the channels");
        if (p->size() != 1)
          p->dim = dim;
      }
    }
    // The exact product fits i64 when |q - zp_in| <= 2^31 (an input of at
    // most 16 bits with a small zero point, or 32 bits with zero point 0)
    // and every multiplier is in the int32 range.
    bool fitsI64 =
        llvm::all_of(mult.i,
                     [](int64_t m) {
                       return m > std::numeric_limits<int32_t>::min() &&
                              m <= std::numeric_limits<int32_t>::max();
                     }) &&
        !in->zeroPoint.isFloat() &&
        llvm::all_of(in->zeroPoint.i, [&](int64_t z) {
          return in->width <= 16 ? (z >= -65536 && z <= 65536) : z == 0;
        });
    Type storage = type->getElementType();
    Value r = buildQuantGeneric(
        rewriter, op.getLoc(), *type, adaptor.getInput(),
        {&in->scale, &in->zeroPoint, &out->scale, &out->zeroPoint, &mult,
         &shift},
        [&](OpBuilder &b, Location l, Value q, auto paramAt) -> Value {
          Type i64 = b.getI64Type();
          Value x = arith::SubIOp::create(b, l, widen(b, l, q, *in),
                                          paramAt(b, in->zeroPoint));
          Value zpOut = paramAt(b, out->zeroPoint);
          if (mode == top::RequantMode::Float) {
            Value real = arith::MulFOp::create(
                b, l, arith::SIToFPOp::create(b, l, b.getF64Type(), x),
                paramAt(b, in->scale));
            Value v = arith::DivFOp::create(b, l, real, paramAt(b, out->scale));
            return narrow(b, l,
                          quantizeScaled(b, l, v, zpOut, out->qmin, out->qmax),
                          storage);
          }
          Value m = paramAt(b, mult), s = paramAt(b, shift);
          Value y;
          if (mode == top::RequantMode::TosaSingleRound ||
              mode == top::RequantMode::TosaDoubleRound) {
            y = tosaRequant(b, l, x, m, s, zpOut, *out,
                            mode == top::RequantMode::TosaDoubleRound);
          } else if (mode == top::RequantMode::MultiplierShift && fitsI64) {
            // |x| <= 2^31 and |m| < 2^31: the product and the rounding
            // stay below 2^63, so i64 gives the i128 result.
            auto c = [&](int64_t v) {
              return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
            };
            Value p = arith::MulIOp::create(b, l, x, m);
            Value half = arith::ShRUIOp::create(
                b, l, arith::ShLIOp::create(b, l, c(1), s), c(1));
            Value neg =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, p, c(0));
            Value absP = arith::SelectOp::create(
                b, l, neg, arith::SubIOp::create(b, l, c(0), p), p);
            Value mag = arith::ShRSIOp::create(
                b, l, arith::AddIOp::create(b, l, absP, half), s);
            y = arith::SelectOp::create(
                b, l, neg, arith::SubIOp::create(b, l, c(0), mag), mag);
            y = arith::AddIOp::create(b, l, y, zpOut);
            y = arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, y, c(out->qmin)),
                c(out->qmax));
          } else if (mode == top::RequantMode::MultiplierShift) {
            Type i128 = b.getIntegerType(128);
            Value prod = arith::MulIOp::create(
                b, l, arith::ExtSIOp::create(b, l, i128, x),
                arith::ExtSIOp::create(b, l, i128, m));
            y = roundingRightShift(b, l, prod,
                                   arith::ExtSIOp::create(b, l, i128, s));
            y = arith::AddIOp::create(
                b, l, y, arith::ExtSIOp::create(b, l, i128, zpOut));
            auto c = [&](int64_t v) {
              return arith::ConstantOp::create(
                  b, l,
                  b.getIntegerAttr(i128, APInt(128, v, /*isSigned=*/true)));
            };
            y = arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, y, c(out->qmin)),
                c(out->qmax));
            y = arith::TruncIOp::create(b, l, i64, y);
          } else {
            auto c = [&](int64_t v) {
              return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
            };
            Value x32 = arith::MinSIOp::create(
                b, l,
                arith::MaxSIOp::create(b, l, x,
                                       c(std::numeric_limits<int32_t>::min())),
                c(std::numeric_limits<int32_t>::max()));
            // The multiplier is used as an int32 (the verifier keeps it in
            // range; truncating mirrors the interpreter's cast).
            Value m32 = arith::ExtSIOp::create(
                b, l, i64, arith::TruncIOp::create(b, l, b.getI32Type(), m));
            y = arith::AddIOp::create(
                b, l,
                tfliteMultiply(b, l, x32, m32, s,
                               mode == top::RequantMode::TFLiteHalfUp),
                zpOut);
            y = arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, y, c(out->qmin)),
                c(out->qmax));
          }
          return narrow(b, l, y, storage);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateTopToLinalgQuantPatterns(const TopTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<QuantLowering, DequantLowering, RequantLowering>(
      converter, patterns.getContext());
}

} // namespace strata::conversion
