//===- DataMovementIndexed.cpp - Top gathers, scatters and index ops ------===//
//
// Ops that read positions from tensors at run time. Gathers (Gather,
// GatherElements, GatherND) are a linalg.generic over the result whose body
// reads the index, wraps a negative one (`+ dim`) and clamps it into the dim
// before a tensor.extract; scatters (ScatterElements, ScatterND) are an
// scf.for nest over the updates in row-major order carrying the result
// tensor, so that later writes win as in the interpreter. Indices the
// interpreter rejects (outside `[-dim, dim)`) are clamped to the nearest end
// of the dim: compiled code never reads or writes out of bounds
// (docs/codegen-data-movement.md). Trilu, OneHot and ReverseSequence are
// linalg.generic ops over their results.
//
//===----------------------------------------------------------------------===//

#include "DataMovement.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace strata::conversion {
namespace {

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// A linalg.generic over `resultType` with `inputs` read through `maps` (the
/// output map is the identity); `body` gets the input scalars.
Value buildGeneric(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    ArrayRef<AffineMap> maps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> all(maps.begin(), maps.end());
  all.push_back(AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs,
      ValueRange{emptyTensor(b, loc, resultType)}, all, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args.drop_back()));
      });
  return generic.getResult(0);
}

/// The map `(d_0 .. d_(n-1)) -> (d_first .. d_(first+count-1))`.
AffineMap dimRange(MLIRContext *ctx, int64_t n, int64_t first, int64_t count) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < count; ++i)
    exprs.push_back(getAffineDimExpr(first + i, ctx));
  return AffineMap::get(n, 0, exprs, ctx);
}

/// Checks the shared preconditions of the index ops: static result, static
/// data and indices; the data dims indexed must not be empty when the
/// result is not (every index would be out of range: the interpreter
/// always fails).
struct IndexedTypes {
  RankedTensorType result, data, indices;
};

FailureOr<IndexedTypes> indexedTypes(Operation *op, Value data, Value indices,
                                     const TypeConverter &converter,
                                     ConversionPatternRewriter &rewriter) {
  FailureOr<RankedTensorType> result =
      staticResultType(op, 0, converter, rewriter);
  if (failed(result))
    return failure();
  auto d = staticOperandType(op, data, "data", rewriter);
  auto i = staticOperandType(op, indices, "indices", rewriter);
  if (failed(d) || failed(i))
    return failure();
  return IndexedTypes{*result, *d, *i};
}

/// A wrapped and clamped index read from integer scalar `v`.
Value safeIndex(OpBuilder &b, Location l, Value v, bool isUnsigned,
                int64_t dim) {
  return wrapAndClampIndex(b, l, indexFromInteger(b, l, v, isUnsigned), dim);
}

/// Replaces `op` by a gather along `axis` of `data`: a linalg.generic over
/// `t.result` that reads one integer of `indices` through `indexMap`,
/// wraps and clamps it into the axis, and extracts the element of `data` at
/// the coordinates `coords` makes (it calls `index()` where the wrapped index
/// goes, the result's loop indices elsewhere). An empty result is an empty
/// tensor; gathering from an empty axis into a non-empty result is a match
/// failure.
LogicalResult replaceWithGather(
    Operation *op, ConversionPatternRewriter &rewriter, const IndexedTypes &t,
    Value data, Value indices, bool isUnsigned, int64_t axis,
    AffineMap indexMap,
    function_ref<void(OpBuilder &, Location, function_ref<Value()>,
                      SmallVectorImpl<Value> &)>
        coords) {
  Location loc = op->getLoc();
  if (t.result.getNumElements() == 0) {
    rewriter.replaceOp(op, emptyTensor(rewriter, loc, t.result));
    return success();
  }
  int64_t dim = t.data.getDimSize(axis);
  if (dim == 0)
    return rewriter.notifyMatchFailure(op, "gathers from an empty dim");
  Value r = buildGeneric(
      rewriter, loc, t.result, {indices}, {indexMap},
      [&](OpBuilder &b, Location l, ValueRange xs) {
        SmallVector<Value> at;
        coords(
            b, l, [&] { return safeIndex(b, l, xs[0], isUnsigned, dim); }, at);
        return tensor::ExtractOp::create(b, l, data, at).getResult();
      });
  rewriter.replaceOp(op, r);
  return success();
}

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

