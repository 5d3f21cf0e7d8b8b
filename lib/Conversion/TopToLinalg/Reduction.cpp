//===- Reduction.cpp - Top reductions, softmax, norms and scans ----------===//
//
// Reduce, ArgMax, Softmax, LogSoftmax, BatchNorm, LayerNorm, GroupNorm,
// RMSNorm, Cumulative, TopK and RotaryEmbedding become
// linalg.generic ops with reduction iterators (plus small elementwise
// generics for the epilogues). They compute in the reference interpreter's
// types and order (docs/codegen-reduction.md):
//
// * float sums, means and products accumulate in f64, max/min in f32 (f64
//   for f64); integer reductions wrap around in their own width (i64 for
//   `i1` and for means);
// * softmax, the norms, rotary embedding and attention compute in f64 and
//   round once (through f32 for f16/bf16, as the interpreter does);
// * Cumulative accumulates in f32 (f64 for f64) or the integer type, in scan
//   order: one reduction loop per output element (quadratic in the scanned
//   dim, but free of any loop-carried state); a run-time axis picks one of
//   the rank's scans with scf.index_switch;
// * TopK ranks every element by counting the elements ordered before it
//   (value, then lower index), then gathers the first k ranks.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace strata::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `axis` (negative counts from the back) as a dim of a rank-`rank` tensor,
/// or a match failure naming the op's attribute and value.
FailureOr<int64_t> normalizeAxis(Operation *op, StringRef name, int64_t axis,
                                 int64_t rank,
                                 ConversionPatternRewriter &rewriter) {
  if (axis < -rank || axis >= rank)
    return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
      d << "attribute '" << name << "' = " << axis << " is out of range [-"
        << rank << ", " << rank << ")";
    });
  return axis < 0 ? axis + rank : axis;
}

/// The converted operand `v` as a static ranked tensor, or a match failure.
FailureOr<RankedTensorType> staticOperandType(Operation *op, Value v,
                                              StringRef name,
                                              ConversionPatternRewriter &rw) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return rw.notifyMatchFailure(op, [&](Diagnostic &d) {
      d << "operand '" << name << "' is not a static ranked tensor";
    });
  return t;
}

/// An integer constant of `type` holding the low bits of `v`.
Value intConstant(OpBuilder &b, Location loc, Type type, int64_t v) {
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc, type,
      b.getIntegerAttr(type,
                       APInt(64, static_cast<uint64_t>(v), true).trunc(width)));
}

/// `linalg.fill` of a new tensor of `type` with `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   Value value) {
  return linalg::FillOp::create(b, loc, ValueRange{value},
                                ValueRange{emptyTensor(b, loc, type)})
      .getResult(0);
}

/// The map (d0 .. d{numDims-1}) -> (d{dims[0]}, d{dims[1]}, ...).
AffineMap dimsMap(unsigned numDims, ArrayRef<int64_t> dims, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// The dims of `0 .. reduced.size()-1` that are not reduced.
SmallVector<int64_t> keptDims(ArrayRef<bool> reduced) {
  SmallVector<int64_t> kept;
  for (auto [d, r] : llvm::enumerate(reduced))
    if (!r)
      kept.push_back(d);
  return kept;
}

/// The shape of `shape` without the reduced dims.
SmallVector<int64_t> keptShape(ArrayRef<int64_t> shape,
                               ArrayRef<bool> reduced) {
  SmallVector<int64_t> out;
  for (int64_t d : keptDims(reduced))
    out.push_back(shape[d]);
  return out;
}

/// The result values of a linalg.generic body.
using GenericBody =
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// A linalg.generic over `numLoops` loops (loop d is a reduction iff
/// `reduction[d]`) reading `inputs` through `inputMaps` and updating `inits`
/// through `initMaps`. The body gets the input scalars then the init
/// scalars.
linalg::GenericOp buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                               ArrayRef<AffineMap> inputMaps, ValueRange inits,
                               ArrayRef<AffineMap> initMaps,
                               ArrayRef<bool> reduction, GenericBody body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.append(initMaps.begin(), initMaps.end());
  SmallVector<utils::IteratorType> iterators;
  for (bool r : reduction)
    iterators.push_back(r ? utils::IteratorType::reduction
                          : utils::IteratorType::parallel);
  return linalg::GenericOp::create(
      b, loc, TypeRange(inits), inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
}

/// `v` (static shape) reshaped to `type` (same element count), through
/// collapse_shape / expand_shape.
Value reshapeTo(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  auto src = cast<RankedTensorType>(v.getType());
  if (src.getShape() == type.getShape())
    return v;
  if (src.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, type, v,
                                         ArrayRef<ReassociationIndices>{});
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, v,
                                           ArrayRef<ReassociationIndices>{});
  if (std::optional<SmallVector<ReassociationIndices>> re =
          getReassociationIndicesForReshape(src, type)) {
    if (src.getRank() > type.getRank())
      return tensor::CollapseShapeOp::create(b, loc, type, v, *re);
    if (src.getRank() < type.getRank())
      return tensor::ExpandShapeOp::create(b, loc, type, v, *re);
  }
  // Through a flat 1-D tensor.
  auto flat =
      RankedTensorType::get({src.getNumElements()}, src.getElementType());
  ReassociationIndices all;
  for (int64_t d = 0; d < src.getRank(); ++d)
    all.push_back(d);
  Value f = src.getRank() == 1
                ? v
                : tensor::CollapseShapeOp::create(
                      b, loc, flat, v, ArrayRef<ReassociationIndices>{all})
                      .getResult();
  if (type.getRank() == 1)
    return f;
  ReassociationIndices allOut;
  for (int64_t d = 0; d < type.getRank(); ++d)
    allOut.push_back(d);
  return tensor::ExpandShapeOp::create(b, loc, type, f,
                                       ArrayRef<ReassociationIndices>{allOut});
}

