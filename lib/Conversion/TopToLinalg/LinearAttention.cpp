//===- LinearAttention.cpp - top.LinearAttention to linalg ----------------===//
//
// An scf.for over the positions carrying the state (`B x Hkv x Dk x Dv`, f64)
// and the output; each step is a few linalg.generic ops reading the
// position's inputs with tensor.extract. Arithmetic in f64 like the
// interpreter (TransformerOps.cpp), each result rounded once.
//
//===----------------------------------------------------------------------===//

#include "AttentionUtils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

namespace strata::conversion::attention {
namespace {

/// `v` (rank 3, `B x T x (H*D)` when `heads` > 0, else kept rank 3) as an
/// f64 tensor of rank 4 (`B x T x H x D`) or 3.
static Value asF64(OpBuilder &b, Location loc, Value v, int64_t heads) {
  auto t = cast<RankedTensorType>(v.getType());
  if (heads > 0) {
    auto expanded = RankedTensorType::get(
        {t.getDimSize(0), t.getDimSize(1), heads, t.getDimSize(2) / heads},
        t.getElementType());
    v = tensor::ExpandShapeOp::create(
        b, loc, expanded, v, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    t = expanded;
  }
  return buildElementwise(b, loc, f64Tensor(b, t.getShape()), v,
                          [](OpBuilder &nb, Location l, ValueRange xs, Type) {
                            return toF64(nb, l, xs[0]);
                          });
}

struct LinearAttentionLowering : OpConversionPattern<top::LinearAttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::LinearAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> outT =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(outT))
      return failure();
    FailureOr<RankedTensorType> stateT =
        staticResultType(op, 1, *getTypeConverter(), rewriter);
    if (failed(stateT))
      return failure();
    auto qT = dyn_cast<RankedTensorType>(adaptor.getQuery().getType());
    auto vT = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
    int64_t hq = op.getQNumHeads(), hkv = op.getKvNumHeads();
    if (!qT || !vT || !qT.hasStaticShape() || !vT.hasStaticShape() ||
        qT.getRank() != 3 || vT.getRank() != 3 || hq <= 0 || hkv <= 0 ||
        hq % hkv || qT.getDimSize(2) % hq || vT.getDimSize(2) % hkv)
      return rewriter.notifyMatchFailure(
          op, "query/key/value must be static rank 3 with dividing heads");
    top::UpdateRule rule = op.getUpdateRule();
    bool gating =
        rule == top::UpdateRule::Gated || rule == top::UpdateRule::GatedDelta;
    bool delta =
        rule == top::UpdateRule::Delta || rule == top::UpdateRule::GatedDelta;
    if (gating == isNone(adaptor.getDecay()) ||
        delta == isNone(adaptor.getBeta()))
      return rewriter.notifyMatchFailure(op, "decay/beta do not match the "
                                             "update rule");
    int64_t batch = qT.getDimSize(0), seq = qT.getDimSize(1);
    int64_t dk = qT.getDimSize(2) / hq, dv = vT.getDimSize(2) / hkv;
    int64_t group = hq / hkv;
    // Every operand and result shape, so that the reads at computed indices
    // stay in bounds.
    auto hasShape = [](Value v, ArrayRef<int64_t> shape) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getShape() == shape;
    };
    auto oneOf = [&](Value v, int64_t x, int64_t y) {
      return hasShape(v, {batch, seq, x}) || hasShape(v, {batch, seq, y});
    };
    if (!hasShape(adaptor.getKey(), {batch, seq, hkv * dk}) ||
        !hasShape(vT ? adaptor.getValue() : Value(), {batch, seq, hkv * dv}) ||
        (!isNone(adaptor.getPastState()) &&
         !hasShape(adaptor.getPastState(), {batch, hkv, dk, dv})) ||
        (gating && !oneOf(adaptor.getDecay(), hkv, hkv * dk)) ||
        (delta && !oneOf(adaptor.getBeta(), 1, hkv)) ||
        outT->getShape() != ArrayRef<int64_t>{batch, seq, hq * dv} ||
        stateT->getShape() != ArrayRef<int64_t>{batch, hkv, dk, dv})
      return rewriter.notifyMatchFailure(op, "operand or result shapes do not "
                                             "match query/key/value");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = b.getContext();
    Value q = asF64(b, loc, adaptor.getQuery(), hq);
    Value k = asF64(b, loc, adaptor.getKey(), hkv);
    Value v = asF64(b, loc, adaptor.getValue(), hkv);
    Value decay = gating ? asF64(b, loc, adaptor.getDecay(), 0) : Value();
    Value beta = delta ? asF64(b, loc, adaptor.getBeta(), 0) : Value();
    bool decayPerDim =
        gating && cast<RankedTensorType>(decay.getType()).getDimSize(2) != hkv;
    bool betaShared =
        delta && cast<RankedTensorType>(beta.getType()).getDimSize(2) == 1;
    RankedTensorType sT = f64Tensor(b, {batch, hkv, dk, dv});
    Value state =
        isNone(adaptor.getPastState())
            ? filled(b, loc, sT, 0.0)
            : buildElementwise(b, loc, sT, adaptor.getPastState(),
                               [](OpBuilder &nb, Location l, ValueRange xs,
                                  Type) { return toF64(nb, l, xs[0]); });
    // The output is built position-major (T x B x Hq x Dv): each step writes
    // one contiguous slice.
    RankedTensorType oT = f64Tensor(b, {seq, batch, hq, dv});
    Value out = emptyTensor(b, loc, oT);
    double scale = op.getScale().convertToDouble();
    if (scale == 0)
      scale = 1.0 / std::sqrt(static_cast<double>(dk));

    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    auto map = [&](unsigned n, ArrayRef<AffineExpr> e) {
      return AffineMap::get(n, 0, e, ctx);
    };
    AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
    SmallVector<IteratorType> par4(4, IteratorType::parallel);
    SmallVector<IteratorType> red4(3, IteratorType::parallel);
    red4.push_back(IteratorType::reduction);
    auto cIdx = [](OpBuilder &nb, Location l, int64_t x) -> Value {
      return arith::ConstantIndexOp::create(nb, l, x);
    };
    auto indices = [](OpBuilder &nb, Location l, unsigned n) {
      SmallVector<Value> idx;
      for (unsigned i = 0; i < n; ++i)
        idx.push_back(linalg::IndexOp::create(nb, l, i));
      return idx;
    };

