//===- Attention.cpp - top.Attention to linalg ----------------------------===//
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
// LinearAttention: LinearAttention.cpp.
//
//===----------------------------------------------------------------------===//

#include "AttentionUtils.h"

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

using namespace attention;

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
    auto expanded =
        RankedTensorType::get({batch, seq, heads, size}, t.getElementType());
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
        Value inPast =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, idx[2], pc);
        // Both reads stay in bounds: the unused one is clamped.
        SmallVector<Value> pi = idx, ci = idx;
        pi[2] = arith::MinUIOp::create(
            nb, l, idx[2],
            arith::ConstantIndexOp::create(nb, l, p ? p - 1 : 0));
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
    int64_t kvSeq = kT.getDimSize(rank3 ? 1 : 2), past = 0;
    for (Value cache : {adaptor.getPastKey(), adaptor.getPastValue()}) {
      if (isNone(cache))
        continue;
      auto ct = staticTensorType(cache);
      if (!ct || ct.getRank() != 4)
        return rewriter.notifyMatchFailure(op, "past_key/past_value must be "
                                               "static rank 4");
      past = ct.getDimSize(2);
    }
    if (isNone(adaptor.getPastKey()) != isNone(adaptor.getPastValue()))
      return rewriter.notifyMatchFailure(op, "past_key and past_value must be "
                                             "given together");
    int64_t total = past + kvSeq;
    // The mask broadcasts to B x Hq x Sq x L (L <= total) and nonpad has B
    // entries, so every read below stays in bounds.
    if (!isNone(adaptor.getAttnMask())) {
      auto mt = staticTensorType(adaptor.getAttnMask());
      if (!mt || mt.getRank() < 1 || mt.getRank() > 4 ||
          mt.getDimSize(mt.getRank() - 1) > total)
        return rewriter.notifyMatchFailure(op, "attn_mask shape");
      int64_t lead[3] = {batch, hq, sq};
      for (int64_t md = 0; md + 1 < mt.getRank(); ++md) {
        int64_t full = 4 - mt.getRank() + md, size = mt.getDimSize(md);
        if (size != 1 && size != lead[full])
          return rewriter.notifyMatchFailure(op, "attn_mask shape");
      }
    }
    if (!isNone(adaptor.getNonpadKvSeqlen())) {
      auto nt = staticTensorType(adaptor.getNonpadKvSeqlen());
      if (!nt || nt.getRank() != 1 || nt.getDimSize(0) != batch)
        return rewriter.notifyMatchFailure(op, "nonpad_kv_seqlen shape");
    }
    // Every result shape is checked before anything is created.
    SmallVector<SmallVector<int64_t>> expected = {
        rank3 ? SmallVector<int64_t>{batch, sq, hq * dv}
              : SmallVector<int64_t>{batch, hq, sq, dv},
        {batch, hkv, total, d},
        {batch, hkv, total, dv},
        {batch, hq, sq, total}};
    for (auto [t, e] : llvm::zip(results, expected))
      if (t.getShape() != ArrayRef<int64_t>(e))
        return rewriter.notifyMatchFailure(op, "result shapes do not match "
                                               "the operands");

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = b.getContext();
    Value q = headsFirst(b, loc, adaptor.getQuery(), rank3, hq, d);
    Value k = headsFirst(b, loc, adaptor.getKey(), rank3, hkv, d);
    Value v = headsFirst(b, loc, adaptor.getValue(), rank3, hkv, dv);
    if (past > 0 || !isNone(adaptor.getPastKey())) {
      k = concatSeq(b, loc,
                    headsFirst(b, loc, adaptor.getPastKey(), false, hkv, d), k);
      v = concatSeq(b, loc,
                    headsFirst(b, loc, adaptor.getPastValue(), false, hkv, dv),
                    v);
    }

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
    Value s =
        generic(b, loc, filled(b, loc, scoreT, 0.0), {q, k},
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
    Value scaled =
        generic(b, loc, emptyTensor(b, loc, scoreT), s, {id4, id4}, par(4),
                [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  Type f64 = nb.getF64Type();
                  Value x = arith::MulFOp::create(
                      nb, l, a[0], scalarConstant(nb, l, f64, scale));
                  if (softcap > 0) {
                    Value c = scalarConstant(nb, l, f64, softcap);
                    x = arith::MulFOp::create(
                        nb, l, c,
                        math::TanhOp::create(
                            nb, l, arith::DivFOp::create(nb, l, x, c)));
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
    Value mx = generic(
        b, loc, filled(b, loc, rowT, -std::numeric_limits<double>::infinity()),
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
    Value p =
        generic(b, loc, emptyTensor(b, loc, scoreT), {e, sum}, {id4, row4, id4},
                par(4), [](OpBuilder &nb, Location l, ValueRange a) {
                  return arith::DivFOp::create(nb, l, a[0], a[1]);
                });

    // out[b,h,i,x] = sum_j p[b,h,i,j] * v[b,h/group,j,x] over
    // (b, h, i, x, j); rank 3 writes B x Sq x Hq x Dv.
    SmallVector<int64_t> outShape =
        rank3 ? SmallVector<int64_t>{batch, sq, hq, dv}
              : SmallVector<int64_t>{batch, hq, sq, dv};
    AffineMap outMap = rank3 ? map(5, {dim(0), dim(2), dim(1), dim(3)})
                             : map(5, {dim(0), dim(1), dim(2), dim(3)});
    Value out =
        generic(b, loc, filled(b, loc, f64Tensor(b, outShape), 0.0), {p, v},
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
    rewriter.replaceOp(
        op, {roundTo(b, loc, out, results[0]), roundTo(b, loc, k, results[1]),
             roundTo(b, loc, v, results[2]), roundTo(b, loc, qk, results[3])});
    return success();
  }
};

} // namespace

void populateTopToLinalgAttentionPatterns(const TopTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<AttentionLowering>(converter, patterns.getContext());
  attention::populateLinearAttentionPattern(converter, patterns);
}

} // namespace strata::conversion