/// Gather: `out[i.., j.., k..] = in[i.., idx[j..], k..]`.
struct GatherLowering : OpConversionPattern<top::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = indexedTypes(op, adaptor.getInput(), adaptor.getIndices(),
                          *getTypeConverter(), rewriter);
    if (failed(t))
      return failure();
    int64_t rank = t->data.getRank(), q = t->indices.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t n = t->result.getRank();
    return replaceWithGather(
        op, rewriter, *t, adaptor.getInput(), adaptor.getIndices(),
        isUnsignedElement(op.getIndices()), axis,
        dimRange(rewriter.getContext(), n, axis, q),
        [&](OpBuilder &b, Location l, function_ref<Value()> index,
            SmallVectorImpl<Value> &at) {
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          at.push_back(index());
          for (int64_t d = axis + q; d < n; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
        });
  }
};

/// GatherElements: `out[p] = data[p with p[axis] := idx[p]]`.
struct GatherElementsLowering : OpConversionPattern<top::GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = indexedTypes(op, adaptor.getData(), adaptor.getIndices(),
                          *getTypeConverter(), rewriter);
    if (failed(t))
      return failure();
    int64_t rank = t->data.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank || t->indices.getRank() != rank ||
        t->result.getShape() != t->indices.getShape())
      return rewriter.notifyMatchFailure(op, "bad axis or shapes");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && t->indices.getDimSize(d) > t->data.getDimSize(d))
        return rewriter.notifyMatchFailure(op, "indices larger than data");
    return replaceWithGather(
        op, rewriter, *t, adaptor.getData(), adaptor.getIndices(),
        isUnsignedElement(op.getIndices()), axis,
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext()),
        [&](OpBuilder &b, Location l, function_ref<Value()> index,
            SmallVectorImpl<Value> &at) {
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(d == axis ? index()
                                   : Value(linalg::IndexOp::create(b, l, d)));
        });
  }
};