    auto loop = scf::ForOp::create(
        b, loc, cIdx(b, loc, 0), cIdx(b, loc, seq), cIdx(b, loc, 1),
        ValueRange{state, out},
        [&](OpBuilder &lb, Location l, Value t, ValueRange iter) {
          // The state is updated in place (its generics write into it), so
          // the loop's yield bufferizes to the iteration argument.
          Value s = iter[0];
          // Gating: S[b,h,i,:] *= exp(decay[b,t,h*dk+i or h]).
          if (gating)
            s = generic(
                lb, l, s, ValueRange{}, {id4}, par4,
                [&](OpBuilder &nb, Location nl, ValueRange a) {
                  SmallVector<Value> idx = indices(nb, nl, 4);
                  Value col = idx[1];
                  if (decayPerDim)
                    col = arith::AddIOp::create(
                        nb, nl,
                        arith::MulIOp::create(nb, nl, idx[1], cIdx(nb, nl, dk)),
                        idx[2]);
                  Value g = tensor::ExtractOp::create(
                      nb, nl, decay, ValueRange{idx[0], t, col});
                  return arith::MulFOp::create(nb, nl, a[0],
                                               math::ExpOp::create(nb, nl, g));
                });
          // vt[b,h,j]: v, or beta * (v - S^T k) with the delta rule.
          RankedTensorType vtT = f64Tensor(lb, {batch, hkv, dv});
          AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
          SmallVector<IteratorType> par3(3, IteratorType::parallel);
          Value retrieved;
          if (delta)
            // (b, h, j, i): sum_i S[b,h,i,j] * k[b,t,h,i].
            retrieved = generic(
                lb, l, filled(lb, l, vtT, 0.0), s,
                {map(4, {dim(0), dim(1), dim(3), dim(2)}),
                 map(4, {dim(0), dim(1), dim(2)})},
                red4, [&](OpBuilder &nb, Location nl, ValueRange a) {
                  SmallVector<Value> idx = indices(nb, nl, 4);
                  Value kv = tensor::ExtractOp::create(
                      nb, nl, k, ValueRange{idx[0], t, idx[1], idx[3]});
                  return arith::AddFOp::create(
                      nb, nl, a[1], arith::MulFOp::create(nb, nl, a[0], kv));
                });
          Value vt = generic(
              lb, l, emptyTensor(lb, l, vtT),
              delta ? ValueRange{retrieved} : ValueRange{},
              delta ? SmallVector<AffineMap>{id3, id3}
                    : SmallVector<AffineMap>{id3},
              par3, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                SmallVector<Value> idx = indices(nb, nl, 3);
                Value x = tensor::ExtractOp::create(
                    nb, nl, v, ValueRange{idx[0], t, idx[1], idx[2]});
                if (!delta)
                  return x;
                Value bt = tensor::ExtractOp::create(
                    nb, nl, beta,
                    ValueRange{idx[0], t,
                               betaShared ? cIdx(nb, nl, 0) : idx[1]});
                return arith::MulFOp::create(
                    nb, nl, bt, arith::SubFOp::create(nb, nl, x, a[0]));
              });
          // S[b,h,i,j] += k[b,t,h,i] * vt[b,h,j].
          s = generic(lb, l, s, {vt}, {map(4, {dim(0), dim(1), dim(3)}), id4},
                      par4, [&](OpBuilder &nb, Location nl, ValueRange a) {
                        SmallVector<Value> idx = indices(nb, nl, 4);
                        Value kv = tensor::ExtractOp::create(
                            nb, nl, k, ValueRange{idx[0], t, idx[1], idx[2]});
                        return arith::AddFOp::create(
                            nb, nl, a[1],
                            arith::MulFOp::create(nb, nl, kv, a[0]));
                      });
          // o[b,qh,j] = scale * sum_i q[b,t,qh,i] * S[b,qh/group,i,j] over
          // (b, qh, j, i).
          RankedTensorType rowT = f64Tensor(lb, {batch, hq, dv});
          Value o = generic(
              lb, l, filled(lb, l, rowT, 0.0), s,
              {map(4, {dim(0), dim(1).floorDiv(group), dim(3), dim(2)}),
               map(4, {dim(0), dim(1), dim(2)})},
              red4, [&](OpBuilder &nb, Location nl, ValueRange a) {
                SmallVector<Value> idx = indices(nb, nl, 4);
                Value qv = tensor::ExtractOp::create(
                    nb, nl, q, ValueRange{idx[0], t, idx[1], idx[3]});
                return arith::AddFOp::create(
                    nb, nl, a[1], arith::MulFOp::create(nb, nl, qv, a[0]));
              });
          o = generic(lb, l, emptyTensor(lb, l, rowT), o, {id3, id3}, par3,
                      [&](OpBuilder &nb, Location nl, ValueRange a) {
                        return arith::MulFOp::create(
                            nb, nl, a[0],
                            scalarConstant(nb, nl, nb.getF64Type(), scale));
                      });
          // out[t] = o, element by element (an insert_slice at the dynamic
          // offset t would need affine lowering after strided-metadata
          // expansion, which the CPU pipeline does not run).
          auto copy = scf::ForOp::create(
              lb, l, cIdx(lb, l, 0), cIdx(lb, l, batch * hq * dv),
              cIdx(lb, l, 1), ValueRange{iter[1]},
              [&](OpBuilder &cb, Location cl, Value e, ValueRange acc) {
                Value j = arith::RemUIOp::create(cb, cl, e, cIdx(cb, cl, dv));
                Value rest =
                    arith::DivUIOp::create(cb, cl, e, cIdx(cb, cl, dv));
                Value h =
                    arith::RemUIOp::create(cb, cl, rest, cIdx(cb, cl, hq));
                Value bi =
                    arith::DivUIOp::create(cb, cl, rest, cIdx(cb, cl, hq));
                Value x =
                    tensor::ExtractOp::create(cb, cl, o, ValueRange{bi, h, j});
                Value r = tensor::InsertOp::create(cb, cl, x, acc[0],
                                                   ValueRange{t, bi, h, j});
                scf::YieldOp::create(cb, cl, r);
              });
          Value newOut = copy.getResult(0);
          scf::YieldOp::create(lb, l, ValueRange{s, newOut});
        });

    // B x T x (Hq*Dv) from T x B x Hq x Dv, rounded.
    Type outElem = outT->getElementType();
    RankedTensorType out4 =
        RankedTensorType::get({batch, seq, hq, dv}, outElem);
    Value y = generic(b, loc, emptyTensor(b, loc, out4), loop.getResult(1),
                      {map(4, {dim(1), dim(0), dim(2), dim(3)}), id4}, par4,
                      [&](OpBuilder &nb, Location l, ValueRange a) {
                        return fromF64(nb, l, a[0], outElem);
                      });
    y = tensor::CollapseShapeOp::create(
        b, loc, *outT, y, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    rewriter.replaceOp(op, {y, roundTo(b, loc, loop.getResult(0), *stateT)});
    return success();
  }
};

} // namespace

void populateLinearAttentionPattern(const TopTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<LinearAttentionLowering>(converter, patterns.getContext());
}

} // namespace strata::conversion::attention