/// Scalar `v` (float, or integer signed unless `isUnsigned`) as float `to`.
Value toFloat(OpBuilder &b, Location loc, Value v, Type to,
              bool isUnsigned = false) {
  Type t = v.getType();
  if (t == to)
    return v;
  if (auto ft = dyn_cast<FloatType>(t)) {
    if (ft.getWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (isUnsigned || t.isInteger(1))
    return arith::UIToFPOp::create(b, loc, to, v);
  return arith::SIToFPOp::create(b, loc, to, v);
}

/// An f64/f32 compute value rounded to the float type `to` as the
/// interpreter does: f64 -> f32 -> f16/bf16.
Value roundTo(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  Type f32 = b.getF32Type();
  if (v.getType().isF64() && !to.isF64())
    v = arith::TruncFOp::create(b, loc, f32, v);
  if (v.getType() != to)
    v = arith::TruncFOp::create(b, loc, to, v);
  return v;
}

/// The float type comparisons and max/min run in: f32 below 32 bits.
Type compareFloatType(OpBuilder &b, Type t) {
  return t.getIntOrFloatBitWidth() < 32 ? b.getF32Type() : t;
}

/// Whether the float scalar `v` is NaN.
Value isNan(OpBuilder &b, Location loc, Value v) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
}

/// linalg.index `d` as an i64.
Value indexI64(OpBuilder &b, Location loc, int64_t d) {
  Value i = linalg::IndexOp::create(b, loc, d);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
}

/// Fails the match unless `type`'s elements are floats.
LogicalResult requireFloat(Operation *op, Type type,
                           ConversionPatternRewriter &rw) {
  if (isa<FloatType>(getElementTypeOrSelf(type)))
    return success();
  return rw.notifyMatchFailure(op, "only float elements are lowered");
}

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

struct ReduceLowering : OpConversionPattern<top::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getAxesValue())
      return rewriter.notifyMatchFailure(op, "run-time axes (operand "
                                             "'axes_value') are not lowered");
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    FailureOr<RankedTensorType> inType =
        staticOperandType(op, adaptor.getInput(), "input", rewriter);
    if (failed(type) || failed(inType))
      return failure();
    int64_t rank = inType->getRank();
    SmallVector<bool> reduced(rank, op.getAxes().empty());
    for (int64_t a : op.getAxes()) {
      FailureOr<int64_t> d = normalizeAxis(op, "axes", a, rank, rewriter);
      if (failed(d))
        return failure();
      reduced[*d] = true;
    }
    Location loc = op.getLoc();
    Type elem = type->getElementType();
    auto kept =
        RankedTensorType::get(keptShape(inType->getShape(), reduced), elem);
    if (kept.getNumElements() != type->getNumElements())
      return rewriter.notifyMatchFailure(op, "result shape does not match "
                                             "the reduced input shape");
    top::ReduceMode mode = op.getMode();
    bool isFloat = isa<FloatType>(elem);
    bool isUnsigned = isUnsignedElement(op.getInput());
    bool isBool = elem.isInteger(1);
    bool sumLike = mode == top::ReduceMode::Sum ||
                   mode == top::ReduceMode::Mean ||
                   mode == top::ReduceMode::Prod;
    // The accumulator type (see the file comment).
    Type acc = elem;
    if (isFloat)
      acc = sumLike ? rewriter.getF64Type() : compareFloatType(rewriter, elem);
    else if (isBool || mode == top::ReduceMode::Mean)
      acc = rewriter.getI64Type();
    bool extendUnsigned = isUnsigned || isBool;
    // Integer max/min compare unsigned only for narrow unsigned types kept
    // in their width; the interpreter compares ui64 as i64.
    bool unsignedCompare = !isFloat && acc == elem && isUnsigned &&
                           elem.getIntOrFloatBitWidth() < 64;

    // The value a reduction of zero elements gives.
    Value init;
    switch (mode) {
    case top::ReduceMode::Sum:
    case top::ReduceMode::Mean:
      init = scalarConstant(rewriter, loc, acc, 0);
      break;
    case top::ReduceMode::Prod:
      init = scalarConstant(rewriter, loc, acc, 1);
      break;
    case top::ReduceMode::Max:
    case top::ReduceMode::Min: {
      bool max = mode == top::ReduceMode::Max;
      if (isFloat) {
        double inf = std::numeric_limits<double>::infinity();
        init = scalarConstant(rewriter, loc, acc, max ? -inf : inf);
        break;
      }
      unsigned w = elem.getIntOrFloatBitWidth();
      APInt v;
      if (isBool)
        v = APInt(64, max ? 0 : 1);
      else if (isUnsigned && w < 64)
        v = max ? APInt::getMinValue(w) : APInt::getMaxValue(w);
      else
        v = max ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w);
      init = arith::ConstantOp::create(
          rewriter, loc, acc,
          rewriter.getIntegerAttr(acc,
                                  v.zextOrTrunc(acc.getIntOrFloatBitWidth())));
      break;
    }
    }

    MLIRContext *ctx = getContext();
    auto accType = RankedTensorType::get(kept.getShape(), acc);
    linalg::GenericOp generic = buildGeneric(
        rewriter, loc, {adaptor.getInput()},
        {AffineMap::getMultiDimIdentityMap(rank, ctx)},
        {filledTensor(rewriter, loc, accType, init)},
        {dimsMap(rank, keptDims(reduced), ctx)}, reduced,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], a = args[1];
          if (isFloat)
            x = toFloat(b, l, x, acc);
          else if (x.getType() != acc)
            x = extendUnsigned
                    ? arith::ExtUIOp::create(b, l, acc, x).getResult()
                    : arith::ExtSIOp::create(b, l, acc, x).getResult();
          switch (mode) {
          case top::ReduceMode::Sum:
          case top::ReduceMode::Mean:
            return {isFloat ? arith::AddFOp::create(b, l, a, x).getResult()
                            : arith::AddIOp::create(b, l, a, x).getResult()};
          case top::ReduceMode::Prod:
            return {isFloat ? arith::MulFOp::create(b, l, a, x).getResult()
                            : arith::MulIOp::create(b, l, a, x).getResult()};
          case top::ReduceMode::Max:
            if (isFloat)
              return {arith::MaximumFOp::create(b, l, a, x)};
            if (unsignedCompare)
              return {arith::MaxUIOp::create(b, l, a, x)};
            return {arith::MaxSIOp::create(b, l, a, x)};
          case top::ReduceMode::Min:
            if (isFloat)
              return {arith::MinimumFOp::create(b, l, a, x)};
            if (unsignedCompare)
              return {arith::MinUIOp::create(b, l, a, x)};
            return {arith::MinSIOp::create(b, l, a, x)};
          }
          return {a};
        });
    Value r = generic.getResult(0);

    // Mean's division and the rounding back to the element type.
    int64_t count = 1;
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        count *= inType->getDimSize(d);
    bool mean = mode == top::ReduceMode::Mean;
    if (mean || acc != elem)
      r = buildElementwise(
          rewriter, loc, kept, {r},
          [&](OpBuilder &b, Location l, ValueRange xs, Type) {
            Value v = xs[0];
            if (mean && isFloat)
              v = arith::DivFOp::create(
                  b, l, v,
                  scalarConstant(b, l, acc, static_cast<double>(count)));
            else if (mean && count != 0)
              v = arith::DivSIOp::create(b, l, v,
                                         intConstant(b, l, acc, count));
            if (isFloat)
              return roundTo(b, l, v, elem);
            if (isBool)
              return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v,
                                           intConstant(b, l, acc, 0))
                  .getResult();
            if (v.getType() != elem)
              return arith::TruncIOp::create(b, l, elem, v).getResult();
            return v;
          });
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, r, *type));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// ArgMax
//===----------------------------------------------------------------------===//