/// GatherND: result dims `[batch.., row.., slice..]`; the row's k indices
/// are read with tensor.extract from `indices`.
struct GatherNDLowering : OpConversionPattern<top::GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = indexedTypes(op, adaptor.getData(), adaptor.getIndices(),
                          *getTypeConverter(), rewriter);
    if (failed(t))
      return failure();
    int64_t bdims = op.getBatchDims(), q = t->indices.getRank();
    int64_t rank = t->data.getRank();
    if (q < 1 || bdims < 0 || bdims >= q)
      return rewriter.notifyMatchFailure(op, "bad batch_dims or indices rank");
    int64_t k = t->indices.getDimSize(q - 1);
    if (k < 1 || bdims + k > rank)
      return rewriter.notifyMatchFailure(op, "bad index row length");
    Location loc = op.getLoc();
    if (t->result.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, t->result));
      return success();
    }
    for (int64_t j = 0; j < k; ++j)
      if (t->data.getDimSize(bdims + j) == 0)
        return rewriter.notifyMatchFailure(op, "gathers from an empty dim");
    bool isUnsigned = isUnsignedElement(op.getIndices());
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    Value r = buildGeneric(
        rewriter, loc, t->result, {}, {},
        [&](OpBuilder &b, Location l, ValueRange) {
          // Result dims: [0, q-1) index the rows (the first bdims of them
          // are the batch dims), the rest the slice.
          SmallVector<Value> row;
          for (int64_t d = 0; d < q - 1; ++d)
            row.push_back(linalg::IndexOp::create(b, l, d));
          SmallVector<Value> at(row.begin(), row.begin() + bdims);
          for (int64_t j = 0; j < k; ++j) {
            SmallVector<Value> pos = row;
            pos.push_back(indexConstant(b, l, j));
            Value v = tensor::ExtractOp::create(b, l, indices, pos);
            at.push_back(
                safeIndex(b, l, v, isUnsigned, t->data.getDimSize(bdims + j)));
          }
          for (int64_t d = q - 1; d < t->result.getRank(); ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          return tensor::ExtractOp::create(b, l, data, at).getResult();
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scatters
//===----------------------------------------------------------------------===//

/// Combines `update` into `old` with `r` (not None) in the compute type.
Value combineScalar(OpBuilder &b, Location l, top::ScatterReduction r,
                    Value old, Value update, bool isUnsigned) {
  bool isFloat = isa<FloatType>(old.getType());
  if (old.getType().isInteger(1)) {
    // The interpreter reduces booleans as 0/1 in i64 and converts back with
    // `!= 0`: add is `or`, mul is `and`, min/max are unsigned.
    if (r == top::ScatterReduction::Add)
      return arith::OrIOp::create(b, l, old, update);
    if (r == top::ScatterReduction::Mul)
      return arith::AndIOp::create(b, l, old, update);
    isUnsigned = true;
  }
  switch (r) {
  case top::ScatterReduction::Add:
    return isFloat ? arith::AddFOp::create(b, l, old, update).getResult()
                   : arith::AddIOp::create(b, l, old, update).getResult();
  case top::ScatterReduction::Mul:
    return isFloat ? arith::MulFOp::create(b, l, old, update).getResult()
                   : arith::MulIOp::create(b, l, old, update).getResult();
  case top::ScatterReduction::Min:
    // std::min(old, update): `update < old ? update : old` (NaN keeps old
    // unless old is compared false: as std::min).
    if (isFloat) {
      Value lt =
          arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, update, old);
      return arith::SelectOp::create(b, l, lt, update, old);
    }
    return isUnsigned ? arith::MinUIOp::create(b, l, old, update).getResult()
                      : arith::MinSIOp::create(b, l, old, update).getResult();
  case top::ScatterReduction::Max:
    // std::max(old, update): `old < update ? update : old`.
    if (isFloat) {
      Value lt =
          arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, old, update);
      return arith::SelectOp::create(b, l, lt, update, old);
    }
    return isUnsigned ? arith::MaxUIOp::create(b, l, old, update).getResult()
                      : arith::MaxSIOp::create(b, l, old, update).getResult();
  case top::ScatterReduction::None:
    break;
  }
  return update;
}

/// `t` with its float elements converted to `to` (extf / truncf).
Value convertFloats(OpBuilder &b, Location loc, Value t, FloatType to) {
  auto type = cast<RankedTensorType>(t.getType());
  if (type.getElementType() == to)
    return t;
  auto resultType = RankedTensorType::get(type.getShape(), to);
  return buildElementwise(
      b, loc, resultType, {t},
      [&](OpBuilder &nb, Location l, ValueRange xs, Type) -> Value {
        if (to.getWidth() > xs[0].getType().getIntOrFloatBitWidth())
          return arith::ExtFOp::create(nb, l, to, xs[0]);
        return arith::TruncFOp::create(nb, l, to, xs[0]);
      });
}

/// The shared scatter loop: for every position `u` of `updates` in
/// row-major order, `dst(u)` (the data position) gets `updates[u]` combined
/// with reduction `r`. Floats narrower than f32 reduce in f32 as the
/// interpreter does (it rounds once at the end).
Value buildScatter(
    OpBuilder &b, Location loc, Value data, Value updates,
    top::ScatterReduction r, bool isUnsigned,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> dst) {
  auto updType = cast<RankedTensorType>(updates.getType());
  auto elem = dyn_cast<FloatType>(updType.getElementType());
  bool widen = r != top::ScatterReduction::None && elem && elem.getWidth() < 32;
  Value init = data, upd = updates;
  if (widen) {
    init = convertFloats(b, loc, data, b.getF32Type());
    upd = convertFloats(b, loc, updates, b.getF32Type());
  }
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < updType.getRank(); ++d) {
    lbs.push_back(indexConstant(b, loc, 0));
    ubs.push_back(indexConstant(b, loc, updType.getDimSize(d)));
    steps.push_back(indexConstant(b, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{init},
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange iter) -> scf::ValueVector {
        Value v = tensor::ExtractOp::create(nb, l, upd, ivs);
        SmallVector<Value> at = dst(nb, l, ivs);
        if (r != top::ScatterReduction::None) {
          Value old = tensor::ExtractOp::create(nb, l, iter[0], at);
          v = combineScalar(nb, l, r, old, v, isUnsigned);
        }
        return {tensor::InsertOp::create(nb, l, v, iter[0], at).getResult()};
      });
  Value result = nest.results.empty() ? init : nest.results[0];
  if (widen)
    result = convertFloats(b, loc, result, elem);
  return result;
}

struct ScatterElementsLowering : OpConversionPattern<top::ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = indexedTypes(op, adaptor.getData(), adaptor.getIndices(),
                          *getTypeConverter(), rewriter);
    if (failed(t))
      return failure();
    auto updType =
        staticOperandType(op, adaptor.getUpdates(), "updates", rewriter);
    if (failed(updType))
      return failure();
    int64_t rank = t->data.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank || t->indices.getRank() != rank ||
        updType->getShape() != t->indices.getShape())
      return rewriter.notifyMatchFailure(op, "bad axis or shapes");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && t->indices.getDimSize(d) > t->data.getDimSize(d))
        return rewriter.notifyMatchFailure(op, "indices larger than data");
    if (t->indices.getNumElements() != 0 && t->data.getDimSize(axis) == 0)
      return rewriter.notifyMatchFailure(op, "scatters into an empty dim");
    bool idxUnsigned = isUnsignedElement(op.getIndices());
    int64_t dim = t->data.getDimSize(axis);
    Value indices = adaptor.getIndices();
    Value r = buildScatter(
        rewriter, op.getLoc(), adaptor.getData(), adaptor.getUpdates(),
        op.getReduction(), isUnsignedElement(op.getData()),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> at(ivs.begin(), ivs.end());
          Value v = tensor::ExtractOp::create(b, l, indices, ivs);
          at[axis] = safeIndex(b, l, v, idxUnsigned, dim);
          return at;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct ScatterNDLowering : OpConversionPattern<top::ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = indexedTypes(op, adaptor.getData(), adaptor.getIndices(),
                          *getTypeConverter(), rewriter);
    if (failed(t))
      return failure();
    auto updType =
        staticOperandType(op, adaptor.getUpdates(), "updates", rewriter);
    if (failed(updType))
      return failure();
    int64_t q = t->indices.getRank(), rank = t->data.getRank();
    if (q < 1)
      return rewriter.notifyMatchFailure(op, "indices of rank 0");
    int64_t k = t->indices.getDimSize(q - 1);
    if (k < 1 || k > rank || updType->getRank() != q - 1 + rank - k)
      return rewriter.notifyMatchFailure(op, "bad index row length");
    for (int64_t j = 0; j < k; ++j)
      if (t->data.getDimSize(j) == 0 && updType->getNumElements() != 0)
        return rewriter.notifyMatchFailure(op, "scatters into an empty dim");
    bool idxUnsigned = isUnsignedElement(op.getIndices());
    Value indices = adaptor.getIndices();
    RankedTensorType dataType = t->data;
    Value r = buildScatter(
        rewriter, op.getLoc(), adaptor.getData(), adaptor.getUpdates(),
        op.getReduction(), isUnsignedElement(op.getData()),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> at;
          for (int64_t j = 0; j < k; ++j) {
            SmallVector<Value> pos(ivs.begin(), ivs.begin() + (q - 1));
            pos.push_back(indexConstant(b, l, j));
            Value v = tensor::ExtractOp::create(b, l, indices, pos);
            at.push_back(
                safeIndex(b, l, v, idxUnsigned, dataType.getDimSize(j)));
          }
          for (Value iv : ivs.drop_front(q - 1))
            at.push_back(iv);
          return at;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Trilu, OneHot, ReverseSequence
//===----------------------------------------------------------------------===//

/// The one element of a runtime scalar operand (any rank, one element) as
/// i64, sign- or zero-extended.
Value runtimeScalarI64(OpBuilder &b, Location loc, Value t, bool isUnsigned) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<Value> zeros(type.getRank(), indexConstant(b, loc, 0));
  Value v = tensor::ExtractOp::create(b, loc, t, zeros);
  Type i64 = b.getI64Type();
  unsigned w = v.getType().getIntOrFloatBitWidth();
  if (w == 64)
    return v;
  if (isUnsigned)
    return arith::ExtUIOp::create(b, loc, i64, v);
  return arith::ExtSIOp::create(b, loc, i64, v);
}

/// Trilu: keeps `x` where `j - i >= k` (upper) or `<= k`, else zero.
struct TriluLowering : OpConversionPattern<top::TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    if (failed(inType))
      return failure();
    int64_t rank = type->getRank();
    if (rank < 2 || inType->getShape() != type->getShape())
      return rewriter.notifyMatchFailure(op, "needs rank >= 2");
    Location loc = op.getLoc();
    if (type->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    Value k;
    if (Value dv = adaptor.getDiagonalValue()) {
      auto dt = staticOperandType(op, dv, "diagonal_value", rewriter);
      if (failed(dt))
        return failure();
      if (dt->getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "'diagonal_value' is not one "
                                               "element");
      k = runtimeScalarI64(rewriter, loc, dv,
                           isUnsignedElement(op.getDiagonalValue()));
    } else {
      k = arith::ConstantOp::create(
          rewriter, loc, rewriter.getI64IntegerAttr(op.getDiagonal()));
    }
    bool upper = op.getUpper();
    Value r = buildElementwise(
        rewriter, loc, *type, {input},
        [&](OpBuilder &b, Location l, ValueRange xs, Type elem) -> Value {
          Type i64 = b.getI64Type();
          Value i = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank - 2));
          Value j = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank - 1));
          Value diff = arith::SubIOp::create(b, l, j, i);
          Value keep = arith::CmpIOp::create(b, l,
                                             upper ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sle,
                                             diff, k);
          Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(elem));
          return arith::SelectOp::create(b, l, keep, xs[0], zero);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// OneHot: `values[1]` where the new dim's position equals the (wrapped)
