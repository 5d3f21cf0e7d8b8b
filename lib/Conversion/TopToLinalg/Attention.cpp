//===- Attention.cpp - top.Attention, top.LinearAttention to linalg -------===//
//
// Both ops compute in f64 like the interpreter (TransformerOps.cpp) and round
// each result once to its element type.
//
// Attention: query, key and value become `B x H x S x D` f64 tensors (rank-3
// `B x S x (H*D)` inputs are expanded and read transposed), the KV cache is
// concatenated in front of key/value, then a chain of linalg.generic ops:
// scores (reduction over D; query head h reads kv head h / group through a
// floordiv indexing map), scale + softcap, bias (mask read with
// tensor.extract at clamped indices, causal and nonpad masks from
// linalg.index), the row max / exp / sum / divide of the softmax, and the
// weighted sum of values.
//
// LinearAttention: an scf.for over the positions carrying the state
// (`B x Hkv x Dk x Dv`) and the output; each step is a few linalg.generic ops
// on the position's slices.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace strata::conversion {
namespace {

using utils::IteratorType;

static RankedTensorType f64Tensor(OpBuilder &b, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, b.getF64Type());
}

/// A scalar float `x` as f64.
static Value toF64(OpBuilder &b, Location l, Value x) {
  if (x.getType().isF64())
    return x;
  return arith::ExtFOp::create(b, l, b.getF64Type(), x);
}

/// An f64 scalar rounded to float type `t`.
static Value fromF64(OpBuilder &b, Location l, Value x, Type t) {
  if (t == x.getType())
    return x;
  return arith::TruncFOp::create(b, l, t, x);
}

/// A generic with the given maps (inputs then the one output) and
/// iterators; `body` gets the block arguments (inputs, then the output's
/// current value).
static Value
generic(OpBuilder &b, Location loc, Value init, ValueRange inputs,
        ArrayRef<AffineMap> maps, ArrayRef<IteratorType> iterators,
        llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return g.getResult(0);
}

/// A tensor of `type` filled with `v`.
static Value filled(OpBuilder &b, Location loc, RankedTensorType type,
                    double v) {
  Value c = scalarConstant(b, loc, type.getElementType(), v);
  return linalg::FillOp::create(b, loc, c, emptyTensor(b, loc, type))
      .getResult(0);
}

