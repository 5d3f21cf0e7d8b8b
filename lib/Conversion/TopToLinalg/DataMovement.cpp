//===- DataMovement.cpp - Top reshapes, transposes, slices, pads to linalg ===//
//
// Ops whose data movement is known at compile time: Reshape, Squeeze,
// Unsqueeze (tensor.collapse_shape / expand_shape), Permute
// (linalg.transpose), Concat (a linalg.generic choosing the input with an
// scf.if chain), Split and Slice (a linalg.generic reading `start + step * i`),
// Pad (a linalg.generic with computed, clamped source indices), Tile
// (linalg.broadcast + collapse_shape), Expand (a broadcasting linalg.generic),
// DepthToSpace and SpaceToDepth (expand, transpose, collapse). Windows are
// copied by loops rather than taken as tensor.extract_slice views: each op is
// its own dispatch whose result is materialized anyway, and the loops need no
// strided memref.copy. All shapes are static; runtime shape operands are
// accepted when the result type already fixes everything the lowering needs.
// The ops that read indices from tensors are in DataMovementIndexed.cpp, Resize
// in DataMovementResize.cpp.
//
//===----------------------------------------------------------------------===//

#include "DataMovement.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/Shapes/IndexShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;

namespace strata::conversion {

//===----------------------------------------------------------------------===//
// Shared helpers (DataMovement.h)
//===----------------------------------------------------------------------===//

FailureOr<RankedTensorType>
staticOperandType(Operation *op, Value v, StringRef what,
                  ConversionPatternRewriter &rewriter) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "operand '" + what +
                                               "' is not a static tensor");
  return type;
}

Value reshapeStatic(OpBuilder &b, Location loc, Value input,
                    RankedTensorType resultType) {
  auto srcType = cast<RankedTensorType>(input.getType());
  if (srcType.getShape() == resultType.getShape())
    return input;
  if (srcType.getNumElements() == 0)
    return emptyTensor(b, loc, resultType);
  if (srcType.getRank() > resultType.getRank())
    if (auto r = getReassociationIndicesForCollapse(srcType.getShape(),
                                                    resultType.getShape()))
      return tensor::CollapseShapeOp::create(b, loc, resultType, input, *r);
  if (srcType.getRank() < resultType.getRank())
    if (auto r = getReassociationIndicesForCollapse(resultType.getShape(),
                                                    srcType.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, resultType, input, *r);
  // Dims that do not group (e.g. 2x3 -> 3x2): through a 1-D view. Both
  // ranks are >= 1 here (a rank-0 side always groups above).
  auto flatType = RankedTensorType::get({srcType.getNumElements()},
                                        srcType.getElementType());
  auto all = [](int64_t rank) {
    ReassociationIndices r;
    for (int64_t i = 0; i < rank; ++i)
      r.push_back(i);
    return SmallVector<ReassociationIndices>{r};
  };
  Value flat = input;
  if (srcType.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                           all(srcType.getRank()));
  if (resultType.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       all(resultType.getRank()));
}

Value indexFromInteger(OpBuilder &b, Location loc, Value v, bool isUnsigned) {
  Type indexType = b.getIndexType();
  if (isUnsigned && v.getType().getIntOrFloatBitWidth() < 64)
    return arith::IndexCastUIOp::create(b, loc, indexType, v);
  return arith::IndexCastOp::create(b, loc, indexType, v);
}

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value clampIndex(OpBuilder &b, Location loc, Value i, int64_t lo, int64_t hi) {
  Value r = arith::MaxSIOp::create(b, loc, i, indexConstant(b, loc, lo));
  return arith::MinSIOp::create(b, loc, r, indexConstant(b, loc, hi));
}

Value wrapAndClampIndex(OpBuilder &b, Location loc, Value i, int64_t dim) {
  Value zero = indexConstant(b, loc, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  Value wrapped = arith::AddIOp::create(b, loc, i, indexConstant(b, loc, dim));
  Value r = arith::SelectOp::create(b, loc, negative, wrapped, i);
  return clampIndex(b, loc, r, 0, dim - 1);
}

namespace {

/// `axis` (negative counts from the back) in [0, rank).
int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// A copy of the strided window of `input` starting at `starts` with
/// `steps` into a new tensor of `resultType` (not empty): a linalg.generic
/// reading `start + step * i`. (A tensor.extract_slice would be a view,
/// but a dispatch's result is materialized anyway; the generic is a plain
/// loop nest with no strided copy.)
Value windowCopy(OpBuilder &b, Location loc, Value input,
                 RankedTensorType resultType, ArrayRef<int64_t> starts,
                 ArrayRef<int64_t> steps) {
  int64_t rank = resultType.getRank();
  auto inType = cast<RankedTensorType>(input.getType());
  // The input is read with tensor.extract rather than through an input
  // map: linalg would take a `d0` input map as defining the loop bound.
  SmallVector<AffineMap> maps{
      AffineMap::getMultiDimIdentityMap(rank, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{},
      ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange) {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(nb, l, d);
          // A dim read once needs no step (which may be INT64_MIN).
          int64_t step = resultType.getDimSize(d) == 1 ? 0 : steps[d];
          if (step != 1)
            i = arith::MulIOp::create(nb, l, i, indexConstant(nb, l, step));
          if (starts[d] != 0)
            i = arith::AddIOp::create(nb, l, i,
                                      indexConstant(nb, l, starts[d]));
          // Always inside for the windows of Slice and Split; the clamp
          // keeps the read in bounds by construction.
          if (starts[d] != 0 || step != 1 ||
              resultType.getDimSize(d) != inType.getDimSize(d))
            i = clampIndex(nb, l, i, 0, inType.getDimSize(d) - 1);
          at.push_back(i);
        }
        Value v = tensor::ExtractOp::create(nb, l, input, at);
        linalg::YieldOp::create(nb, l, v);
      });
  return generic.getResult(0);
}

/// Reshape, Squeeze and Unsqueeze: the data is unchanged, only the static
/// result type matters (a runtime shape operand has been resolved into it).
template <typename OpTy>
struct ReshapeLikeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *this->getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    if (failed(inType))
      return failure();
    if (inType->getNumElements() != type->getNumElements())
      return rewriter.notifyMatchFailure(op, "element count changes");
    rewriter.replaceOp(op, reshapeStatic(rewriter, op.getLoc(), input, *type));
    return success();
  }
};