struct ArgMaxLowering : OpConversionPattern<top::ArgMaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ArgMaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    FailureOr<RankedTensorType> inType =
        staticOperandType(op, adaptor.getInput(), "input", rewriter);
    if (failed(type) || failed(inType))
      return failure();
    int64_t rank = inType->getRank();
    FailureOr<int64_t> axis =
        normalizeAxis(op, "axis", op.getAxis(), rank, rewriter);
    if (failed(axis))
      return failure();
    Location loc = op.getLoc();
    if (type->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    if (inType->getDimSize(*axis) == 0)
      return rewriter.notifyMatchFailure(op, "attribute 'axis' selects an "
                                             "empty dim");
    SmallVector<bool> reduced(rank, false);
    reduced[*axis] = true;
    Type elem = inType->getElementType();
    auto kept =
        RankedTensorType::get(keptShape(inType->getShape(), reduced), elem);
    // The running best value starts as the element at position 0 (a copy
    // through a generic: an extract_slice would bufferize to a strided
    // memref.copy needing a runtime library).
    MLIRContext *ctx = getContext();
    int64_t keptRank = kept.getRank();
    SmallVector<AffineExpr> firstExprs;
    for (int64_t d = 0, k = 0; d < rank; ++d)
      firstExprs.push_back(d == *axis ? getAffineConstantExpr(0, ctx)
                                      : getAffineDimExpr(k++, ctx));
    Value first =
        buildGeneric(
            rewriter, loc, {adaptor.getInput()},
            {AffineMap::get(keptRank, 0, firstExprs, ctx)},
            {emptyTensor(rewriter, loc, kept)},
            {AffineMap::getMultiDimIdentityMap(keptRank, ctx)},
            SmallVector<bool>(keptRank, false),
            [](OpBuilder &, Location, ValueRange args) -> SmallVector<Value> {
              return {args[0]};
            })
            .getResult(0);
    auto idxType =
        RankedTensorType::get(kept.getShape(), rewriter.getI64Type());
    Value zero = scalarConstant(rewriter, loc, rewriter.getI64Type(), 0);
    bool isFloat = isa<FloatType>(elem);
    bool unsignedCompare =
        elem.isInteger(1) ||
        (isUnsignedElement(op.getInput()) && elem.getIntOrFloatBitWidth() < 64);
    bool last = op.getSelectLastIndex();
    AffineMap keptMap = dimsMap(rank, keptDims(reduced), ctx);
    linalg::GenericOp generic = buildGeneric(
        rewriter, loc, {adaptor.getInput()},
        {AffineMap::getMultiDimIdentityMap(rank, ctx)},
        {first, filledTensor(rewriter, loc, idxType, zero)}, {keptMap, keptMap},
        reduced,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], best = args[1], bestIdx = args[2];
          Value better;
          Value lastV = arith::ConstantOp::create(b, l, b.getBoolAttr(last));
          if (isFloat) {
            Type ct = compareFloatType(b, elem);
            Value xv = toFloat(b, l, x, ct), bv = toFloat(b, l, best, ct);
            Value xn = isNan(b, l, xv), bn = isNan(b, l, bv);
            // NaN best: only a later NaN with select_last_index replaces it.
            Value ifNan = arith::AndIOp::create(b, l, lastV, xn);
            Value gt =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, xv, bv);
            Value eq =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, xv, bv);
            Value ifNum =
                arith::OrIOp::create(b, l, arith::OrIOp::create(b, l, xn, gt),
                                     arith::AndIOp::create(b, l, lastV, eq));
            better = arith::SelectOp::create(b, l, bn, ifNan, ifNum);
          } else {
            Value gt = arith::CmpIOp::create(b, l,
                                             unsignedCompare
                                                 ? arith::CmpIPredicate::ugt
                                                 : arith::CmpIPredicate::sgt,
                                             x, best);
            Value eq =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, best);
            better = arith::OrIOp::create(
                b, l, gt, arith::AndIOp::create(b, l, lastV, eq));
          }
          Value i = indexI64(b, l, *axis);
          return {arith::SelectOp::create(b, l, better, x, best),
                  arith::SelectOp::create(b, l, better, i, bestIdx)};
        });
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, generic.getResult(1), *type));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax
//===----------------------------------------------------------------------===//

template <typename OpTy, bool Log>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *this->getTypeConverter(), rewriter);
    if (failed(type) ||
        failed(requireFloat(op, op.getInput().getType(), rewriter)) ||
        failed(requireFloat(op, *type, rewriter)))
      return failure();
    int64_t rank = type->getRank();
    FailureOr<int64_t> axis = normalizeAxis(
        op, "axis", static_cast<int64_t>(op.getAxis()), rank, rewriter);
    if (failed(axis))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = this->getContext();
    Type f64 = rewriter.getF64Type();
    Type elem = type->getElementType();
    SmallVector<bool> reduced(rank, false);
    reduced[*axis] = true;
    auto stats =
        RankedTensorType::get(keptShape(type->getShape(), reduced), f64);
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap keptMap = dimsMap(rank, keptDims(reduced), ctx);
    Value x = adaptor.getInput();
    double inf = std::numeric_limits<double>::infinity();
    // The maximum ignores NaN (std::max in the interpreter); a NaN element
    // makes its whole slice NaN through the sum anyway.
    Value mx =
        buildGeneric(rewriter, loc, {x}, {id},
                     {filledTensor(rewriter, loc, stats,
                                   scalarConstant(rewriter, loc, f64, -inf))},
                     {keptMap}, reduced,
                     [&](OpBuilder &b, Location l,
                         ValueRange args) -> SmallVector<Value> {
                       return {arith::MaxNumFOp::create(
                           b, l, args[1], toFloat(b, l, args[0], f64))};
                     })
            .getResult(0);
    Value sum =
        buildGeneric(rewriter, loc, {x, mx}, {id, keptMap},
                     {filledTensor(rewriter, loc, stats,
                                   scalarConstant(rewriter, loc, f64, 0))},
                     {keptMap}, reduced,
                     [&](OpBuilder &b, Location l,
                         ValueRange args) -> SmallVector<Value> {
                       Value v = arith::SubFOp::create(
                           b, l, toFloat(b, l, args[0], f64), args[1]);
                       return {arith::AddFOp::create(
                           b, l, args[2], math::ExpOp::create(b, l, v))};
                     })
            .getResult(0);
    if (Log)
      sum = buildElementwise(
          rewriter, loc, stats, {sum},
          [](OpBuilder &b, Location l, ValueRange xs, Type) {
            return math::LogOp::create(b, l, xs[0]).getResult();
          });
    SmallVector<bool> parallel(rank, false);
    Value out =
        buildGeneric(
            rewriter, loc, {x, mx, sum}, {id, keptMap, keptMap},
            {emptyTensor(rewriter, loc, *type)}, {id}, parallel,
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              Value v = arith::SubFOp::create(b, l, toFloat(b, l, args[0], f64),
                                              args[1]);
              Value y =
                  Log ? arith::SubFOp::create(b, l, v, args[2]).getResult()
                      : arith::DivFOp::create(
                            b, l, math::ExpOp::create(b, l, v), args[2])
                            .getResult();
              return {roundTo(b, l, y, elem)};
            })
            .getResult(0);
    rewriter.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// Per-slice mean and reciprocal standard deviation `1 / sqrt(var + eps)`
/// (biased variance, two passes, f64) of `x` over the `reduced` dims, as
/// tensors of the kept dims.
std::pair<Value, Value> meanAndRstd(OpBuilder &b, Location loc, Value x,
                                    ArrayRef<bool> reduced, double eps) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  MLIRContext *ctx = b.getContext();
  Type f64 = b.getF64Type();
  auto stats = RankedTensorType::get(keptShape(t.getShape(), reduced), f64);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap keptMap = dimsMap(rank, keptDims(reduced), ctx);
  int64_t len = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d])
      len *= t.getDimSize(d);
  double n = static_cast<double>(std::max<int64_t>(len, 1));
  Value zero = scalarConstant(b, loc, f64, 0);
  Value sum =
      buildGeneric(b, loc, {x}, {id}, {filledTensor(b, loc, stats, zero)},
                   {keptMap}, reduced,
                   [&](OpBuilder &nb, Location l,
                       ValueRange args) -> SmallVector<Value> {
                     return {arith::AddFOp::create(
                         nb, l, args[1], toFloat(nb, l, args[0], f64))};
                   })
          .getResult(0);
  Value mean =
      buildElementwise(b, loc, stats, {sum},
                       [&](OpBuilder &nb, Location l, ValueRange xs, Type) {
                         return arith::DivFOp::create(
                                    nb, l, xs[0], scalarConstant(nb, l, f64, n))
                             .getResult();
                       });
  Value sq =
      buildGeneric(b, loc, {x, mean}, {id, keptMap},
                   {filledTensor(b, loc, stats, zero)}, {keptMap}, reduced,
                   [&](OpBuilder &nb, Location l,
                       ValueRange args) -> SmallVector<Value> {
                     Value d = arith::SubFOp::create(
                         nb, l, toFloat(nb, l, args[0], f64), args[1]);
                     return {arith::AddFOp::create(
                         nb, l, args[2], arith::MulFOp::create(nb, l, d, d))};
                   })
          .getResult(0);
  Value rstd = buildElementwise(
      b, loc, stats, {sq}, [&](OpBuilder &nb, Location l, ValueRange xs, Type) {
        Value var =
            arith::DivFOp::create(nb, l, xs[0], scalarConstant(nb, l, f64, n));
        Value s = math::SqrtOp::create(
            nb, l,
            arith::AddFOp::create(nb, l, var, scalarConstant(nb, l, f64, eps)));
        return arith::DivFOp::create(nb, l, scalarConstant(nb, l, f64, 1.0), s)
            .getResult();
      });
  return {mean, rstd};
}