/// `value` (`B x S x H x D` as `B x S x (H*D)` when `rank3`, else
/// `B x H x S x D`) as an f64 `B x H x S x D` tensor.
static Value headsFirst(OpBuilder &b, Location loc, Value value, bool rank3,
                        int64_t heads, int64_t size) {
  auto t = cast<RankedTensorType>(value.getType());
  MLIRContext *ctx = b.getContext();
  int64_t batch = t.getDimSize(0);
  int64_t seq = t.getDimSize(rank3 ? 1 : 2);
  AffineMap in = AffineMap::getMultiDimIdentityMap(4, ctx);
  if (rank3) {
    auto expanded = RankedTensorType::get({batch, seq, heads, size},
                                          t.getElementType());
    value = tensor::ExpandShapeOp::create(
        b, loc, expanded, value,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    in = AffineMap::getPermutationMap(ArrayRef<unsigned>{0, 2, 1, 3}, ctx);
  }
  RankedTensorType out = f64Tensor(b, {batch, heads, seq, size});
  return generic(b, loc, emptyTensor(b, loc, out), value,
                 {in, AffineMap::getMultiDimIdentityMap(4, ctx)},
                 SmallVector<IteratorType>(4, IteratorType::parallel),
                 [](OpBuilder &nb, Location l, ValueRange a) {
                   return toF64(nb, l, a[0]);
                 });
}

/// `past` (f64-converted, `B x H x P x D`) followed by `cur` along dim 2,
/// as one generic reading either with tensor.extract (an insert_slice pair
/// would bufferize to strided copies needing a runtime helper).
static Value concatSeq(OpBuilder &b, Location loc, Value past, Value cur) {
  auto pt = cast<RankedTensorType>(past.getType());
  auto ct = cast<RankedTensorType>(cur.getType());
  SmallVector<int64_t> shape(ct.getShape());
  int64_t p = pt.getDimSize(2);
  shape[2] += p;
  MLIRContext *ctx = b.getContext();
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{f64Tensor(b, shape)}, ValueRange{},
      ValueRange{emptyTensor(b, loc, f64Tensor(b, shape))},
      {AffineMap::getMultiDimIdentityMap(4, ctx)},
      SmallVector<IteratorType>(4, IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange) {
        SmallVector<Value> idx;
        for (unsigned i = 0; i < 4; ++i)
          idx.push_back(linalg::IndexOp::create(nb, l, i));
        Value pc = arith::ConstantIndexOp::create(nb, l, p);
        Value inPast = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                             idx[2], pc);
        // Both reads stay in bounds: the unused one is clamped.
        SmallVector<Value> pi = idx, ci = idx;
        pi[2] = arith::MinUIOp::create(
            nb, l, idx[2], arith::ConstantIndexOp::create(nb, l, p ? p - 1 : 0));
        ci[2] = arith::SelectOp::create(
            nb, l, inPast, arith::ConstantIndexOp::create(nb, l, 0),
            arith::SubIOp::create(nb, l, idx[2], pc));
        Value fromCur = tensor::ExtractOp::create(nb, l, cur, ci);
        Value r = fromCur;
        if (p > 0)
          r = arith::SelectOp::create(
              nb, l, inPast, tensor::ExtractOp::create(nb, l, past, pi),
              fromCur);
        linalg::YieldOp::create(nb, l, r);
      });
  return g.getResult(0);
}

/// Every element of the f64 tensor `v` rounded to `type`'s element type.
static Value roundTo(OpBuilder &b, Location loc, Value v,
                     RankedTensorType type) {
  return buildElementwise(b, loc, type, v,
                          [](OpBuilder &nb, Location l, ValueRange xs,
                             Type t) { return fromF64(nb, l, xs[0], t); });
}