struct PermuteLowering : OpConversionPattern<top::PermuteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::PermuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    if (failed(staticOperandType(op, adaptor.getInput(), "input", rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto transpose = linalg::TransposeOp::create(
        rewriter, loc, adaptor.getInput(), emptyTensor(rewriter, loc, *type),
        op.getOrder());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

/// Concat: a linalg.generic over the result reading each position from
/// the input that covers it (an scf.if chain over the non-empty inputs).
struct ConcatLowering : OpConversionPattern<top::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    int64_t rank = type->getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    if (adaptor.getInputs().size() == 1) {
      rewriter.replaceOp(op, adaptor.getInputs()[0]);
      return success();
    }
    // The non-empty inputs and their offsets along the axis.
    SmallVector<std::pair<Value, int64_t>> parts;
    int64_t at = 0;
    for (Value in : adaptor.getInputs()) {
      auto inType = staticOperandType(op, in, "inputs", rewriter);
      if (failed(inType))
        return failure();
      if (inType->getNumElements() != 0)
        parts.emplace_back(in, at);
      at += inType->getDimSize(axis);
    }
    if (at != type->getDimSize(axis))
      return rewriter.notifyMatchFailure(op, "input sizes do not sum up");
    if (parts.empty()) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    SmallVector<AffineMap> maps{
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{*type}, ValueRange{},
        ValueRange{emptyTensor(rewriter, loc, *type)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> pos;
          for (int64_t d = 0; d < rank; ++d)
            pos.push_back(linalg::IndexOp::create(b, l, d));
          // Part k if the axis position is below its end, else the next.
          std::function<Value(OpBuilder &, Location, size_t)> read =
              [&](OpBuilder &nb, Location nl, size_t k) -> Value {
            auto [in, offset] = parts[k];
            auto read1 = [&, in = in, offset = offset](OpBuilder &ib,
                                                       Location il) {
              SmallVector<Value> at = pos;
              at[axis] = arith::SubIOp::create(ib, il, pos[axis],
                                               indexConstant(ib, il, offset));
              return tensor::ExtractOp::create(ib, il, in, at).getResult();
            };
            if (k + 1 == parts.size())
              return read1(nb, nl);
            Value below = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::slt, pos[axis],
                indexConstant(nb, nl, parts[k + 1].second));
            auto ifOp = scf::IfOp::create(
                nb, nl, below,
                [&](OpBuilder &tb, Location tl) {
                  scf::YieldOp::create(tb, tl, read1(tb, tl));
                },
                [&](OpBuilder &eb, Location el) {
                  scf::YieldOp::create(eb, el, read(eb, el, k + 1));
                });
            return ifOp.getResult(0);
          };
          linalg::YieldOp::create(b, l, read(b, l, 0));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Split: one window copy (linalg.generic) per result, at consecutive
/// offsets.
struct SplitLowering : OpConversionPattern<top::SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    if (failed(inType))
      return failure();
    int64_t rank = inType->getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    SmallVector<RankedTensorType> types;
    int64_t total = 0;
    for (unsigned i = 0; i < op.getNumResults(); ++i) {
      FailureOr<RankedTensorType> type =
          staticResultType(op, i, *getTypeConverter(), rewriter);
      if (failed(type))
        return failure();
      types.push_back(*type);
      total += type->getDimSize(axis);
    }
    if (total != inType->getDimSize(axis))
      return rewriter.notifyMatchFailure(op, "split sizes do not sum to the "
                                             "dim");
    SmallVector<Value> results;
    int64_t at = 0;
    for (RankedTensorType type : types) {
      int64_t size = type.getDimSize(axis);
      SmallVector<int64_t> offsets(rank, 0);
      offsets[axis] = at;
      at += size;
      if (type.getNumElements() == 0) {
        results.push_back(emptyTensor(rewriter, loc, type));
        continue;
      }
      results.push_back(windowCopy(rewriter, loc, input, type, offsets,
                                   SmallVector<int64_t>(rank, 1)));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Slice: the window from the attributes (the interpreter's own
/// top::shapes::sliceWindow), copied by a linalg.generic reading
/// `start + step * i` (negative steps included).
struct SliceLowering : OpConversionPattern<top::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getBoundsValue())
      return rewriter.notifyMatchFailure(
          op, "window given at run time ('bounds_value')");
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    if (failed(inType))
      return failure();
    top::shapes::SliceAttrs attrs{op.getStarts(), op.getEnds(), std::nullopt,
                                  std::nullopt};
    if (auto axes = op.getAxes())
      attrs.axes = *axes;
    if (auto steps = op.getSteps())
      attrs.steps = *steps;
    ShapeOr<top::shapes::SliceWindow> window =
        top::shapes::sliceWindow(inType->getShape(), attrs, nullptr);
    if (!window)
      return rewriter.notifyMatchFailure(op, window.error());
    if (ArrayRef<int64_t>(window->sizes) != type->getShape())
      return rewriter.notifyMatchFailure(op, "window does not match result");
    Location loc = op.getLoc();
    if (type->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    rewriter.replaceOp(op, windowCopy(rewriter, loc, input, *type,
                                      window->starts, window->steps));
    return success();
  }
};

/// Pad's `value` in the element type, converted as the interpreter's
/// Tensor::setFromDouble does: floats through f32 (f64 exactly), integers
/// truncated toward zero and saturated (NaN is 0), i1 is `value != 0`.
TypedAttr padFillAttr(OpBuilder &b, Type elem, double v, bool isUnsigned) {
  if (auto f = dyn_cast<FloatType>(elem)) {
    if (f.getWidth() == 64)
      return b.getFloatAttr(f, v);
    llvm::APFloat x(static_cast<float>(v));
    bool lost;
    x.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return b.getFloatAttr(f, x);
  }
  auto it = cast<IntegerType>(elem);
  unsigned w = it.getWidth();
  if (w == 1)
    return b.getIntegerAttr(elem, v != 0.0 ? 1 : 0);
  llvm::APInt bits;
  if (std::isnan(v)) {
    bits = llvm::APInt(w, 0);
  } else if (isUnsigned) {
    llvm::APInt hi = llvm::APInt::getMaxValue(w);
    double hiD = hi.roundToDouble(/*isSigned=*/false);
    if (v <= 0)
      bits = llvm::APInt(w, 0);
    else if (v >= hiD)
      bits = hi;
    else
      bits = llvm::APInt(w, static_cast<uint64_t>(v));
  } else {
    llvm::APInt lo = llvm::APInt::getSignedMinValue(w);
    llvm::APInt hi = llvm::APInt::getSignedMaxValue(w);
    if (v <= lo.roundToDouble(true))
      bits = lo;
    else if (v >= hi.roundToDouble(true))
      bits = hi;
    else
      bits = llvm::APInt(w, static_cast<uint64_t>(static_cast<int64_t>(v)),
                         /*isSigned=*/true);
  }
  return b.getIntegerAttr(elem, bits);
}

/// Pad: a linalg.generic over the result reading the input at the per-dim
/// source index of `o - begin` (the interpreter's padSource), clamped into
/// the dim. Constant mode selects the value where a source index is outside
/// its dim (negative pads crop); reflect, edge and wrap map it inside.
struct PadLowering : OpConversionPattern<top::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getPadsValue())
      return rewriter.notifyMatchFailure(
          op, "pads given at run time ('pads_value')");
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    if (failed(inType))
      return failure();
    int64_t rank = inType->getRank();
    ArrayRef<int64_t> pads = op.getPads();
    if (static_cast<int64_t>(pads.size()) != 2 * rank)
      return rewriter.notifyMatchFailure(op, "'pads' is not 2 * rank long");
    Location loc = op.getLoc();
    if (type->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    top::PadMode mode = op.getMode();
    if (mode == top::PadMode::Constant) {
      Type elem = type->getElementType();
      Value fill = arith::ConstantOp::create(
          rewriter, loc,
          padFillAttr(rewriter, elem, op.getValue().convertToDouble(),
                      isUnsignedElement(op.getInput())));
      if (inType->getNumElements() == 0) {
        rewriter.replaceOp(
            op, linalg::FillOp::create(rewriter, loc, fill,
                                       emptyTensor(rewriter, loc, *type))
                    .getResult(0));
        return success();
      }
      // Position `o` reads input `o - begin` when that is inside every dim
      // (the index is clamped so that the read is always in bounds), else
      // the value.
      SmallVector<AffineMap> maps{
          AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())};
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::parallel);
      auto generic = linalg::GenericOp::create(
          rewriter, loc, TypeRange{*type}, ValueRange{},
          ValueRange{emptyTensor(rewriter, loc, *type)}, maps, iterators,
          [&](OpBuilder &b, Location l, ValueRange) {
            SmallVector<Value> src;
            Value inside;
            for (int64_t d = 0; d < rank; ++d) {
              int64_t size = inType->getDimSize(d);
              Value o = linalg::IndexOp::create(b, l, d);
              if (pads[d] == 0 && pads[rank + d] == 0) { // not padded
                src.push_back(o);
                continue;
              }
              Value i =
                  arith::SubIOp::create(b, l, o, indexConstant(b, l, pads[d]));
              Value in = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                               i, indexConstant(b, l, size));
              inside = inside ? arith::AndIOp::create(b, l, inside, in) : in;
              src.push_back(clampIndex(b, l, i, 0, size - 1));
            }
            Value v = tensor::ExtractOp::create(b, l, input, src);
            if (inside)
              v = arith::SelectOp::create(b, l, inside, v, fill);
            linalg::YieldOp::create(b, l, v);
          });
      rewriter.replaceOp(op, generic.getResult(0));
      return success();
    }
    for (int64_t d = 0; d < rank; ++d)
      if (inType->getDimSize(d) == 0)
        return rewriter.notifyMatchFailure(op, "pads an empty dim");
    SmallVector<AffineMap> maps{
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{*type}, ValueRange{},
        ValueRange{emptyTensor(rewriter, loc, *type)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> src;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t size = inType->getDimSize(d);
            Value o = linalg::IndexOp::create(b, l, d);
            if (pads[d] == 0 && pads[rank + d] == 0) { // not padded
              src.push_back(o);
              continue;
            }
            Value i =
                arith::SubIOp::create(b, l, o, indexConstant(b, l, pads[d]));
            Value zero = indexConstant(b, l, 0);
            Value last = indexConstant(b, l, size - 1);
            Value s;
            if (mode == top::PadMode::Edge) {
              s = i;
            } else if (mode == top::PadMode::Reflect) {
              // i < 0: -i; i >= size: 2 * (size - 1) - i.
              Value neg = arith::SubIOp::create(b, l, zero, i);
              Value high = arith::SubIOp::create(
                  b, l, indexConstant(b, l, 2 * (size - 1)), i);
              Value isNeg = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::slt, i, zero);
              Value isHigh = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::sgt, i, last);
              s = arith::SelectOp::create(
                  b, l, isNeg, neg,
                  arith::SelectOp::create(b, l, isHigh, high, i));
            } else { // Wrap: ((i % size) + size) % size.
              Value n = indexConstant(b, l, size);
              Value r = arith::RemSIOp::create(b, l, i, n);
              s = arith::RemSIOp::create(b, l,
                                         arith::AddIOp::create(b, l, r, n), n);
            }
            src.push_back(clampIndex(b, l, s, 0, size - 1));
          }
          Value v = tensor::ExtractOp::create(b, l, input, src);
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Tile: the input broadcast to `[r_0, d_0, r_1, d_1, ...]`, then each
/// `(r_i, d_i)` pair collapsed. Needs only the static result type, so a
/// runtime `repeats_value` is fine.
struct TileLowering : OpConversionPattern<top::TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    if (failed(inType))
      return failure();
    int64_t rank = inType->getRank();
    Location loc = op.getLoc();
    if (type->getNumElements() == 0 || inType->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    SmallVector<int64_t> wide, added;
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t dim = inType->getDimSize(d);
      if (type->getDimSize(d) % dim != 0)
        return rewriter.notifyMatchFailure(op, "result dim is not a multiple");
      added.push_back(2 * d);
      wide.push_back(type->getDimSize(d) / dim);
      wide.push_back(dim);
      groups.push_back({2 * d, 2 * d + 1});
    }
    auto wideType = RankedTensorType::get(wide, type->getElementType());
    Value b =
        linalg::BroadcastOp::create(rewriter, loc, input,
                                    emptyTensor(rewriter, loc, wideType), added)
            .getResult()[0];
    rewriter.replaceOp(
        op, tensor::CollapseShapeOp::create(rewriter, loc, *type, b, groups)
                .getResult());
    return success();
  }
};

