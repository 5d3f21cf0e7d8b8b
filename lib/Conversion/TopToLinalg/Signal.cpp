//===- Signal.cpp - Det, Window, MelWeightMatrix, DFT, STFT, BitCast ------===//
//
// f64 computations like the interpreter (SignalOps.cpp, LinalgOps.cpp,
// TypeOps.cpp), rounded once to the result type:
// - DFT and STFT: the direct sum as a linalg.generic with a reduction dim
//   over the samples, exact twiddle indices `(k * n) mod L`, reads at clamped
//   indices (zero padding by select). The interpreter uses a radix-2 FFT for
//   power-of-two lengths: results agree to f64 rounding, not bit for bit.
// - Det: Gaussian elimination with partial pivoting as scf.for loops over
//   an f64 copy of the matrices (tensor.extract / tensor.insert, in place
//   after bufferization).
// - Window, MelWeightMatrix: index-driven generics.
// - BitCast: arith.bitcast per element (i1 reads/writes a whole byte); the
//   4- and 2-bit types (one per byte in memory) cast their own bits, and
//   int4 <-> uint4 is the identity on converted (signless) types.
//
//===----------------------------------------------------------------------===//

#include "ScalarEmitter.h"
#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;

namespace strata::conversion {
namespace {

using P = arith::CmpFPredicate;
using IP = arith::CmpIPredicate;

/// An f64 value converted to `t` as the interpreter's castTo does: floats
/// round, integers truncate toward zero (bool: non-zero).
static Value fromF64(ScalarEmitter &e, Value v, Type t, bool isUnsigned) {
  if (isa<FloatType>(t))
    return e.round(v, t);
  if (t.isInteger(1))
    return e.cmp(P::UNE, v, e.f(0.0));
  if (isUnsigned)
    return arith::FPToUIOp::create(e.b, e.l, t, v);
  return arith::FPToSIOp::create(e.b, e.l, t, v);
}

/// A generic over `outShape` (f64, zero-initialized) plus one trailing
/// reduction dim of `n` iterations; `term` returns the value added for the
/// current indices.
static Value sumGeneric(OpBuilder &b, Location loc, ArrayRef<int64_t> outShape,
                        int64_t n,
                        llvm::function_ref<Value(ScalarEmitter &)> term) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = static_cast<int64_t>(outShape.size());
  auto type = RankedTensorType::get(outShape, b.getF64Type());
  Value zero = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
  Value init = linalg::FillOp::create(b, loc, zero, emptyTensor(b, loc, type))
                   .getResult(0);
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
  it.push_back(utils::IteratorType::reduction);
  (void)n; // the reduction extent comes from the loop bounds below
  // The reduction dim must appear in an operand's map for linalg to know
  // its extent: a dummy input of n elements.
  Value dummy = emptyTensor(b, loc, RankedTensorType::get({n}, b.getF64Type()));
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{dummy}, ValueRange{init},
      {AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx), ctx),
       AffineMap::get(rank + 1, 0, exprs, ctx)},
      it, [&](OpBuilder &nb, Location nl, ValueRange args) {
        ScalarEmitter e{nb, nl};
        linalg::YieldOp::create(nb, nl, e.add(args[1], term(e)));
      });
  return g.getResult(0);
}

/// `x * exp(i * sign * 2 pi * ((k * n) mod len) / len)` for the complex
/// sample `(xr, xi)`; returns the component `c` (0 real, 1 imaginary; i64).
static Value twiddled(ScalarEmitter &e, Value xr, Value xi, Value k, Value n,
                      int64_t len, double sign, Value c) {
  Value idx = arith::RemUIOp::create(e.b, e.l, e.mul(k, n), e.i(len));
  Value angle = e.div(e.mul(e.f(sign * 2.0 * M_PI), e.toF64(idx)),
                      e.f(static_cast<double>(len)));
  Value cs = e.cos(angle), sn = e.sin(angle);
  Value re = e.sub(e.mul(xr, cs), e.mul(xi, sn));
  Value im = e.add(e.mul(xr, sn), e.mul(xi, cs));
  return e.sel(e.icmp(IP::eq, c, e.i(0)), re, im);
}

