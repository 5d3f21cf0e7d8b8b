//===- Geometry.cpp - GridSample, AffineGrid, Col2Im, RoiAlign to linalg --===//
//
// Each op is one linalg.generic over its result whose body computes, per
// output element and in f64 like the interpreter (GeometryOps.cpp), the
// sample positions and reads the input with tensor.extract. Every index read
// is clamped into the tensor; taps outside the image are dropped with a
// select (not multiplied by 0, so an inf/NaN pixel there does not leak), so
// no input value or coordinate can make the code read out of bounds.
//
//===----------------------------------------------------------------------===//

#include "ScalarEmitter.h"
#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/Shapes/GeometryShapes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;

namespace strata::conversion {
namespace {

using P = arith::CmpFPredicate;
using IP = arith::CmpIPredicate;

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

/// `x` reflected at `lo` and `hi` (constants) until inside, as the
/// interpreter's `reflect`.
static Value reflect(ScalarEmitter &e, Value x, double lo, double hi) {
  double range = hi - lo;
  if (range <= 0)
    return e.f(lo);
  Value below = e.cmp(P::OLT, x, e.f(lo));
  Value above = e.cmp(P::OGT, x, e.f(hi));
  Value dx = e.sel(below, e.sub(e.f(lo), x), e.sub(x, e.f(hi)));
  Value r = e.rem(dx, e.f(range));
  Value even = e.cmp(P::OLT, e.rem(dx, e.f(2 * range)), e.f(range));
  Value loR = e.add(e.f(lo), r), hiR = e.sub(e.f(hi), r);
  Value out = e.sel(below, e.sel(even, loR, hiR), e.sel(even, hiR, loR));
  return e.sel(e.lor(below, above), out, x);
}

/// The taps of one grid coordinate along one dim: clamped indices (i64), a
/// validity flag (zeros padding) and weights (f64).
struct Taps {
  SmallVector<Value, 4> index, valid, weight;
};

struct GridSampleLowering : OpConversionPattern<top::GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::GridSampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    RankedTensorType inT = staticTensorType(adaptor.getInput());
    RankedTensorType gT = staticTensorType(adaptor.getGrid());
    if (!inT || !gT || inT.getRank() < 3 || gT.getRank() != inT.getRank() ||
        gT.getDimSize(gT.getRank() - 1) != inT.getRank() - 2)
      return rewriter.notifyMatchFailure(op, "input and grid must be static "
                                             "N x C x D... and N x H... x r");
    int64_t r = inT.getRank() - 2;
    // Output N x C x H...; grid N x H... x r.
    bool shapesOk = type->getRank() == inT.getRank() &&
                    gT.getDimSize(0) == inT.getDimSize(0) &&
                    type->getDimSize(0) == inT.getDimSize(0) &&
                    type->getDimSize(1) == inT.getDimSize(1);
    for (int64_t d = 0; shapesOk && d < r; ++d)
      shapesOk = type->getDimSize(2 + d) == gT.getDimSize(1 + d);
    if (!shapesOk)
      return rewriter.notifyMatchFailure(op, "result shape does not match "
                                             "input and grid");
    int64_t taps = op.getMode() == top::Interpolation::Cubic    ? 4
                   : op.getMode() == top::Interpolation::Linear ? 2
                                                                : 1;
    if (std::pow(taps, r) > 4096)
      return rewriter.notifyMatchFailure(op, "too many taps per sample");
    top::Interpolation mode = op.getMode();
    top::GridPadding pad = op.getPaddingMode();
    bool align = op.getAlignCorners();
    Value input = adaptor.getInput(), grid = adaptor.getGrid();
    Type elem = type->getElementType();