/// Expand: a linalg.generic with numpy broadcasting (size-1 dims read at 0).
struct ExpandLowering : OpConversionPattern<top::ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    if (failed(inType))
      return failure();
    int64_t offset = type->getRank() - inType->getRank();
    if (offset < 0)
      return rewriter.notifyMatchFailure(op, "result rank below input rank");
    for (int64_t d = 0; d < inType->getRank(); ++d) {
      int64_t in = inType->getDimSize(d), out = type->getDimSize(d + offset);
      if (in != out && in != 1)
        return rewriter.notifyMatchFailure(op, "shapes do not broadcast");
    }
    Location loc = op.getLoc();
    if (type->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    rewriter.replaceOp(op,
                       buildElementwise(rewriter, loc, *type, {input},
                                        [](OpBuilder &, Location, ValueRange xs,
                                           Type) { return xs[0]; }));
    return success();
  }
};

/// `input` expanded to `wide`, transposed by `perm`, collapsed to
/// `resultType` (DepthToSpace, SpaceToDepth).
Value blockShuffle(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> wide, ArrayRef<int64_t> perm,
                   RankedTensorType resultType) {
  Type elem = resultType.getElementType();
  Value x = reshapeStatic(b, loc, input, RankedTensorType::get(wide, elem));
  SmallVector<int64_t> permuted;
  for (int64_t p : perm)
    permuted.push_back(wide[p]);
  Value t =
      linalg::TransposeOp::create(
          b, loc, x, emptyTensor(b, loc, RankedTensorType::get(permuted, elem)),
          perm)
          .getResult()[0];
  return reshapeStatic(b, loc, t, resultType);
}