/// `(x - mean) * rstd [* scale] [+ bias]` in f64 over `x`'s shape, rounded to
/// `resultType`'s element type; `paramDims` are the loop dims `scale` and
/// `bias` (absent: null) are indexed by.
Value normalize(OpBuilder &b, Location loc, Value x, Value mean, Value rstd,
                ArrayRef<bool> reduced, Value scale, Value bias,
                ArrayRef<int64_t> paramDims, RankedTensorType resultType,
                bool scaleUnsigned, bool biasUnsigned) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  Type f64 = b.getF64Type();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap keptMap = dimsMap(rank, keptDims(reduced), ctx);
  AffineMap paramMap = dimsMap(rank, paramDims, ctx);
  SmallVector<Value> inputs{x, mean, rstd};
  SmallVector<AffineMap> maps{id, keptMap, keptMap};
  if (scale) {
    inputs.push_back(scale);
    maps.push_back(paramMap);
  }
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(paramMap);
  }
  SmallVector<bool> parallel(rank, false);
  Type elem = resultType.getElementType();
  return buildGeneric(b, loc, inputs, maps, {emptyTensor(b, loc, resultType)},
                      {id}, parallel,
                      [&](OpBuilder &nb, Location l,
                          ValueRange args) -> SmallVector<Value> {
                        Value y = arith::SubFOp::create(
                            nb, l, toFloat(nb, l, args[0], f64), args[1]);
                        y = arith::MulFOp::create(nb, l, y, args[2]);
                        unsigned next = 3;
                        if (scale)
                          y = arith::MulFOp::create(
                              nb, l, y,
                              toFloat(nb, l, args[next++], f64, scaleUnsigned));
                        if (bias)
                          y = arith::AddFOp::create(
                              nb, l, y,
                              toFloat(nb, l, args[next++], f64, biasUnsigned));
                        return {roundTo(nb, l, y, elem)};
                      })
      .getResult(0);
}

/// The optional parameter operand `v` reshaped to `shape` (its element type
/// kept), or null when absent; fails when its element count differs.
FailureOr<Value> paramAs(Operation *op, Value v, StringRef name,
                         ArrayRef<int64_t> shape,
                         ConversionPatternRewriter &rw) {
  if (isNone(v))
    return Value();
  FailureOr<RankedTensorType> t = staticOperandType(op, v, name, rw);
  if (failed(t))
    return failure();
  auto target = RankedTensorType::get(shape, t->getElementType());
  if (t->getNumElements() != target.getNumElements())
    return rw.notifyMatchFailure(op, [&](Diagnostic &d) {
      d << "operand '" << name << "' has " << t->getNumElements()
        << " elements, expected " << target.getNumElements();
    });
  return reshapeTo(rw, op->getLoc(), v, target);
}

struct LayerNormLowering : OpConversionPattern<top::LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type) ||
        failed(requireFloat(op, op.getInput().getType(), rewriter)) ||
        failed(requireFloat(op, *type, rewriter)))
      return failure();
    int64_t rank = type->getRank();
    FailureOr<int64_t> axis = normalizeAxis(
        op, "axis", static_cast<int64_t>(op.getAxis()), rank, rewriter);
    if (failed(axis))
      return failure();
    ArrayRef<int64_t> normShape = type->getShape().drop_front(*axis);
    FailureOr<Value> scale =
        paramAs(op, adaptor.getScale(), "scale", normShape, rewriter);
    FailureOr<Value> bias =
        paramAs(op, adaptor.getBias(), "bias", normShape, rewriter);
    if (failed(scale) || failed(bias))
      return failure();
    SmallVector<bool> reduced(rank, false);
    SmallVector<int64_t> paramDims;
    for (int64_t d = *axis; d < rank; ++d) {
      reduced[d] = true;
      paramDims.push_back(d);
    }
    Location loc = op.getLoc();
    auto [mean, rstd] = meanAndRstd(rewriter, loc, adaptor.getInput(), reduced,
                                    op.getEpsilon().convertToDouble());
    rewriter.replaceOp(op, normalize(rewriter, loc, adaptor.getInput(), mean,
                                     rstd, reduced, *scale, *bias, paramDims,
                                     *type, isUnsignedElement(op.getScale()),
                                     isUnsignedElement(op.getBias())));
    return success();
  }
};

/// A channel norm's (GroupNorm, BatchNorm) static float result type, of
/// rank >= 2, and its channel dim (1, or the last one with NHWC); or a match
/// failure.
template <typename OpTy>
FailureOr<std::pair<RankedTensorType, int64_t>>
channelNormType(OpTy op, const TypeConverter &converter,
                ConversionPatternRewriter &rewriter) {
  FailureOr<RankedTensorType> type =
      staticResultType(op, 0, converter, rewriter);
  if (failed(type) ||
      failed(requireFloat(op, op.getInput().getType(), rewriter)) ||
      failed(requireFloat(op, *type, rewriter)))
    return failure();
  int64_t rank = type->getRank();
  if (rank < 2)
    return rewriter.notifyMatchFailure(op, "input rank is below 2");
  return std::make_pair(*type,
                        op.getLayout() == top::Layout::NHWC ? rank - 1 : 1);
}

struct GroupNormLowering : OpConversionPattern<top::GroupNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::GroupNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto norm = channelNormType(op, *getTypeConverter(), rewriter);
    if (failed(norm))
      return failure();
    RankedTensorType type = norm->first;
    int64_t cDim = norm->second;
    int64_t rank = type.getRank();
    int64_t c = type.getDimSize(cDim);
    auto g = static_cast<int64_t>(op.getNumGroups());
    if (g < 1 || c % g != 0)
      return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
        d << "attribute 'num_groups' = " << g << " does not divide the " << c
          << " channels";
      });
    // Split the channel dim into (group, channel in group).
    SmallVector<int64_t> shape(type.getShape());
    shape[cDim] = c / g;
    shape.insert(shape.begin() + cDim, g);
    int64_t erank = rank + 1;
    SmallVector<ReassociationIndices> re;
    for (int64_t d = 0; d < erank; ++d) {
      if (d == cDim + 1)
        re.back().push_back(d);
      else
        re.push_back({d});
    }
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Value x = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, inType.getElementType()),
        adaptor.getInput(), re);
    SmallVector<int64_t> paramShape{g, c / g};
    FailureOr<Value> scale =
        paramAs(op, adaptor.getScale(), "scale", paramShape, rewriter);
    FailureOr<Value> bias =
        paramAs(op, adaptor.getBias(), "bias", paramShape, rewriter);
    if (failed(scale) || failed(bias))
      return failure();
    SmallVector<bool> reduced(erank, true);
    reduced[0] = reduced[cDim] = false;
    auto [mean, rstd] = meanAndRstd(rewriter, loc, x, reduced,
                                    op.getEpsilon().convertToDouble());
    auto outType = RankedTensorType::get(shape, type.getElementType());
    Value y =
        normalize(rewriter, loc, x, mean, rstd, reduced, *scale, *bias,
                  {cDim, cDim + 1}, outType, isUnsignedElement(op.getScale()),
                  isUnsignedElement(op.getBias()));
    rewriter.replaceOp(
        op, tensor::CollapseShapeOp::create(rewriter, loc, type, y, re));
    return success();
  }
};