/// index, `values[0]` elsewhere; an index outside `[-depth, depth)` gives an
/// all-off row. Float indices are truncated when in range.
struct OneHotLowering : OpConversionPattern<top::OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    auto idxType =
        staticOperandType(op, adaptor.getIndices(), "indices", rewriter);
    auto valType =
        staticOperandType(op, adaptor.getValues(), "values", rewriter);
    if (failed(idxType) || failed(valType))
      return failure();
    if (valType->getNumElements() != 2)
      return rewriter.notifyMatchFailure(op, "'values' is not two elements");
    int64_t n = type->getRank();
    int64_t axis = normalizeAxis(op.getAxis(), n);
    if (axis < 0 || axis >= n || idxType->getRank() != n - 1)
      return rewriter.notifyMatchFailure(op, "bad axis");
    Location loc = op.getLoc();
    if (type->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    int64_t depth = type->getDimSize(axis);
    Value values =
        reshapeStatic(rewriter, loc, adaptor.getValues(),
                      RankedTensorType::get({2}, valType->getElementType()));
    Value off = tensor::ExtractOp::create(
        rewriter, loc, values, ValueRange{indexConstant(rewriter, loc, 0)});
    Value on = tensor::ExtractOp::create(
        rewriter, loc, values, ValueRange{indexConstant(rewriter, loc, 1)});
    bool isUnsigned = isUnsignedElement(op.getIndices());
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < n; ++d)
      if (d != axis)
        exprs.push_back(getAffineDimExpr(d, rewriter.getContext()));
    AffineMap map = AffineMap::get(n, 0, exprs, rewriter.getContext());
    Value r = buildGeneric(
        rewriter, loc, *type, {adaptor.getIndices()}, {map},
        [&](OpBuilder &b, Location l, ValueRange xs) -> Value {
          Type i64 = b.getI64Type();
          Value x = xs[0], index;
          Value depthC =
              arith::ConstantOp::create(b, l, b.getI64IntegerAttr(depth));
          if (auto ft = dyn_cast<FloatType>(x.getType())) {
            Value v = x;
            if (ft.getWidth() < 64)
              v = arith::ExtFOp::create(b, l, b.getF64Type(), x);
            Value lo = arith::ConstantOp::create(
                b, l, b.getF64FloatAttr(-double(depth) - 1));
            Value hi = arith::ConstantOp::create(
                b, l, b.getF64FloatAttr(double(depth)));
            Value inRange = arith::AndIOp::create(
                b, l,
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, lo),
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, v, hi));
            Value safe = arith::SelectOp::create(
                b, l, inRange, v,
                arith::ConstantOp::create(b, l, b.getF64FloatAttr(0.0)));
            Value t = arith::FPToSIOp::create(b, l, i64, safe);
            index = arith::SelectOp::create(b, l, inRange, t, depthC);
          } else if (x.getType().getIntOrFloatBitWidth() == 64) {
            index = x;
          } else if (isUnsigned) {
            index = arith::ExtUIOp::create(b, l, i64, x);
          } else {
            index = arith::ExtSIOp::create(b, l, i64, x);
          }
          Value zero = arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0));
          Value negDepth =
              arith::ConstantOp::create(b, l, b.getI64IntegerAttr(-depth));
          Value wrap = arith::AndIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, index,
                                    zero),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, index,
                                    negDepth));
          index = arith::SelectOp::create(
              b, l, wrap, arith::AddIOp::create(b, l, index, depthC), index);
          Value pos = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, pos, index);
          return arith::SelectOp::create(b, l, hit, on, off);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// ReverseSequence: position `t < len[b]` along the time axis reads