/// The `wide` shape and `perm` of DepthToSpace's blockShuffle for input
/// shape `s` and block size `b`.
void depthToSpacePlan(top::DepthToSpaceOp op, ArrayRef<int64_t> s, int64_t b,
                      SmallVectorImpl<int64_t> &wide,
                      SmallVectorImpl<int64_t> &perm) {
  bool nhwc = op.getLayout() == top::Layout::NHWC;
  bool dcr = op.getMode() == top::DepthToSpaceMode::DCR;
  int64_t c = (nhwc ? s[3] : s[1]) / (b * b);
  if (!nhwc) { // N C H W
    if (dcr) {
      wide.assign({s[0], b, b, c, s[2], s[3]});
      perm.assign({0, 3, 4, 1, 5, 2});
    } else {
      wide.assign({s[0], c, b, b, s[2], s[3]});
      perm.assign({0, 1, 4, 2, 5, 3});
    }
  } else { // N H W C
    if (dcr) {
      wide.assign({s[0], s[1], s[2], b, b, c});
      perm.assign({0, 1, 3, 2, 4, 5});
    } else {
      wide.assign({s[0], s[1], s[2], c, b, b});
      perm.assign({0, 1, 4, 2, 5, 3});
    }
  }
}

/// The same for SpaceToDepth.
void spaceToDepthPlan(top::SpaceToDepthOp op, ArrayRef<int64_t> s, int64_t b,
                      SmallVectorImpl<int64_t> &wide,
                      SmallVectorImpl<int64_t> &perm) {
  if (op.getLayout() != top::Layout::NHWC) { // N C H W
    wide.assign({s[0], s[1], s[2] / b, b, s[3] / b, b});
    perm.assign({0, 3, 5, 1, 2, 4});
  } else { // N H W C
    wide.assign({s[0], s[1] / b, b, s[2] / b, b, s[3]});
    perm.assign({0, 1, 3, 2, 4, 5});
  }
}