/// The f64 sum `acc` times `scale` rounded to `type` element-wise.
static Value scaleAndRound(OpBuilder &b, Location loc, Value acc, double scale,
                           RankedTensorType type) {
  return buildElementwise(
      b, loc, type, acc,
      [&](OpBuilder &nb, Location nl, ValueRange xs, Type t) {
        ScalarEmitter e{nb, nl};
        Value v = xs[0];
        if (scale != 1.0)
          v = e.mul(v, e.f(scale));
        return e.round(v, t);
      });
}

struct DFTLowering : OpConversionPattern<top::DFTOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::DFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    RankedTensorType inT = staticTensorType(adaptor.getInput());
    int64_t axis = op.getAxis(), len = op.getDftLength();
    if (!inT || inT.getRank() < 2 || axis < 0 || axis > inT.getRank() - 2 ||
        len < 1 || type->getRank() != inT.getRank())
      return rewriter.notifyMatchFailure(op, "unsupported DFT form");
    int64_t inN = inT.getDimSize(axis), inC = inT.getDimSize(inT.getRank() - 1);
    int64_t rank = inT.getRank();
    // Other dims are read at the output's indices: they must agree.
    for (int64_t d = 0; d + 1 < rank; ++d)
      if (d != axis && type->getDimSize(d) != inT.getDimSize(d))
        return rewriter.notifyMatchFailure(op, "result shape mismatch");
    if (inC != 1 && inC != 2)
      return rewriter.notifyMatchFailure(op, "last dim must be 1 or 2");
    bool inverse = op.getInverse(), realInverse = inverse && op.getOnesided();
    int64_t read = std::min(inN, realInverse ? len / 2 + 1 : len);
    double sign = inverse ? 1.0 : -1.0;
    Value input = adaptor.getInput();
    Value acc = sumGeneric(
        rewriter, op.getLoc(), type->getShape(), len, [&](ScalarEmitter &e) {
          SmallVector<Value> pos;
          for (int64_t d = 0; d < rank; ++d)
            pos.push_back(e.loopIndex(d));
          Value n = e.loopIndex(rank), k = pos[axis], c = pos[rank - 1];
          // The sample at m (< len): input bin m if m < read, else 0.
          auto sample = [&](Value m, Value &xr, Value &xi) {
            SmallVector<Value> at = pos;
            at[axis] = e.iclamp(m, 0, std::max<int64_t>(read - 1, 0));
            Value ok = e.icmp(IP::slt, m, e.i(read));
            at[rank - 1] = e.i(0);
            xr =
                read > 0 ? e.sel(ok, e.toF64(e.at(input, at)), e.f(0)) : e.f(0);
            xi = e.f(0);
            if (inC == 2 && read > 0) {
              at[rank - 1] = e.i(1);
              xi = e.sel(ok, e.toF64(e.at(input, at)), e.f(0));
            }
          };
          Value xr, xi;
          sample(n, xr, xi);
          if (realInverse) {
            // Bins past L/2 mirror the conjugate of bin L - n.
            Value mr, mi;
            sample(e.sub(e.i(len), n), mr, mi);
            Value mirror = e.icmp(IP::sge, n, e.i(len / 2 + 1));
            xr = e.sel(mirror, mr, xr);
            xi = e.sel(mirror, e.neg(mi), xi);
          }
          return twiddled(e, xr, xi, k, n, len, sign, c);
        });
    double scale = inverse ? 1.0 / static_cast<double>(len) : 1.0;
    rewriter.replaceOp(op,
                       scaleAndRound(rewriter, op.getLoc(), acc, scale, *type));
    return success();
  }
};