struct BatchNormLowering : OpConversionPattern<top::BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto norm = channelNormType(op, *getTypeConverter(), rewriter);
    if (failed(norm))
      return failure();
    RankedTensorType type = norm->first;
    int64_t cDim = norm->second;
    int64_t rank = type.getRank();
    int64_t c = type.getDimSize(cDim);
    SmallVector<int64_t> cShape{c};
    FailureOr<Value> mean =
        paramAs(op, adaptor.getMean(), "mean", cShape, rewriter);
    FailureOr<Value> var =
        paramAs(op, adaptor.getVariance(), "variance", cShape, rewriter);
    FailureOr<Value> scale =
        paramAs(op, adaptor.getScale(), "scale", cShape, rewriter);
    FailureOr<Value> bias =
        paramAs(op, adaptor.getBias(), "bias", cShape, rewriter);
    if (failed(mean) || failed(var) || failed(scale) || failed(bias))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Type f64 = rewriter.getF64Type();
    double eps = op.getEpsilon().convertToDouble();
    bool uMean = isUnsignedElement(op.getMean()),
         uVar = isUnsignedElement(op.getVariance()),
         uScale = isUnsignedElement(op.getScale()),
         uBias = isUnsignedElement(op.getBias());
    // Per channel: a = scale / sqrt(var + eps), b = bias - mean * a.
    SmallVector<Value> params{*mean, *var};
    if (*scale)
      params.push_back(*scale);
    if (*bias)
      params.push_back(*bias);
    auto coefType = RankedTensorType::get(cShape, f64);
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    SmallVector<AffineMap> paramMaps(params.size(), id1);
    linalg::GenericOp coef = buildGeneric(
        rewriter, loc, params, paramMaps,
        {emptyTensor(rewriter, loc, coefType),
         emptyTensor(rewriter, loc, coefType)},
        {id1, id1}, {false},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value m = toFloat(b, l, args[0], f64, uMean);
          Value v = toFloat(b, l, args[1], f64, uVar);
          unsigned next = 2;
          Value s = *scale ? toFloat(b, l, args[next++], f64, uScale)
                           : scalarConstant(b, l, f64, 1.0);
          Value bb = *bias ? toFloat(b, l, args[next++], f64, uBias)
                           : scalarConstant(b, l, f64, 0.0);
          Value a = arith::DivFOp::create(
              b, l, s,
              math::SqrtOp::create(
                  b, l,
                  arith::AddFOp::create(b, l, v,
                                        scalarConstant(b, l, f64, eps))));
          Value off = arith::SubFOp::create(b, l, bb,
                                            arith::MulFOp::create(b, l, m, a));
          return {a, off};
        });
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap chan = dimsMap(rank, {cDim}, ctx);
    Type elem = type.getElementType();
    SmallVector<bool> parallel(rank, false);
    Value out =
        buildGeneric(rewriter, loc,
                     {adaptor.getInput(), coef.getResult(0), coef.getResult(1)},
                     {id, chan, chan}, {emptyTensor(rewriter, loc, type)}, {id},
                     parallel,
                     [&](OpBuilder &b, Location l,
                         ValueRange args) -> SmallVector<Value> {
                       Value y = arith::MulFOp::create(
                           b, l, toFloat(b, l, args[0], f64), args[1]);
                       y = arith::AddFOp::create(b, l, y, args[2]);
                       return {roundTo(b, l, y, elem)};
                     })
            .getResult(0);
    rewriter.replaceOp(op, out);
    return success();
  }
};

struct RMSNormLowering : OpConversionPattern<top::RMSNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::RMSNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type) ||
        failed(requireFloat(op, op.getInput().getType(), rewriter)) ||
        failed(requireFloat(op, *type, rewriter)))
      return failure();
    FailureOr<RankedTensorType> scaleType =
        staticOperandType(op, adaptor.getScale(), "scale", rewriter);
    if (failed(scaleType))
      return failure();
    int64_t rank = type->getRank();
    FailureOr<int64_t> axis = normalizeAxis(
        op, "axis", static_cast<int64_t>(op.getAxis()), rank, rewriter);
    if (failed(axis))
      return failure();
    // scale broadcasts numpy-style to the normalized dims axis..rank-1.
    int64_t sRank = scaleType->getRank();
    if (sRank > rank - *axis)
      return rewriter.notifyMatchFailure(op, "operand 'scale' has a higher "
                                             "rank than the normalized shape");
    MLIRContext *ctx = getContext();
    SmallVector<AffineExpr> scaleExprs;
    for (int64_t j = 0; j < sRank; ++j) {
      int64_t d = rank - sRank + j;
      int64_t sd = scaleType->getDimSize(j);
      if (sd == type->getDimSize(d))
        scaleExprs.push_back(getAffineDimExpr(d, ctx));
      else if (sd == 1)
        scaleExprs.push_back(getAffineConstantExpr(0, ctx));
      else
        return rewriter.notifyMatchFailure(op, "operand 'scale' does not "
                                               "broadcast to the normalized "
                                               "shape");
    }
    SmallVector<bool> reduced(rank, false);
    int64_t len = 1;
    for (int64_t d = *axis; d < rank; ++d) {
      reduced[d] = true;
      len *= type->getDimSize(d);
    }
    Location loc = op.getLoc();
    Type f64 = rewriter.getF64Type();
    auto stats =
        RankedTensorType::get(keptShape(type->getShape(), reduced), f64);
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap keptMap = dimsMap(rank, keptDims(reduced), ctx);
    Value x = adaptor.getInput();
    Value sumSq =
        buildGeneric(rewriter, loc, {x}, {id},
                     {filledTensor(rewriter, loc, stats,
                                   scalarConstant(rewriter, loc, f64, 0))},
                     {keptMap}, reduced,
                     [&](OpBuilder &b, Location l,
                         ValueRange args) -> SmallVector<Value> {
                       Value v = toFloat(b, l, args[0], f64);
                       return {arith::AddFOp::create(
                           b, l, args[1], arith::MulFOp::create(b, l, v, v))};
                     })
            .getResult(0);
    double n = static_cast<double>(std::max<int64_t>(len, 1));
    double eps = op.getEpsilon().convertToDouble();
    Value rms = buildElementwise(
        rewriter, loc, stats, {sumSq},
        [&](OpBuilder &b, Location l, ValueRange xs, Type) {
          Value m =
              arith::DivFOp::create(b, l, xs[0], scalarConstant(b, l, f64, n));
          return math::SqrtOp::create(
                     b, l,
                     arith::AddFOp::create(b, l, m,
                                           scalarConstant(b, l, f64, eps)))
              .getResult();
        });
    Type elem = type->getElementType();
    SmallVector<bool> parallel(rank, false);
    Value out =
        buildGeneric(rewriter, loc, {x, rms, adaptor.getScale()},
                     {id, keptMap, AffineMap::get(rank, 0, scaleExprs, ctx)},
                     {emptyTensor(rewriter, loc, *type)}, {id}, parallel,
                     [&](OpBuilder &b, Location l,
                         ValueRange args) -> SmallVector<Value> {
                       Value y = arith::DivFOp::create(
                           b, l, toFloat(b, l, args[0], f64), args[1]);
                       y = arith::MulFOp::create(b, l, y,
                                                 toFloat(b, l, args[2], f64));
                       return {roundTo(b, l, y, elem)};
                     })
            .getResult(0);
    rewriter.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Cumulative