    Value r0 =
        indexGeneric(rewriter, op.getLoc(), *type, [&](ScalarEmitter &e) {
          SmallVector<Value> pos;
          for (int64_t d = 0; d < type->getRank(); ++d)
            pos.push_back(e.loopIndex(d));
          Value finite = Value();
          SmallVector<Taps> all(r);
          for (int64_t d = 0; d < r; ++d) {
            int64_t len = inT.getDimSize(2 + d);
            double dl = static_cast<double>(len);
            SmallVector<Value> gi{pos[0]};
            gi.append(pos.begin() + 2, pos.end());
            gi.push_back(e.i(r - 1 - d)); // the grid lists x first
            Value g = e.toF64(e.at(grid, gi));
            Value x =
                align ? e.mul(e.div(e.add(g, e.f(1)), e.f(2)), e.f(dl - 1))
                      : e.div(e.sub(e.mul(e.add(g, e.f(1)), e.f(dl)), e.f(1)),
                              e.f(2));
            Value ok = e.isFinite(x);
            finite = finite ? e.land(finite, ok) : ok;
            x = e.sel(ok, x, e.f(0)); // the result is NaN anyway
            double lo = align ? 0.0 : -0.5, hi = align ? dl - 1 : dl - 0.5;
            if (mode == top::Interpolation::Nearest)
              x = math::RoundEvenOp::create(e.b, e.l, x);
            Value outside =
                e.lor(e.cmp(P::OLT, x, e.f(lo)), e.cmp(P::OGT, x, e.f(hi)));
            Value moved = pad == top::GridPadding::Border
                              ? e.fclamp(x, 0, dl - 1)
                          : pad == top::GridPadding::Reflection
                              ? reflect(e, x, lo, hi)
                              : e.fclamp(x, -4.0, dl + 4.0);
            x = e.sel(outside, moved, x);
            Value fl = e.floor(x);
            Value x0 = e.toI64(fl), frac = e.sub(x, fl);
            Taps &t = all[d];
            auto add = [&](int64_t k, Value w) {
              Value i = e.add(x0, e.i(k));
              Value valid = e.icmp(IP::eq, e.i(0), e.i(0));
              if (pad == top::GridPadding::Reflection)
                i = e.iclamp(e.toI64(reflect(e, e.toF64(i), lo, hi)), 0,
                             len - 1);
              else if (pad == top::GridPadding::Zeros)
                valid = e.land(e.icmp(IP::sge, i, e.i(0)),
                               e.icmp(IP::slt, i, e.i(len)));
              t.index.push_back(e.iclamp(i, 0, len - 1));
              t.valid.push_back(valid);
              t.weight.push_back(w);
            };
            if (mode == top::Interpolation::Nearest) {
              add(0, e.f(1.0));
            } else if (mode == top::Interpolation::Linear) {
              add(0, e.sub(e.f(1.0), frac));
              add(1, frac);
            } else {
              // Keys cubic weights with a = -0.75 (the interpreter's
              // cubicWeights).
              const double a = -0.75;
              auto nearW = [&](Value v) {
                Value p = e.sub(e.mul(e.f(a + 2), v), e.f(a + 3));
                return e.add(e.mul(e.mul(p, v), v), e.f(1));
              };
              auto farW = [&](Value v) {
                Value p = e.add(e.mul(e.sub(e.mul(e.f(a), v), e.f(5 * a)), v),
                                e.f(8 * a));
                return e.sub(e.mul(p, v), e.f(4 * a));
              };
              add(-1, farW(e.add(frac, e.f(1))));
              add(0, nearW(frac));
              add(1, nearW(e.sub(e.f(1), frac)));
              add(2, farW(e.sub(e.f(2), frac)));
            }
          }
          // The weighted sum over every combination of taps, last dim fastest.
          Value sum = e.f(0.0);
          SmallVector<int64_t> k(r, 0);
          while (true) {
            Value w = e.f(1.0), valid = Value();
            SmallVector<Value> at{pos[0], pos[1]};
            for (int64_t d = 0; d < r; ++d) {
              w = e.mul(w, all[d].weight[k[d]]);
              Value v = all[d].valid[k[d]];
              valid = valid ? e.land(valid, v) : v;
              at.push_back(all[d].index[k[d]]);
            }
            Value use = e.land(valid, e.cmp(P::UNE, w, e.f(0.0)));
            Value term = e.mul(w, e.toF64(e.at(input, at)));
            sum = e.sel(use, e.add(sum, term), sum);
            int64_t d = r;
            while (d > 0 && ++k[d - 1] == taps)
              k[--d] = 0;
            if (d == 0)
              break;
          }
          sum = e.sel(finite, sum, e.f(std::nan("")));
          return e.round(sum, elem);
        });
    rewriter.replaceOp(op, r0);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// AffineGrid
//===----------------------------------------------------------------------===//

struct AffineGridLowering : OpConversionPattern<top::AffineGridOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::AffineGridOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    ArrayRef<int64_t> size = op.getSize();
    int64_t r = static_cast<int64_t>(size.size()) - 2;
    RankedTensorType thetaT = staticTensorType(adaptor.getTheta());
    SmallVector<int64_t> gridShape{size[0]};
    gridShape.append(size.begin() + 2, size.end());
    gridShape.push_back(r);
    if (r < 1 || !thetaT || type->getShape() != ArrayRef(gridShape) ||
        thetaT.getShape() != ArrayRef<int64_t>{size[0], r, r + 1})
      return rewriter.notifyMatchFailure(op, "size/theta/result mismatch");
    bool align = op.getAlignCorners();
    Value theta = adaptor.getTheta();
    Type elem = type->getElementType();
    Value out =
        indexGeneric(rewriter, op.getLoc(), *type, [&](ScalarEmitter &e) {
          Value n = e.loopIndex(0), i = e.loopIndex(r + 1);
          Value v = e.f(0.0);
          for (int64_t j = 0; j <= r; ++j) {
            Value base;
            if (j == r) {
              base = e.f(1.0);
            } else {
              int64_t d = r - 1 - j; // x along the last dim
              int64_t len = size[2 + d];
              Value di = e.toF64(e.loopIndex(1 + d));
              double dl = static_cast<double>(len);
              if (align)
                base = len == 1 ? e.f(-1.0)
                                : e.add(e.f(-1),
                                        e.div(e.mul(e.f(2), di), e.f(dl - 1)));
              else
                base = e.add(e.f(-1),
                             e.div(e.add(e.mul(e.f(2), di), e.f(1)), e.f(dl)));
            }
            Value t = e.toF64(e.at(theta, {n, i, e.i(j)}));
            v = e.add(v, e.mul(t, base));
          }
          return e.round(v, elem);
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Col2Im
//===----------------------------------------------------------------------===//

/// Gathers instead of scattering: for an output position and each kernel
/// offset k (in order, as the interpreter adds them), at most one block l
/// covers the position; its column value is added if it exists.
struct Col2ImLowering : OpConversionPattern<top::Col2ImOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::Col2ImOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    auto optional =
        [](std::optional<ArrayRef<int64_t>> a) -> std::optional<strata::Ints> {
      if (!a)
        return std::nullopt;
      return strata::Ints(*a);
    };
    top::shapes::Col2ImAttrs attrs{
        op.getImageShape(), op.getBlockShape(), optional(op.getStrides()),
        optional(op.getPads()), optional(op.getDilations())};
    auto geometry = top::shapes::col2imGeometry(attrs);
    if (!geometry)
      return rewriter.notifyMatchFailure(op, "invalid geometry attributes");
    const top::shapes::Col2ImGeometry &g = *geometry;
    int64_t r = static_cast<int64_t>(g.image.size());
    int64_t kn = 1, ln = 1;
    for (int64_t d = 0; d < r; ++d) {
      kn *= g.block[d];
      ln *= g.blocks[d];
    }
    if (kn > 4096)
      return rewriter.notifyMatchFailure(op, "block larger than 4096 "
                                             "elements");
    RankedTensorType inT = staticTensorType(adaptor.getInput());
    SmallVector<int64_t> outShape;
    if (inT && inT.getRank() == 3) {
      outShape = {inT.getDimSize(0), inT.getDimSize(1) / kn};
      outShape.append(g.image.begin(), g.image.end());
    }
    if (!inT || inT.getRank() != 3 || inT.getDimSize(1) % kn ||
        inT.getDimSize(2) != ln || type->getShape() != ArrayRef(outShape))
      return rewriter.notifyMatchFailure(op, "input/result shapes do not "
                                             "match the geometry");
    Value input = adaptor.getInput();
    Type elem = type->getElementType();
    Value out =
        indexGeneric(rewriter, op.getLoc(), *type, [&](ScalarEmitter &e) {
          Value n = e.loopIndex(0), c = e.loopIndex(1);
          SmallVector<Value> p;
          for (int64_t d = 0; d < r; ++d)
            p.push_back(e.loopIndex(2 + d));
          Value acc = e.f(0.0);
          for (int64_t k = 0; k < kn; ++k) {
            SmallVector<int64_t> kIdx(r);
            int64_t rem = k;
            for (int64_t d = r - 1; d >= 0; --d) {
              kIdx[d] = rem % g.block[d];
              rem /= g.block[d];
            }
            Value valid, l = e.i(0);
            for (int64_t d = 0; d < r; ++d) {
              // l_d * stride = p + pad - k_d * dilation.
              Value num =
                  e.add(p[d], e.i(g.pads[d] - kIdx[d] * g.dilations[d]));
              Value nonNeg = e.icmp(IP::sge, num, e.i(0));
              Value safe = e.imax(num, e.i(0));
              Value q =
                  arith::DivUIOp::create(e.b, e.l, safe, e.i(g.strides[d]));
              Value exact = e.icmp(
                  IP::eq,
                  arith::RemUIOp::create(e.b, e.l, safe, e.i(g.strides[d])),
                  e.i(0));
              Value inRange = e.icmp(IP::slt, q, e.i(g.blocks[d]));
              Value ok = e.land(nonNeg, e.land(exact, inRange));
              valid = valid ? e.land(valid, ok) : ok;
              l = e.add(e.mul(l, e.i(g.blocks[d])),
                        e.iclamp(q, 0, g.blocks[d] - 1));
            }
            Value row = e.add(e.mul(c, e.i(kn)), e.i(k));
            Value v = e.toF64(e.at(input, {n, row, l}));
            acc = e.sel(valid, e.add(acc, v), acc);
          }
          return e.round(acc, elem);
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

/// `std::max(a, b)` on f64 (`a < b ? b : a`: a NaN `b` is ignored).
static Value stdMax(ScalarEmitter &e, Value a, Value b) {
  return e.sel(e.cmp(P::OLT, a, b), b, a);
}

/// Per output bin, an scf.for nest over the bin's sampling grid (its size
/// depends on the region when sampling_ratio is 0) accumulating the
/// bilinear samples exactly as the interpreter orders them.
struct RoiAlignLowering : OpConversionPattern<top::RoiAlignOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::RoiAlignOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    RankedTensorType inT = staticTensorType(adaptor.getInput());
    if (!inT || inT.getRank() != 4 || type->getRank() != 4 ||
        inT.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "input must be a static, "
                                             "non-empty N x C x H x W");
    RankedTensorType roisT = staticTensorType(adaptor.getRois());
    RankedTensorType batchT = staticTensorType(adaptor.getBatchIndices());
    int64_t numRois = type->getDimSize(0);
    if (!roisT || !batchT ||
        roisT.getShape() != ArrayRef<int64_t>{numRois, 4} ||
        batchT.getShape() != ArrayRef<int64_t>{numRois} ||
        type->getDimSize(1) != inT.getDimSize(1))
      return rewriter.notifyMatchFailure(op, "rois/batch_indices/result "
                                             "shapes do not match");
    int64_t n = inT.getDimSize(0), h = inT.getDimSize(2), w = inT.getDimSize(3);
    int64_t oh = type->getDimSize(2), ow = type->getDimSize(3);
    double scale = op.getSpatialScale().convertToDouble();
    bool halfPixel = op.getCoordinateTransformationMode() ==
                     top::RoiCoordinateMode::HalfPixel;
    bool avg = op.getMode() == top::RoiPoolMode::Avg;
    int64_t ratio = static_cast<int64_t>(op.getSamplingRatio());
    bool batchUnsigned = isUnsignedElement(op.getBatchIndices());
    Value input = adaptor.getInput(), rois = adaptor.getRois(),
          batch = adaptor.getBatchIndices();
    Type elem = type->getElementType();
    Value out =
        indexGeneric(rewriter, op.getLoc(), *type, [&](ScalarEmitter &e) {
          Value roi = e.loopIndex(0), ch = e.loopIndex(1);
          Value ph = e.toF64(e.loopIndex(2)), pw = e.toF64(e.loopIndex(3));
          // An out-of-range batch index is clamped (the interpreter reports
          // it).
          Value bi = e.at(batch, {roi});
          if (!bi.getType().isInteger(64))
            bi = batchUnsigned
                     ? arith::ExtUIOp::create(e.b, e.l, e.b.getI64Type(), bi)
                           .getResult()
                     : arith::ExtSIOp::create(e.b, e.l, e.b.getI64Type(), bi)
                           .getResult();
          bi = e.iclamp(bi, 0, n - 1);
          double shift = halfPixel ? 0.5 : 0.0;
          auto coord = [&](int64_t k) {
            return e.sub(e.mul(e.toF64(e.at(rois, {roi, e.i(k)})), e.f(scale)),
                         e.f(shift));
          };
          Value x1 = coord(0), y1 = coord(1), x2 = coord(2), y2 = coord(3);
          Value rw = e.sub(x2, x1), rh = e.sub(y2, y1);
          if (!halfPixel) {
            rw = stdMax(e, rw, e.f(1.0));
            rh = stdMax(e, rh, e.f(1.0));
          }
          Value binH = e.div(rh, e.f(static_cast<double>(oh)));
          Value binW = e.div(rw, e.f(static_cast<double>(ow)));
          // A non-finite region (an interpreter error) samples nothing.
          Value finite = e.land(e.isFinite(binH), e.isFinite(binW));
          auto gridOf = [&](Value bin) -> Value {
            if (ratio > 0)
              return e.i(ratio);
            // ceil(bin) in [0, 4096] (the interpreter's limit is an error).
            Value g = e.fclamp(e.sel(finite, e.ceil(bin), e.f(0)), 0, 4096);
            return e.toI64(g);
          };
          Value gridH = e.sel(finite, gridOf(binH), e.i(0));
          Value gridW = e.sel(finite, gridOf(binW), e.i(0));
          Value count = e.toF64(e.imax(e.mul(gridH, gridW), e.i(1)));
          Value gh = e.toF64(gridH), gw = e.toF64(gridW);
          Value trueV =
              arith::ConstantOp::create(e.b, e.l, e.b.getBoolAttr(true));
          auto outer = scf::ForOp::create(
              e.b, e.l, e.idx(0), e.toIndex(gridH), e.idx(1),
              ValueRange{e.f(0.0), trueV},
              [&](OpBuilder &ob, Location ol, Value iy, ValueRange oacc) {
                ScalarEmitter oe{ob, ol};
                auto inner = scf::ForOp::create(
                    ob, ol, oe.idx(0), oe.toIndex(gridW), oe.idx(1), oacc,
                    [&](OpBuilder &ib, Location il, Value ix, ValueRange acc) {
                      ScalarEmitter s{ib, il};
                      Value y = s.add(
                          s.add(y1, s.mul(ph, binH)),
                          s.div(s.mul(s.add(s.toF64(iy), s.f(0.5)), binH), gh));
                      Value x = s.add(
                          s.add(x1, s.mul(pw, binW)),
                          s.div(s.mul(s.add(s.toF64(ix), s.f(0.5)), binW), gw));
                      Value outside = s.lor(
                          s.lor(s.cmp(P::OLT, y, s.f(-1.0)),
                                s.cmp(P::OGT, y, s.f(static_cast<double>(h)))),
                          s.lor(s.cmp(P::OLT, x, s.f(-1.0)),
                                s.cmp(P::OGT, x, s.f(static_cast<double>(w)))));
                      // Inside: y, x in [0, h] / [0, w]; the low tap is clamped
                      // to the last pixel, the high one follows it.
                      auto axis = [&](Value v, int64_t len, Value &lo,
                                      Value &hi, Value &frac) {
                        v = s.fclamp(s.sel(outside, s.f(0), v), 0.0,
                                     static_cast<double>(len));
                        Value il0 = s.toI64(v);
                        Value last = s.icmp(IP::sge, il0, s.i(len - 1));
                        lo = s.sel(last, s.i(len - 1), il0);
                        hi = s.sel(last, s.i(len - 1), s.add(il0, s.i(1)));
                        v = s.sel(last, s.toF64(lo), v);
                        frac = s.sub(v, s.toF64(lo));
                      };
                      Value yl, yh, ly, xl, xh, lx;
                      axis(y, h, yl, yh, ly);
                      axis(x, w, xl, xh, lx);
                      Value hy = s.sub(s.f(1), ly), hx = s.sub(s.f(1), lx);
                      Value zero = s.f(0.0), i0 = s.i(0);
                      auto pick = [&](Value v, Value z) {
                        return s.sel(outside, z, v);
                      };
                      Value wts[4] = {
                          pick(s.mul(hy, hx), zero), pick(s.mul(hy, lx), zero),
                          pick(s.mul(ly, hx), zero), pick(s.mul(ly, lx), zero)};
                      Value ys[4] = {pick(yl, i0), pick(yl, i0), pick(yh, i0),
                                     pick(yh, i0)};
                      Value xs[4] = {pick(xl, i0), pick(xh, i0), pick(xl, i0),
                                     pick(xh, i0)};
                      Value terms[4];
                      for (int k = 0; k < 4; ++k)
                        terms[k] =
                            s.mul(wts[k],
                                  s.toF64(s.at(input, {bi, ch, ys[k], xs[k]})));
                      Value a = acc[0], first = acc[1];
                      if (avg) {
                        for (Value t : terms)
                          a = s.add(a, t);
                      } else {
                        Value m = terms[0];
                        for (int k = 1; k < 4; ++k)
                          m = stdMax(s, m, terms[k]);
                        a = s.sel(first, m, stdMax(s, a, m));
                        first = arith::ConstantOp::create(
                            ib, il, ib.getBoolAttr(false));
                      }
                      scf::YieldOp::create(ib, il, ValueRange{a, first});
                    });
                scf::YieldOp::create(ob, ol, inner.getResults());
              });
          Value acc = outer.getResult(0);
          if (avg)
            acc = e.div(acc, count);
          return e.round(acc, elem);
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

} // namespace

void populateTopToLinalgGeometryPatterns(const TopTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<GridSampleLowering, AffineGridLowering, Col2ImLowering,
               RoiAlignLowering>(converter, patterns.getContext());
}

} // namespace strata::conversion