struct STFTLowering : OpConversionPattern<top::STFTOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::STFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    RankedTensorType inT = staticTensorType(adaptor.getSignal());
    int64_t frameLength = op.getFrameLength(), step = op.getFrameStep();
    if (!inT || inT.getRank() != 3 || type->getRank() != 4 || frameLength < 1 ||
        step < 1 || frameLength > inT.getDimSize(1))
      return rewriter.notifyMatchFailure(op, "unsupported STFT form");
    int64_t length = inT.getDimSize(1), channels = inT.getDimSize(2);
    RankedTensorType wT = isNone(adaptor.getWindow())
                              ? RankedTensorType()
                              : staticTensorType(adaptor.getWindow());
    if (type->getDimSize(0) != inT.getDimSize(0) || length < 1 ||
        (channels != 1 && channels != 2) ||
        (!isNone(adaptor.getWindow()) &&
         (!wT || wT.getShape() != ArrayRef<int64_t>{frameLength})))
      return rewriter.notifyMatchFailure(op, "signal/window/result shapes");
    Value signal = adaptor.getSignal(), window = adaptor.getWindow();
    bool hasWindow = !isNone(window);
    Value acc = sumGeneric(
        rewriter, op.getLoc(), type->getShape(), frameLength,
        [&](ScalarEmitter &e) {
          Value b = e.loopIndex(0), f = e.loopIndex(1), k = e.loopIndex(2),
                c = e.loopIndex(3), n = e.loopIndex(4);
          // The frame lies inside the signal for every frame of the result
          // shape; the clamp keeps a malformed shape from reading outside.
          Value t = e.iclamp(e.add(e.mul(f, e.i(step)), n), 0, length - 1);
          Value xr = e.toF64(e.at(signal, {b, t, e.i(0)}));
          Value xi =
              channels == 2 ? e.toF64(e.at(signal, {b, t, e.i(1)})) : e.f(0);
          if (hasWindow) {
            Value w = e.toF64(e.at(window, {n}));
            xr = e.mul(w, xr);
            xi = e.mul(w, xi);
          }
          return twiddled(e, xr, xi, k, n, frameLength, -1.0, c);
        });
    rewriter.replaceOp(op,
                       scaleAndRound(rewriter, op.getLoc(), acc, 1.0, *type));
    return success();
  }
};