//===----------------------------------------------------------------------===//

/// The scan of `input` along `axis` (see CumulativeLowering), as a value of
/// `type`.
Value buildCumulative(OpBuilder &b0, Location loc, Value input,
                      RankedTensorType type, int64_t axis, bool prod,
                      bool exclusive, bool reverse) {
  MLIRContext *ctx = b0.getContext();
  int64_t rank = type.getRank();
  Type elem = type.getElementType();
  bool isFloat = isa<FloatType>(elem);
  bool isBool = elem.isInteger(1);
  Type acc = isFloat  ? compareFloatType(b0, elem)
             : isBool ? Type(b0.getI64Type())
                      : elem;
  int64_t dim = type.getDimSize(axis);
  // With `reverse`, scan the reversed input forward and reverse the
  // result: the same order of accumulation as the interpreter's backward
  // scan.
  SmallVector<AffineExpr> revExprs;
  for (int64_t d = 0; d < rank; ++d)
    revExprs.push_back(d == axis ? dim - 1 - getAffineDimExpr(d, ctx)
                                 : getAffineDimExpr(d, ctx));
  AffineMap revMap = AffineMap::get(rank, 0, revExprs, ctx);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<bool> parallel(rank, false);
  Value x = input;
  if (reverse)
    x = buildGeneric(
            b0, loc, {x}, {revMap},
            {emptyTensor(b0, loc, cast<RankedTensorType>(x.getType()))}, {id},
            parallel,
            [](OpBuilder &, Location, ValueRange args) -> SmallVector<Value> {
              return {args[0]};
            })
            .getResult(0);
  // Loops: the output dims, then q over the scanned dim (the reduction):
  // output j adds the inputs at q < j (exclusive) or q <= j in q order.
  SmallVector<AffineExpr> inExprs;
  for (int64_t d = 0; d < rank; ++d)
    inExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
  SmallVector<bool> loops(rank + 1, false);
  loops[rank] = true;
  auto accType = RankedTensorType::get(type.getShape(), acc);
  Value init = scalarConstant(b0, loc, acc, prod ? 1 : 0);
  Value r =
      buildGeneric(
          b0, loc, {x}, {AffineMap::get(rank + 1, 0, inExprs, ctx)},
          {filledTensor(b0, loc, accType, init)},
          {dimsMap(rank + 1, llvm::to_vector(llvm::seq<int64_t>(0, rank)),
                   ctx)},
          loops,
          [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            Value x = args[0], a = args[1];
            if (isFloat)
              x = toFloat(b, l, x, acc);
            else if (isBool)
              x = arith::ExtUIOp::create(b, l, acc, x);
            Value j = linalg::IndexOp::create(b, l, axis);
            Value q = linalg::IndexOp::create(b, l, rank);
            Value take =
                arith::CmpIOp::create(b, l,
                                      exclusive ? arith::CmpIPredicate::ult
                                                : arith::CmpIPredicate::ule,
                                      q, j);
            Value next;
            if (prod)
              next = isFloat ? arith::MulFOp::create(b, l, a, x).getResult()
                             : arith::MulIOp::create(b, l, a, x).getResult();
            else
              next = isFloat ? arith::AddFOp::create(b, l, a, x).getResult()
                             : arith::AddIOp::create(b, l, a, x).getResult();
            return {arith::SelectOp::create(b, l, take, next, a)};
          })
          .getResult(0);
  // Round to the element type, reversing back.
  if (acc != elem || reverse)
    r = buildGeneric(b0, loc, {r}, {reverse ? revMap : id},
                     {emptyTensor(b0, loc, type)}, {id}, parallel,
                     [&](OpBuilder &b, Location l,
                         ValueRange args) -> SmallVector<Value> {
                       Value v = args[0];
                       if (acc == elem)
                         return {v};
                       if (isFloat)
                         return {roundTo(b, l, v, elem)};
                       return {
                           arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne,
                                                 v, intConstant(b, l, acc, 0))};
                     })
            .getResult(0);
  return r;
}