/// `len[b] - 1 - t`; lengths are clamped to `[0, time dim]`.
struct ReverseSequenceLowering : OpConversionPattern<top::ReverseSequenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ReverseSequenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    auto lenType = staticOperandType(op, adaptor.getSequenceLens(),
                                     "sequence_lens", rewriter);
    if (failed(inType) || failed(lenType))
      return failure();
    int64_t bAxis = op.getBatchAxis(), tAxis = op.getTimeAxis();
    int64_t rank = type->getRank();
    if (rank < 2 || bAxis < 0 || bAxis > 1 || tAxis < 0 || tAxis > 1 ||
        bAxis == tAxis || lenType->getRank() != 1 ||
        lenType->getDimSize(0) != type->getDimSize(bAxis))
      return rewriter.notifyMatchFailure(op, "bad axes or shapes");
    Location loc = op.getLoc();
    if (type->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    int64_t steps = type->getDimSize(tAxis);
    bool isUnsigned = isUnsignedElement(op.getSequenceLens());
    MLIRContext *ctx = rewriter.getContext();
    Value r = buildGeneric(
        rewriter, loc, *type, {adaptor.getSequenceLens()},
        {AffineMap::get(rank, 0, {getAffineDimExpr(bAxis, ctx)}, ctx)},
        [&](OpBuilder &b, Location l, ValueRange xs) -> Value {
          Value len = clampIndex(
              b, l, indexFromInteger(b, l, xs[0], isUnsigned), 0, steps);
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          Value t = at[tAxis];
          Value reversed = arith::SubIOp::create(
              b, l, arith::SubIOp::create(b, l, len, indexConstant(b, l, 1)),
              t);
          Value inside =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, t, len);
          at[tAxis] = arith::SelectOp::create(b, l, inside, reversed, t);
          return tensor::ExtractOp::create(b, l, input, at).getResult();
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateTopToLinalgIndexedPatterns(const TopTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<GatherLowering, GatherElementsLowering, GatherNDLowering,
               ScatterElementsLowering, ScatterNDLowering, TriluLowering,
               OneHotLowering, ReverseSequenceLowering>(converter, ctx);
}

} // namespace strata::conversion