struct WindowLowering : OpConversionPattern<top::WindowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::WindowOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    int64_t size = op.getSize();
    double period = static_cast<double>(op.getPeriodic() ? size : size - 1);
    top::WindowKind kind = op.getKind();
    bool isUnsigned = isUnsignedElement(op.getOutput());
    Type elem = type->getElementType();
    Value out =
        indexGeneric(rewriter, op.getLoc(), *type, [&](ScalarEmitter &e) {
          if (!(period > 0))
            return fromF64(e, e.f(1.0), elem, isUnsigned);
          Value phase = e.div(e.mul(e.f(2.0 * M_PI), e.toF64(e.loopIndex(0))),
                              e.f(period));
          Value v;
          if (kind == top::WindowKind::Hann)
            v = e.sub(e.f(0.5), e.mul(e.f(0.5), e.cos(phase)));
          else if (kind == top::WindowKind::Hamming)
            v = e.sub(e.f(25.0 / 46.0), e.mul(e.f(21.0 / 46.0), e.cos(phase)));
          else
            v = e.add(e.sub(e.f(0.42), e.mul(e.f(0.5), e.cos(phase))),
                      e.mul(e.f(0.08), e.cos(e.mul(e.f(2.0), phase))));
          return fromF64(e, v, elem, isUnsigned);
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

struct MelWeightMatrixLowering : OpConversionPattern<top::MelWeightMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::MelWeightMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    RankedTensorType loT = staticTensorType(adaptor.getLowerEdgeHertz());
    RankedTensorType hiT = staticTensorType(adaptor.getUpperEdgeHertz());
    if (!loT || !hiT || loT.getNumElements() != 1 ||
        hiT.getNumElements() != 1 || type->getRank() != 2)
      return rewriter.notifyMatchFailure(op, "edges must be one element");
    int64_t mels = op.getNumMelBins(), length = op.getDftLength(),
            rate = op.getSampleRate(), last = length / 2;
    bool isUnsigned = isUnsignedElement(op.getOutput());
    Type elem = type->getElementType();
    Value loV = adaptor.getLowerEdgeHertz(), hiV = adaptor.getUpperEdgeHertz();
    Value out =
        indexGeneric(rewriter, op.getLoc(), *type, [&](ScalarEmitter &e) {
          Value j = e.loopIndex(0), i = e.loopIndex(1);
          auto first = [&](Value t, RankedTensorType tt) {
            return e.toF64(e.at(t, SmallVector<Value>(tt.getRank(), e.i(0))));
          };
          auto toMel = [&](Value hz) {
            Value x = e.add(e.f(1.0), e.div(hz, e.f(700.0)));
            return e.mul(e.f(2595.0), math::Log10Op::create(e.b, e.l, x));
          };
          Value lo = toMel(first(loV, loT)), hi = toMel(first(hiV, hiT));
          Value step = e.div(e.sub(hi, lo), e.f(static_cast<double>(mels + 2)));
          // Corner point p as a spectrum bin; clamped to [0, L/2] (the
          // interpreter reports bins outside, and invalid edges) with NaN -> 0.
          auto corner = [&](Value p) {
            Value mel = e.add(lo, e.mul(e.toF64(p), step));
            Value pw = math::PowFOp::create(e.b, e.l, e.f(10.0),
                                            e.div(mel, e.f(2595.0)));
            Value hz = e.mul(e.f(700.0), e.sub(pw, e.f(1.0)));
            Value bin =
                e.floor(e.div(e.mul(e.f(static_cast<double>(length + 1)), hz),
                              e.f(static_cast<double>(rate))));
            bin = e.sel(e.cmp(P::UNO, bin, bin), e.f(0), bin);
            return e.toI64(e.fclamp(bin, 0, static_cast<double>(last)));
          };
          Value left = corner(i), center = corner(e.add(i, e.i(1))),
                right = corner(e.add(i, e.i(2)));
          Value fj = e.toF64(j);
          Value falling =
              e.land(e.icmp(IP::sge, j, center), e.icmp(IP::slt, j, right));
          Value fallV =
              e.div(e.sub(e.toF64(right), fj), e.toF64(e.sub(right, center)));
          Value flat = e.icmp(IP::eq, center, left);
          Value rising =
              e.land(e.icmp(IP::sge, j, left), e.icmp(IP::sle, j, center));
          Value riseV =
              e.div(e.sub(fj, e.toF64(left)), e.toF64(e.sub(center, left)));
          Value flatV = e.sel(e.icmp(IP::eq, j, center), e.f(1.0), e.f(0.0));
          Value v = e.sel(flat, flatV, e.sel(rising, riseV, e.f(0.0)));
          v = e.sel(falling, fallV, v);
          return fromF64(e, v, elem, isUnsigned);
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// Det: scf.for over the matrices; per matrix, elimination with partial
/// pivoting on an f64 copy. A zero pivot makes the determinant 0 (a flag:
/// the remaining steps still run on the copy, harmlessly).
struct DetLowering : OpConversionPattern<top::DetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::DetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    RankedTensorType inT = staticTensorType(adaptor.getInput());
    if (!inT || inT.getRank() < 2 ||
        inT.getDimSize(inT.getRank() - 1) != inT.getDimSize(inT.getRank() - 2))
      return rewriter.notifyMatchFailure(op, "input must be static [*, M, M]");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    int64_t m = inT.getDimSize(inT.getRank() - 1);
    int64_t count = type->getNumElements();
    if (type->getShape() != inT.getShape().drop_back(2))
      return rewriter.notifyMatchFailure(op, "result shape must be [*]");
    if (m == 0) { // the determinant of a 0 x 0 matrix is 1
      Value one = scalarConstant(b, loc, type->getElementType(), 1.0);
      rewriter.replaceOp(
          op, linalg::FillOp::create(b, loc, one, emptyTensor(b, loc, *type))
                  .getResult(0));
      return success();
    }
    // The matrices as count x M x M f64.
    auto f64T = [&](ArrayRef<int64_t> s) {
      return RankedTensorType::get(s, b.getF64Type());
    };
    Value a =
        buildElementwise(b, loc, f64T(inT.getShape()), adaptor.getInput(),
                         [](OpBuilder &nb, Location nl, ValueRange xs, Type) {
                           ScalarEmitter e{nb, nl};
                           return e.toF64(xs[0]);
                         });
    SmallVector<ReassociationIndices> toFlat;
    if (inT.getRank() == 2) {
      a = tensor::ExpandShapeOp::create(
          b, loc, f64T({1, m, m}), a,
          ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    } else {
      ReassociationIndices lead;
      for (int64_t d = 0; d < inT.getRank() - 2; ++d)
        lead.push_back(d);
      a = tensor::CollapseShapeOp::create(
          b, loc, f64T({count, m, m}), a,
          ArrayRef<ReassociationIndices>{
              lead, {inT.getRank() - 2}, {inT.getRank() - 1}});
    }
    ScalarEmitter e{b, loc};
    Value dets = emptyTensor(b, loc, f64T({count}));
    auto loopOf = [&](OpBuilder &lb, Location l, Value lo, Value hi,
                      ValueRange init,
                      llvm::function_ref<SmallVector<Value>(
                          OpBuilder &, Location, Value, ValueRange)>
                          body) {
      return scf::ForOp::create(
          lb, l, lo, hi, arith::ConstantIndexOp::create(lb, l, 1), init,
          [&](OpBuilder &nb, Location nl, Value iv, ValueRange args) {
            scf::YieldOp::create(nb, nl, body(nb, nl, iv, args));
          });
    };
    auto outer = loopOf(
        b, loc, e.idx(0), e.idx(count), ValueRange{a, dets},
        [&](OpBuilder &ob, Location ol, Value mi, ValueRange oargs) {
          ScalarEmitter s{ob, ol};
          Value falseV =
              arith::ConstantOp::create(ob, ol, ob.getBoolAttr(false));
          auto steps = loopOf(
              ob, ol, s.idx(0), s.idx(m),
              ValueRange{oargs[0], s.f(1.0), falseV},
              [&](OpBuilder &kb, Location kl, Value k, ValueRange kargs) {
                ScalarEmitter x{kb, kl};
                Value mat = kargs[0], det = kargs[1], zero = kargs[2];
                auto at = [&](ScalarEmitter &y, Value mt, Value r, Value c) {
                  return tensor::ExtractOp::create(y.b, y.l, mt,
                                                   ValueRange{mi, r, c})
                      .getResult();
                };
                Value k1 = x.add(k, x.idx(1));
                // Pivot: the first row with the largest |a[r, k]|.
                auto search = loopOf(
                    kb, kl, k1, x.idx(m), ValueRange{k},
                    [&](OpBuilder &rb, Location rl, Value r, ValueRange best) {
                      ScalarEmitter y{rb, rl};
                      Value better = y.cmp(P::OGT, y.abs(at(y, mat, r, k)),
                                           y.abs(at(y, mat, best[0], k)));
                      return SmallVector<Value>{y.sel(better, r, best[0])};
                    });
                Value piv = search.getResult(0);
                Value pv = at(x, mat, piv, k);
                zero = x.lor(zero, x.cmp(P::OEQ, pv, x.f(0.0)));
                Value swap = x.icmp(IP::ne, piv, k);
                det = x.sel(swap, x.neg(det), det);
                // Swap rows k and piv (a no-op when equal).
                auto swapped = loopOf(
                    kb, kl, x.idx(0), x.idx(m), ValueRange{mat},
                    [&](OpBuilder &cb, Location cl, Value c, ValueRange cm) {
                      ScalarEmitter y{cb, cl};
                      Value u = at(y, cm[0], k, c), v = at(y, cm[0], piv, c);
                      Value t = tensor::InsertOp::create(cb, cl, v, cm[0],
                                                         ValueRange{mi, k, c});
                      t = tensor::InsertOp::create(cb, cl, u, t,
                                                   ValueRange{mi, piv, c});
                      return SmallVector<Value>{t};
                    });
                mat = swapped.getResult(0);
                det = x.mul(det, pv);
                auto elim = loopOf(
                    kb, kl, k1, x.idx(m), ValueRange{mat},
                    [&](OpBuilder &rb, Location rl, Value r, ValueRange rm) {
                      ScalarEmitter y{rb, rl};
                      Value f = y.div(at(y, rm[0], r, k), pv);
                      auto cols = loopOf(
                          rb, rl, k1, y.idx(m), rm,
                          [&](OpBuilder &cb, Location cl, Value c,
                              ValueRange cm) {
                            ScalarEmitter z{cb, cl};
                            Value v = z.sub(at(z, cm[0], r, c),
                                            z.mul(f, at(z, cm[0], k, c)));
                            return SmallVector<Value>{tensor::InsertOp::create(
                                cb, cl, v, cm[0], ValueRange{mi, r, c})};
                          });
                      return SmallVector<Value>{cols.getResult(0)};
                    });
                return SmallVector<Value>{elim.getResult(0), det, zero};
              });
          Value det = s.sel(steps.getResult(2), s.f(0.0), steps.getResult(1));
          Value d =
              tensor::InsertOp::create(ob, ol, det, oargs[1], ValueRange{mi});
          return SmallVector<Value>{steps.getResult(0), d};
        });
    Value flat = outer.getResult(1);
    Value shaped;
    if (type->getRank() == 0)
      shaped = tensor::CollapseShapeOp::create(
          b, loc, f64T({}), flat, ArrayRef<ReassociationIndices>{});
    else if (type->getRank() == 1)
      shaped = flat;
    else {
      ReassociationIndices all;
      for (int64_t d = 0; d < type->getRank(); ++d)
        all.push_back(d);
      shaped =
          tensor::ExpandShapeOp::create(b, loc, f64T(type->getShape()), flat,
                                        ArrayRef<ReassociationIndices>{all});
    }
    rewriter.replaceOp(op, scaleAndRound(b, loc, shaped, 1.0, *type));
    return success();
  }
};

struct BitCastLowering : OpConversionPattern<top::BitCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::BitCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    auto inT = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!inT)
      return rewriter.notifyMatchFailure(op, "input is not ranked");
    Type from = inT.getElementType(), to = type->getElementType();
    auto width = [](Type t) -> unsigned {
      if (t.isInteger(1))
        return 8;
      return t.isIntOrFloat() ? t.getIntOrFloatBitWidth() : 0;
    };
    unsigned w = width(from);
    if (w == 0 || w != width(to))
      return rewriter.notifyMatchFailure(
          op, "element types of different widths (i1 counts as a byte)");
    Value r = buildElementwise(
        rewriter, op.getLoc(), *type, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ValueRange xs, Type) -> Value {
          Value v = xs[0];
          Type byte = b.getIntegerType(8);
          if (v.getType() == to)
            return v;
          if (from.isInteger(1))
            v = arith::ExtUIOp::create(b, l, byte, v);
          if (to.isInteger(1)) {
            if (v.getType() != byte)
              v = arith::BitcastOp::create(b, l, byte, v);
            return arith::CmpIOp::create(
                b, l, IP::ne, v,
                arith::ConstantOp::create(b, l, b.getIntegerAttr(byte, 0)));
          }
          if (v.getType() == to)
            return v;
          return arith::BitcastOp::create(b, l, to, v);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateTopToLinalgSignalPatterns(const TopTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<DFTLowering, STFTLowering, WindowLowering,
               MelWeightMatrixLowering, DetLowering, BitCastLowering>(
      converter, patterns.getContext());
}

} // namespace strata::conversion