/// Cumulative: one generic per scan (see buildCumulative). A run-time axis
/// (`axis_value`) selects among the rank's scans with scf.index_switch; an
/// axis outside [-rank, rank) is clamped (the interpreter reports an error).
struct CumulativeLowering : OpConversionPattern<top::CumulativeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::CumulativeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    int64_t rank = type->getRank();
    Type elem = type->getElementType();
    if (!isa<FloatType, IntegerType>(elem))
      return rewriter.notifyMatchFailure(op, "element type is not lowered");
    if (rank == 0)
      return rewriter.notifyMatchFailure(op, "rank-0 input");
    bool prod = op.getMode() == top::CumulativeMode::Prod;
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    Location loc = op.getLoc();
    Value axisValue = adaptor.getAxisValue();
    if (!axisValue) {
      FailureOr<int64_t> axis =
          normalizeAxis(op, "axis", op.getAxis(), rank, rewriter);
      if (failed(axis))
        return failure();
      rewriter.replaceOp(op, buildCumulative(rewriter, loc, adaptor.getInput(),
                                             *type, *axis, prod, exclusive,
                                             reverse));
      return success();
    }
    FailureOr<RankedTensorType> axisType =
        staticOperandType(op, axisValue, "axis_value", rewriter);
    if (failed(axisType))
      return failure();
    if (axisType->getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "operand 'axis_value' does not "
                                             "hold one element");
    // The axis as an index in [0, rank): negative counts from the back,
    // then clamped.
    Value zeroIdx = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<Value> at(axisType->getRank(), zeroIdx);
    Value a = tensor::ExtractOp::create(rewriter, loc, axisValue, at);
    Type i64 = rewriter.getI64Type();
    if (a.getType() != i64)
      a = isUnsignedElement(op.getAxisValue())
              ? arith::ExtUIOp::create(rewriter, loc, i64, a).getResult()
              : arith::ExtSIOp::create(rewriter, loc, i64, a).getResult();
    Value rankC = intConstant(rewriter, loc, i64, rank);
    Value zero = intConstant(rewriter, loc, i64, 0);
    Value neg = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                      a, zero);
    a = arith::SelectOp::create(
        rewriter, loc, neg, arith::AddIOp::create(rewriter, loc, a, rankC), a);
    a = arith::MaxSIOp::create(rewriter, loc, a, zero);
    a = arith::MinSIOp::create(rewriter, loc, a,
                               intConstant(rewriter, loc, i64, rank - 1));
    a = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), a);
    SmallVector<int64_t> cases;
    for (int64_t d = 0; d + 1 < rank; ++d)
      cases.push_back(d);
    auto sw = scf::IndexSwitchOp::create(rewriter, loc, TypeRange{*type}, a,
                                         cases, cases.size());
    auto fill = [&](Region &region, int64_t axis) {
      Block *block = rewriter.createBlock(&region);
      rewriter.setInsertionPointToStart(block);
      Value r = buildCumulative(rewriter, loc, adaptor.getInput(), *type, axis,
                                prod, exclusive, reverse);
      scf::YieldOp::create(rewriter, loc, r);
    };
    OpBuilder::InsertionGuard guard(rewriter);
    for (int64_t d = 0; d + 1 < rank; ++d)
      fill(sw.getCaseRegions()[d], d);
    fill(sw.getDefaultRegion(), rank - 1);
    rewriter.replaceOp(op, sw.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

struct TopKLowering : OpConversionPattern<top::TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getKValue())
      return rewriter.notifyMatchFailure(op, "a run-time k (operand "
                                             "'k_value') is not lowered");
    FailureOr<RankedTensorType> valuesType =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    FailureOr<RankedTensorType> indicesType =
        staticResultType(op, 1, *getTypeConverter(), rewriter);
    FailureOr<RankedTensorType> inType =
        staticOperandType(op, adaptor.getInput(), "input", rewriter);
    if (failed(valuesType) || failed(indicesType) || failed(inType))
      return failure();
    int64_t rank = inType->getRank();
    FailureOr<int64_t> axis =
        normalizeAxis(op, "axis", op.getAxis(), rank, rewriter);
    if (failed(axis))
      return failure();
    int64_t k = op.getK(), dim = inType->getDimSize(*axis);
    if (k < 0 || k > dim || valuesType->getDimSize(*axis) != k)
      return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
        d << "attribute 'k' = " << k << " is not in [0, " << dim
          << "] or does not match the result";
      });
    Location loc = op.getLoc();
    if (valuesType->getNumElements() == 0) {
      rewriter.replaceOp(op, {emptyTensor(rewriter, loc, *valuesType),
                              emptyTensor(rewriter, loc, *indicesType)});
      return success();
    }
    MLIRContext *ctx = getContext();
    Type elem = inType->getElementType();
    Type i64 = rewriter.getI64Type();
    bool isFloat = isa<FloatType>(elem);
    bool isUnsigned = isUnsignedElement(op.getInput()) || elem.isInteger(1);
    bool largest = op.getLargest();
    // Loops: the element dims (position p on the axis), then q over the
    // axis. `atQ` reads an operand of the element shape at q.
    SmallVector<AffineExpr> qExprs;
    for (int64_t d = 0; d < rank; ++d)
      qExprs.push_back(getAffineDimExpr(d == *axis ? rank : d, ctx));
    AffineMap atQ = AffineMap::get(rank + 1, 0, qExprs, ctx);
    AffineMap atP =
        dimsMap(rank + 1, llvm::to_vector(llvm::seq<int64_t>(0, rank)), ctx);
    SmallVector<bool> loops(rank + 1, false);
    loops[rank] = true;
    auto rankType = RankedTensorType::get(inType->getShape(), i64);
    Value zero = scalarConstant(rewriter, loc, i64, 0);
    Value one = scalarConstant(rewriter, loc, i64, 1);

    // Whether element a comes before element b in the order (value, NaN the
    // largest; ties and positions are handled by the caller).
    auto precedes = [&](OpBuilder &b, Location l, Value a, Value c) -> Value {
      if (isFloat) {
        Type ct = compareFloatType(b, elem);
        a = toFloat(b, l, a, ct);
        c = toFloat(b, l, c, ct);
        Value an = isNan(b, l, a), cn = isNan(b, l, c);
        Value t = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
        if (largest)
          return arith::OrIOp::create(
              b, l,
              arith::AndIOp::create(b, l, an,
                                    arith::XOrIOp::create(b, l, cn, t)),
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a, c));
        return arith::OrIOp::create(
            b, l,
            arith::AndIOp::create(b, l, cn, arith::XOrIOp::create(b, l, an, t)),
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, a, c));
      }
      arith::CmpIPredicate p = largest
                                   ? (isUnsigned ? arith::CmpIPredicate::ugt
                                                 : arith::CmpIPredicate::sgt)
                                   : (isUnsigned ? arith::CmpIPredicate::ult
                                                 : arith::CmpIPredicate::slt);
      return arith::CmpIOp::create(b, l, p, a, c);
    };
    auto equal = [&](OpBuilder &b, Location l, Value a, Value c) -> Value {
      if (isFloat) {
        Type ct = compareFloatType(b, elem);
        a = toFloat(b, l, a, ct);
        c = toFloat(b, l, c, ct);
        return arith::OrIOp::create(
            b, l, arith::AndIOp::create(b, l, isNan(b, l, a), isNan(b, l, c)),
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a, c));
      }
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a, c);
    };

    // rank(p) = number of q ordered before p.
    Value order =
        buildGeneric(
            rewriter, loc, {adaptor.getInput(), adaptor.getInput()}, {atP, atQ},
            {filledTensor(rewriter, loc, rankType, zero)}, {atP}, loops,
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              Value xp = args[0], xq = args[1], acc = args[2];
              Value p = linalg::IndexOp::create(b, l, *axis);
              Value q = linalg::IndexOp::create(b, l, rank);
              Value qFirst =
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, q, p);
              Value before = arith::OrIOp::create(
                  b, l, precedes(b, l, xq, xp),
                  arith::AndIOp::create(b, l, equal(b, l, xq, xp), qFirst));
              return {arith::AddIOp::create(
                  b, l, acc, arith::ExtUIOp::create(b, l, i64, before))};
            })
            .getResult(0);
    Value kConst = scalarConstant(rewriter, loc, i64, static_cast<double>(k));
    // Unsorted: the selected elements in position order; slot(p) = number of
    // selected q before p.
    Value slot;
    if (!op.getSorted())
      slot = buildGeneric(
                 rewriter, loc, {order}, {atQ},
                 {filledTensor(rewriter, loc, rankType, zero)}, {atP}, loops,
                 [&](OpBuilder &b, Location l,
                     ValueRange args) -> SmallVector<Value> {
                   Value p = linalg::IndexOp::create(b, l, *axis);
                   Value q = linalg::IndexOp::create(b, l, rank);
                   Value counts = arith::AndIOp::create(
                       b, l,
                       arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, q,
                                             p),
                       arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                             args[0], kConst));
                   return {arith::SelectOp::create(
                       b, l, counts, arith::AddIOp::create(b, l, args[1], one),
                       args[1])};
                 })
                 .getResult(0);

    // Gather: output j (on the axis) takes the q whose slot is j.
    SmallVector<Value> inputs{adaptor.getInput(), order};
    SmallVector<AffineMap> maps{atQ, atQ};
    if (slot) {
      inputs.push_back(slot);
      maps.push_back(atQ);
    }
    auto valType = RankedTensorType::get(valuesType->getShape(), elem);
    auto idxType = RankedTensorType::get(valuesType->getShape(), i64);
    linalg::GenericOp gather = buildGeneric(
        rewriter, loc, inputs, maps,
        {filledTensor(rewriter, loc, valType,
                      scalarConstant(rewriter, loc, elem, 0)),
         filledTensor(rewriter, loc, idxType, zero)},
        {atP, atP}, loops,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value j = indexI64(b, l, *axis);
          Value q = indexI64(b, l, rank);
          Value match;
          if (slot)
            match = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, args[1],
                                      kConst),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, args[2],
                                      j));
          else
            match = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                          args[1], j);
          unsigned n = slot ? 3 : 2;
          return {arith::SelectOp::create(b, l, match, args[0], args[n]),
                  arith::SelectOp::create(b, l, match, q, args[n + 1])};
        });
    rewriter.replaceOp(
        op, {reshapeTo(rewriter, loc, gather.getResult(0), *valuesType),
             reshapeTo(rewriter, loc, gather.getResult(1), *indicesType)});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RotaryEmbedding
//===----------------------------------------------------------------------===//