/// DepthToSpace and SpaceToDepth (rank 4, blocksize >= 1): a blockShuffle
/// whose shapes `Plan` gives.
template <typename OpTy,
          void (*Plan)(OpTy, ArrayRef<int64_t>, int64_t,
                       SmallVectorImpl<int64_t> &, SmallVectorImpl<int64_t> &)>
struct BlockShuffleLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *this->getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    if (failed(inType))
      return failure();
    int64_t b = op.getBlocksize();
    if (inType->getRank() != 4 || b < 1)
      return rewriter.notifyMatchFailure(op, "needs rank 4 and blocksize >= 1");
    Location loc = op.getLoc();
    if (type->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    SmallVector<int64_t> wide, perm;
    Plan(op, inType->getShape(), b, wide, perm);
    rewriter.replaceOp(op,
                       blockShuffle(rewriter, loc, input, wide, perm, *type));
    return success();
  }
};

using DepthToSpaceLowering =
    BlockShuffleLowering<top::DepthToSpaceOp, depthToSpacePlan>;
using SpaceToDepthLowering =
    BlockShuffleLowering<top::SpaceToDepthOp, spaceToDepthPlan>;

} // namespace

void populateTopToLinalgDataMovementPatterns(const TopTypeConverter &converter,
                                             RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      ReshapeLikeLowering<top::ReshapeOp>, ReshapeLikeLowering<top::SqueezeOp>,
      ReshapeLikeLowering<top::UnsqueezeOp>, PermuteLowering, ConcatLowering,
      SplitLowering, SliceLowering, PadLowering, TileLowering, ExpandLowering,
      DepthToSpaceLowering, SpaceToDepthLowering>(converter, ctx);
  populateTopToLinalgResizePatterns(converter, patterns);
}

} // namespace strata::conversion