struct AttentionLowering : OpConversionPattern<top::AttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<RankedTensorType> results;
    for (unsigned i = 0; i < 4; ++i) {
      FailureOr<RankedTensorType> t =
          staticResultType(op, i, *getTypeConverter(), rewriter);
      if (failed(t))
        return failure();
      results.push_back(*t);
    }
    auto qT = dyn_cast<RankedTensorType>(adaptor.getQuery().getType());
    auto kT = dyn_cast<RankedTensorType>(adaptor.getKey().getType());
    auto vT = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
    if (!qT || !kT || !vT || !qT.hasStaticShape() || !kT.hasStaticShape() ||
        !vT.hasStaticShape() || qT.getRank() != kT.getRank() ||
        qT.getRank() != vT.getRank() ||
        (qT.getRank() != 3 && qT.getRank() != 4))
      return rewriter.notifyMatchFailure(
          op, "query, key and value must be static tensors of rank 3 or 4");
    bool rank3 = qT.getRank() == 3;
    int64_t batch = qT.getDimSize(0), hq, hkv, d, dv;
    if (rank3) {
      if (!op.getQNumHeads() || !op.getKvNumHeads())
        return rewriter.notifyMatchFailure(op, "rank 3 needs the head counts");
      hq = *op.getQNumHeads();
      hkv = *op.getKvNumHeads();
      if (hq <= 0 || hkv <= 0 || qT.getDimSize(2) % hq ||
          kT.getDimSize(2) % hkv || vT.getDimSize(2) % hkv)
        return rewriter.notifyMatchFailure(op, "head counts do not divide "
                                               "the hidden sizes");
      d = qT.getDimSize(2) / hq;
      dv = vT.getDimSize(2) / hkv;
    } else {
      hq = qT.getDimSize(1);
      hkv = kT.getDimSize(1);
      d = qT.getDimSize(3);
      dv = vT.getDimSize(3);
    }
    if (hkv <= 0 || hq % hkv)
      return rewriter.notifyMatchFailure(op, "kv heads must divide q heads");
    int64_t group = hq / hkv;
    int64_t sq = qT.getDimSize(rank3 ? 1 : 2);

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = b.getContext();
    Value q = headsFirst(b, loc, adaptor.getQuery(), rank3, hq, d);
    Value k = headsFirst(b, loc, adaptor.getKey(), rank3, hkv, d);
    Value v = headsFirst(b, loc, adaptor.getValue(), rank3, hkv, dv);
    int64_t past = 0;
    if (!isNone(adaptor.getPastKey())) {
      if (isNone(adaptor.getPastValue()))
        return rewriter.notifyMatchFailure(op, "past_value missing");
      auto pk = cast<RankedTensorType>(adaptor.getPastKey().getType());
      past = pk.getDimSize(2);
      k = concatSeq(b, loc, headsFirst(b, loc, adaptor.getPastKey(), false,
                                       hkv, d),
                    k);
      v = concatSeq(b, loc, headsFirst(b, loc, adaptor.getPastValue(), false,
                                       hkv, dv),
                    v);
    }
    int64_t total = cast<RankedTensorType>(k.getType()).getDimSize(2);

    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    auto map = [&](unsigned n, ArrayRef<AffineExpr> e) {
      return AffineMap::get(n, 0, e, ctx);
    };
    auto par = [](unsigned n) {
      return SmallVector<IteratorType>(n, IteratorType::parallel);
    };
    AffineExpr kvHead = dim(1).floorDiv(group);
    RankedTensorType scoreT = f64Tensor(b, {batch, hq, sq, total});
    AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
    AffineMap row4 = map(4, {dim(0), dim(1), dim(2)});

    // s = dot(q[b,h,i], k[b,h/group,j]) over (b, h, i, j, x).
    SmallVector<IteratorType> dotIt = par(4);
    dotIt.push_back(IteratorType::reduction);
    Value s = generic(
        b, loc, filled(b, loc, scoreT, 0.0), {q, k},
        {map(5, {dim(0), dim(1), dim(2), dim(4)}),
         map(5, {dim(0), kvHead, dim(3), dim(4)}),
         map(5, {dim(0), dim(1), dim(2), dim(3)})},
        dotIt, [](OpBuilder &nb, Location l, ValueRange a) {
          return arith::AddFOp::create(
              nb, l, a[2], arith::MulFOp::create(nb, l, a[0], a[1]));
        });

    double scale = op.getScale() ? op.getScale()->convertToDouble()
                                 : 1.0 / std::sqrt(static_cast<double>(d));
    double softcap = op.getSoftcap().convertToDouble();
    Value scaled = generic(
        b, loc, emptyTensor(b, loc, scoreT), s, {id4, id4}, par(4),
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Type f64 = nb.getF64Type();
          Value x = arith::MulFOp::create(nb, l, a[0],
                                          scalarConstant(nb, l, f64, scale));
          if (softcap > 0) {
            Value c = scalarConstant(nb, l, f64, softcap);
            x = arith::MulFOp::create(
                nb, l, c,
                math::TanhOp::create(nb, l, arith::DivFOp::create(nb, l, x, c)));
          }
          return x;
        });

    // The bias: mask, causal, nonpad.
    Value mask = adaptor.getAttnMask(), nonpad = adaptor.getNonpadKvSeqlen();
    bool causal = op.getIsCausal();
    Value biased = scaled;
    if (!isNone(mask) || causal || !isNone(nonpad)) {
      bool nonpadUnsigned =
          !isNone(nonpad) && isUnsignedElement(op.getNonpadKvSeqlen());
      biased = generic(
          b, loc, emptyTensor(b, loc, scoreT), scaled, {id4, id4}, par(4),
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            Type f64 = nb.getF64Type();
            Value ninf = scalarConstant(
                nb, l, f64, -std::numeric_limits<double>::infinity());
            Value zero = scalarConstant(nb, l, f64, 0.0);
            SmallVector<Value> idx;
            for (unsigned i = 0; i < 4; ++i)
              idx.push_back(linalg::IndexOp::create(nb, l, i));
            auto cidx = [&](int64_t v) {
              return arith::ConstantIndexOp::create(nb, l, v).getResult();
            };
            Value bias = zero;
            if (!isNone(mask)) {
              auto mt = cast<RankedTensorType>(mask.getType());
              int64_t r = mt.getRank(), len = mt.getDimSize(r - 1);
              if (len == 0) {
                bias = ninf;
              } else {
                SmallVector<Value> at;
                for (int64_t md = 0; md < r; ++md) {
                  int64_t full = 4 - r + md;
                  if (md == r - 1)
                    at.push_back(
                        arith::MinUIOp::create(nb, l, idx[3], cidx(len - 1)));
                  else if (mt.getDimSize(md) == 1)
                    at.push_back(cidx(0));
                  else
                    at.push_back(idx[full]);
                }
                Value m = tensor::ExtractOp::create(nb, l, mask, at);
                Value mv = m.getType().isInteger(1)
                               ? arith::SelectOp::create(nb, l, m, zero, ninf)
                                     .getResult()
                               : toF64(nb, l, m);
                Value inRange = arith::CmpIOp::create(
                    nb, l, arith::CmpIPredicate::ult, idx[3], cidx(len));
                bias = arith::SelectOp::create(nb, l, inRange, mv, ninf);
              }
            }
            if (causal) {
              Value limit = arith::AddIOp::create(nb, l, idx[2], cidx(past));
              Value masked = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::ugt, idx[3], limit);
              bias = arith::SelectOp::create(nb, l, masked, ninf, bias);
            }
            if (!isNone(nonpad)) {
              Value n = tensor::ExtractOp::create(nb, l, nonpad, idx[0]);
              Type i64 = nb.getI64Type();
              if (n.getType() != i64)
                n = nonpadUnsigned
                        ? arith::ExtUIOp::create(nb, l, i64, n).getResult()
                        : arith::ExtSIOp::create(nb, l, i64, n).getResult();
              Value j = arith::IndexCastOp::create(nb, l, i64, idx[3]);
              Value masked =
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, j, n);
              bias = arith::SelectOp::create(nb, l, masked, ninf, bias);
            }
            return arith::AddFOp::create(nb, l, a[0], bias);
          });
    }

    // Softmax over j: row max (NaN ignored, as std::max does), exp, sum,
    // divide. A fully masked row gives NaN (-inf - -inf).
    RankedTensorType rowT = f64Tensor(b, {batch, hq, sq});
    SmallVector<IteratorType> redIt = par(3);
    redIt.push_back(IteratorType::reduction);
    Value mx = generic(b, loc,
                       filled(b, loc, rowT,
                              -std::numeric_limits<double>::infinity()),
                       biased, {id4, row4}, redIt,
                       [](OpBuilder &nb, Location l, ValueRange a) {
                         return arith::MaxNumFOp::create(nb, l, a[1], a[0]);
                       });
    Value e = generic(b, loc, emptyTensor(b, loc, scoreT), {biased, mx},
                      {id4, row4, id4}, par(4),
                      [](OpBuilder &nb, Location l, ValueRange a) {
                        return math::ExpOp::create(
                            nb, l, arith::SubFOp::create(nb, l, a[0], a[1]));
                      });
    Value sum = generic(b, loc, filled(b, loc, rowT, 0.0), e, {id4, row4},
                        redIt, [](OpBuilder &nb, Location l, ValueRange a) {
                          return arith::AddFOp::create(nb, l, a[1], a[0]);
                        });
    Value p = generic(b, loc, emptyTensor(b, loc, scoreT), {e, sum},
                      {id4, row4, id4}, par(4),
                      [](OpBuilder &nb, Location l, ValueRange a) {
                        return arith::DivFOp::create(nb, l, a[0], a[1]);
                      });

    // out[b,h,i,x] = sum_j p[b,h,i,j] * v[b,h/group,j,x] over
    // (b, h, i, x, j); rank 3 writes B x Sq x Hq x Dv.
    SmallVector<int64_t> outShape =
        rank3 ? SmallVector<int64_t>{batch, sq, hq, dv}
              : SmallVector<int64_t>{batch, hq, sq, dv};
    AffineMap outMap = rank3 ? map(5, {dim(0), dim(2), dim(1), dim(3)})
                             : map(5, {dim(0), dim(1), dim(2), dim(3)});
    Value out = generic(
        b, loc, filled(b, loc, f64Tensor(b, outShape), 0.0), {p, v},
        {map(5, {dim(0), dim(1), dim(2), dim(4)}),
         map(5, {dim(0), kvHead, dim(4), dim(3)}), outMap},
        dotIt, [](OpBuilder &nb, Location l, ValueRange a) {
          return arith::AddFOp::create(
              nb, l, a[2], arith::MulFOp::create(nb, l, a[0], a[1]));
        });
    if (rank3) {
      out = tensor::CollapseShapeOp::create(
          b, loc, f64Tensor(b, results[0].getShape()), out,
          ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    }
    int64_t mode = op.getQkMatmulOutputMode();
    Value qk = mode <= 1 ? scaled : mode == 2 ? biased : p;
    for (auto [val, t] : llvm::zip(SmallVector<Value>{out, k, v, qk}, results))
      if (cast<RankedTensorType>(val.getType()).getShape() != t.getShape())
        return rewriter.notifyMatchFailure(op, "result shape mismatch");
    rewriter.replaceOp(op, {roundTo(b, loc, out, results[0]),
                            roundTo(b, loc, k, results[1]),
                            roundTo(b, loc, v, results[2]),
                            roundTo(b, loc, qk, results[3])});
    return success();
  }
};

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
    Value state = isNone(adaptor.getPastState())
                      ? filled(b, loc, sT, 0.0)
                      : buildElementwise(b, loc, sT, adaptor.getPastState(),
                                         [](OpBuilder &nb, Location l,
                                            ValueRange xs, Type) {
                                           return toF64(nb, l, xs[0]);
                                         });
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
            s = generic(lb, l, s, ValueRange{}, {id4}, par4,
                        [&](OpBuilder &nb, Location nl, ValueRange a) {
                          SmallVector<Value> idx = indices(nb, nl, 4);
                          Value col = idx[1];
                          if (decayPerDim)
                            col = arith::AddIOp::create(
                                nb, nl,
                                arith::MulIOp::create(nb, nl, idx[1],
                                                      cIdx(nb, nl, dk)),
                                idx[2]);
                          Value g = tensor::ExtractOp::create(
                              nb, nl, decay, ValueRange{idx[0], t, col});
                          return arith::MulFOp::create(
                              nb, nl, a[0], math::ExpOp::create(nb, nl, g));
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
          s = generic(lb, l, s, {vt},
                      {map(4, {dim(0), dim(1), dim(3)}), id4}, par4,
                      [&](OpBuilder &nb, Location nl, ValueRange a) {
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
                Value h = arith::RemUIOp::create(cb, cl, rest, cIdx(cb, cl, hq));
                Value bi =
                    arith::DivUIOp::create(cb, cl, rest, cIdx(cb, cl, hq));
                Value x = tensor::ExtractOp::create(cb, cl, o,
                                                    ValueRange{bi, h, j});
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

void populateTopToLinalgAttentionPatterns(const TopTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<AttentionLowering, LinearAttentionLowering>(converter, patterns.getContext());
}

} // namespace strata::conversion