/// One elementwise generic over the `B x H x S x D` (or `B x S x H x D` for
/// a rank-3 input, split by expand_shape) elements: element d < R reads its
/// pair partner and the cos/sin entry with tensor.extract and rotates in
/// f64; the others pass through. Position ids are clamped to the cache rows
/// (the interpreter reports an error instead).
struct RotaryEmbeddingLowering : OpConversionPattern<top::RotaryEmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::RotaryEmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type) || failed(requireFloat(op, *type, rewriter)))
      return failure();
    FailureOr<RankedTensorType> cosType =
        staticOperandType(op, adaptor.getCosCache(), "cos_cache", rewriter);
    FailureOr<RankedTensorType> sinType =
        staticOperandType(op, adaptor.getSinCache(), "sin_cache", rewriter);
    if (failed(cosType) || failed(sinType))
      return failure();
    Value pos = adaptor.getPositionIds();
    bool hasPos = !isNone(pos);
    FailureOr<RankedTensorType> posType;
    if (hasPos) {
      posType = staticOperandType(op, pos, "position_ids", rewriter);
      if (failed(posType))
        return failure();
    }
    int64_t rank = type->getRank();
    if (rank != 3 && rank != 4)
      return rewriter.notifyMatchFailure(op, "input rank is not 3 or 4");
    bool rank3 = rank == 3;
    ArrayRef<int64_t> shape = type->getShape();
    auto heads = static_cast<int64_t>(op.getNumHeads());
    int64_t batch = shape[0], seq = rank3 ? shape[1] : shape[2];
    if (rank3 && (heads <= 0 || shape[2] % heads != 0))
      return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
        d << "attribute 'num_heads' = " << heads
          << " does not divide the hidden size " << shape[2];
      });
    int64_t headSize = rank3 ? shape[2] / heads : shape[3];
    auto rotAttr = static_cast<int64_t>(op.getRotaryEmbeddingDim());
    int64_t rot = rotAttr == 0 ? headSize : rotAttr;
    if (rot <= 0 || rot > headSize || rot % 2 != 0)
      return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
        d << "attribute 'rotary_embedding_dim' = " << rotAttr
          << " is not 0 or even and <= the head size " << headSize;
      });
    int64_t half = rot / 2;
    SmallVector<int64_t> cacheShape =
        hasPos ? SmallVector<int64_t>{cosType->getDimSize(0), half}
               : SmallVector<int64_t>{batch, seq, half};
    if (cosType->getShape() != ArrayRef<int64_t>(cacheShape) ||
        sinType->getShape() != ArrayRef<int64_t>(cacheShape) ||
        (hasPos && posType->getShape() != ArrayRef<int64_t>{batch, seq}) ||
        (hasPos && cacheShape[0] == 0))
      return rewriter.notifyMatchFailure(op, "cos_cache, sin_cache or "
                                             "position_ids have the wrong "
                                             "shape");
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Type elem = type->getElementType();
    Type f64 = rewriter.getF64Type();
    Value x = adaptor.getInput();
    auto inType = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape4(shape);
    SmallVector<ReassociationIndices> re{{0}, {1}, {2, 3}};
    if (rank3) {
      shape4 = {batch, seq, heads, headSize};
      x = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape4, inType.getElementType()),
          x, re);
    }
    auto outType = RankedTensorType::get(shape4, elem);
    int64_t sDim = rank3 ? 1 : 2;
    bool interleaved = op.getInterleaved();
    bool posUnsigned = hasPos && isUnsignedElement(op.getPositionIds());
    int64_t positions = hasPos ? cacheShape[0] : 0;
    Value cosV = adaptor.getCosCache(), sinV = adaptor.getSinCache();
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    Value out =
        buildGeneric(
            rewriter, loc, {x}, {id}, {emptyTensor(rewriter, loc, outType)},
            {id}, SmallVector<bool>(4, false),
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              auto cIdx = [&](int64_t v) {
                return arith::ConstantIndexOp::create(b, l, v).getResult();
              };
              SmallVector<Value> idx;
              for (int64_t d = 0; d < 4; ++d)
                idx.push_back(linalg::IndexOp::create(b, l, d));
              Value d = idx[3];
              Value inRot = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::ult, d, cIdx(rot));
              // The pair index i and the partner's position; clamped into
              // range for the elements that pass through.
              Value isA, i, partner;
              if (interleaved) {
                Value two = cIdx(2);
                i = arith::DivUIOp::create(b, l, d, two);
                isA = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::eq,
                    arith::RemUIOp::create(b, l, d, two), cIdx(0));
                partner = arith::SelectOp::create(
                    b, l, isA, arith::AddIOp::create(b, l, d, cIdx(1)),
                    arith::SubIOp::create(b, l, d, cIdx(1)));
              } else {
                isA = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, d,
                                            cIdx(half));
                i = arith::SelectOp::create(
                    b, l, isA, d, arith::SubIOp::create(b, l, d, cIdx(half)));
                partner = arith::SelectOp::create(
                    b, l, isA, arith::AddIOp::create(b, l, d, cIdx(half)), i);
              }
              i = arith::SelectOp::create(b, l, inRot, i, cIdx(0));
              partner = arith::SelectOp::create(b, l, inRot, partner, d);
              SmallVector<Value> cacheIdx;
              if (hasPos) {
                Value p = tensor::ExtractOp::create(
                    b, l, pos, ValueRange{idx[0], idx[sDim]});
                Type i64 = b.getI64Type();
                if (p.getType() != i64)
                  p = posUnsigned
                          ? arith::ExtUIOp::create(b, l, i64, p).getResult()
                          : arith::ExtSIOp::create(b, l, i64, p).getResult();
                // Clamp to [0, positions - 1].
                p = arith::MaxSIOp::create(b, l, p, intConstant(b, l, i64, 0));
                p = arith::MinSIOp::create(
                    b, l, p, intConstant(b, l, i64, positions - 1));
                cacheIdx = {
                    arith::IndexCastOp::create(b, l, b.getIndexType(), p), i};
              } else {
                cacheIdx = {idx[0], idx[sDim], i};
              }
              Value c = toFloat(
                  b, l, tensor::ExtractOp::create(b, l, cosV, cacheIdx), f64);
              Value sn = toFloat(
                  b, l, tensor::ExtractOp::create(b, l, sinV, cacheIdx), f64);
              SmallVector<Value> pIdx{idx[0], idx[1], idx[2], partner};
              Value pv =
                  toFloat(b, l, tensor::ExtractOp::create(b, l, x, pIdx), f64);
              Value xv = toFloat(b, l, args[0], f64);
              // (a, b) -> (a*cos - b*sin, a*sin + b*cos).
              Value outA = arith::SubFOp::create(
                  b, l, arith::MulFOp::create(b, l, xv, c),
                  arith::MulFOp::create(b, l, pv, sn));
              Value outB = arith::AddFOp::create(
                  b, l, arith::MulFOp::create(b, l, pv, sn),
                  arith::MulFOp::create(b, l, xv, c));
              Value y = arith::SelectOp::create(
                  b, l, inRot, arith::SelectOp::create(b, l, isA, outA, outB),
                  xv);
              return {roundTo(b, l, y, elem)};
            })
            .getResult(0);
    if (rank3)
      out = tensor::CollapseShapeOp::create(rewriter, loc, *type, out, re);
    rewriter.replaceOp(op, out);
    return success();
  }
};

} // namespace

void populateTopToLinalgReductionPatterns(const TopTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReduceLowering, ArgMaxLowering,
               SoftmaxLowering<top::SoftmaxOp, false>,
               SoftmaxLowering<top::LogSoftmaxOp, true>, BatchNormLowering,
               LayerNormLowering, GroupNormLowering, RMSNormLowering,
               CumulativeLowering, TopKLowering, RotaryEmbeddingLowering>(
      converter, ctx);
}

} // namespace strata::conversion
