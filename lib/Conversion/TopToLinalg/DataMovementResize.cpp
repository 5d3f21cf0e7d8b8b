//===- DataMovementResize.cpp - top.Resize to linalg ----------------------===//
//
// Resize is separable and its sampling depends only on static shapes and
// attributes, so each resized dim's filter (for every output position: the
// input indices and weights of its taps, or "extrapolate") is computed at
// compile time by the interpreter's own code (resizeFilters in
// lib/Dialect/Top/Shapes/ResizeShapes.cpp) and embedded as constant tables. The
// data is converted to f64 once; each resized dim is one linalg.generic summing
// `weight * input[index]` over the taps in order (zero weights skipped, as the
// interpreter does); the result is converted back as Tensor::castTo does
// (floats through f32, integers truncated and saturated, NaN to 0).
//
//===----------------------------------------------------------------------===//

#include "DataMovement.h"

#include "strata/Dialect/Top/IR/ResizeAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;

namespace strata::conversion {
namespace {

using top::CoordinateMode;

//===----------------------------------------------------------------------===//
// Code generation
//===----------------------------------------------------------------------===//

/// `x` (a scalar of the input's element type) as f64, as getAsDouble reads
/// it.
Value toF64(OpBuilder &b, Location l, Value x, bool isUnsigned) {
  Type f64 = b.getF64Type();
  Type t = x.getType();
  if (t == f64)
    return x;
  if (isa<FloatType>(t))
    return arith::ExtFOp::create(b, l, f64, x);
  if (isUnsigned || t.isInteger(1))
    return arith::UIToFPOp::create(b, l, f64, x);
  return arith::SIToFPOp::create(b, l, f64, x);
}

/// f64 `v` in element type `t`, as Tensor::setFromDouble converts it.
Value fromF64(OpBuilder &b, Location l, Value v, Type t, bool isUnsigned) {
  if (t == v.getType())
    return v;
  if (auto ft = dyn_cast<FloatType>(t)) {
    Value f = arith::TruncFOp::create(b, l, b.getF32Type(), v);
    if (ft.getWidth() == 32)
      return f;
    return arith::TruncFOp::create(b, l, t, f);
  }
  auto it = cast<IntegerType>(t);
  Value zeroF = arith::ConstantOp::create(b, l, b.getF64FloatAttr(0.0));
  if (it.getWidth() == 1)
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, v, zeroF);
  unsigned w = it.getWidth();
  llvm::APInt lo = isUnsigned ? llvm::APInt::getMinValue(w)
                              : llvm::APInt::getSignedMinValue(w);
  llvm::APInt hi = isUnsigned ? llvm::APInt::getMaxValue(w)
                              : llvm::APInt::getSignedMaxValue(w);
  Value loF = arith::ConstantOp::create(
      b, l, b.getF64FloatAttr(lo.roundToDouble(!isUnsigned)));
  Value hiF = arith::ConstantOp::create(
      b, l, b.getF64FloatAttr(hi.roundToDouble(!isUnsigned)));
  Value loI = arith::ConstantOp::create(b, l, b.getIntegerAttr(t, lo));
  Value hiI = arith::ConstantOp::create(b, l, b.getIntegerAttr(t, hi));
  Value zeroI = arith::ConstantOp::create(b, l, b.getIntegerAttr(t, 0));
  Value isNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, v, v);
  Value atLo = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, v, loF);
  Value atHi = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, v, hiF);
  Value outside =
      arith::OrIOp::create(b, l, isNan, arith::OrIOp::create(b, l, atLo, atHi));
  Value safe = arith::SelectOp::create(b, l, outside, zeroF, v);
  Value c = isUnsigned ? arith::FPToUIOp::create(b, l, t, safe).getResult()
                       : arith::FPToSIOp::create(b, l, t, safe).getResult();
  c = arith::SelectOp::create(b, l, atLo, loI, c);
  c = arith::SelectOp::create(b, l, atHi, hiI, c);
  return arith::SelectOp::create(b, l, isNan, zeroI, c);
}

/// Resamples dim `d` of the f64 tensor `data` with `f` into `outType`.
Value resampleDim(OpBuilder &b, Location loc, Value data, int64_t d,
                  const top::shapes::ResizeDimFilter &f,
                  RankedTensorType outType, double extrapolation) {
  int64_t rank = outType.getRank(), out = outType.getDimSize(d);
  auto idxType = RankedTensorType::get({out, f.taps}, b.getI64Type());
  auto wType = RankedTensorType::get({out, f.taps}, b.getF64Type());
  Value indexTable = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(idxType, ArrayRef<int64_t>(f.index)));
  Value weightTable = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(wType, ArrayRef<double>(f.weight)));
  bool anyExtrapolate = llvm::is_contained(f.extrapolate, true);
  Value extrapolateTable;
  if (anyExtrapolate) {
    SmallVector<bool> flags(f.extrapolate.begin(), f.extrapolate.end());
    extrapolateTable = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({out}, b.getI1Type()),
                               ArrayRef<bool>(flags)));
  }
  SmallVector<AffineMap> maps{
      AffineMap::getMultiDimIdentityMap(rank, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{outType}, ValueRange{},
      ValueRange{emptyTensor(b, loc, outType)}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange) {
        SmallVector<Value> at;
        for (int64_t i = 0; i < rank; ++i)
          at.push_back(linalg::IndexOp::create(nb, l, i));
        Value x = at[d];
        Value zero = arith::ConstantOp::create(nb, l, nb.getF64FloatAttr(0.0));
        Value acc = zero;
        for (int64_t k = 0; k < f.taps; ++k) {
          Value kc = indexConstant(nb, l, k);
          Value w =
              tensor::ExtractOp::create(nb, l, weightTable, ValueRange{x, kc});
          Value i =
              tensor::ExtractOp::create(nb, l, indexTable, ValueRange{x, kc});
          SmallVector<Value> src = at;
          src[d] = arith::IndexCastOp::create(nb, l, nb.getIndexType(), i);
          Value a = tensor::ExtractOp::create(nb, l, data, src);
          Value sum = arith::AddFOp::create(nb, l, acc,
                                            arith::MulFOp::create(nb, l, w, a));
          Value skip =
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, w, zero);
          acc = arith::SelectOp::create(nb, l, skip, acc, sum);
        }
        if (anyExtrapolate) {
          Value e =
              tensor::ExtractOp::create(nb, l, extrapolateTable, ValueRange{x});
          Value ev = arith::ConstantOp::create(
              nb, l, nb.getF64FloatAttr(extrapolation));
          acc = arith::SelectOp::create(nb, l, e, ev, acc);
        }
        linalg::YieldOp::create(nb, l, acc);
      });
  return generic.getResult(0);
}

struct ResizeLowering : OpConversionPattern<top::ResizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value input = adaptor.getInput();
    auto inType = staticOperandType(op, input, "input", rewriter);
    if (failed(inType))
      return failure();
    if (Value target = op.getTargetValue())
      if (isa<FloatType>(getElementTypeOrSelf(target.getType())))
        return rewriter.notifyMatchFailure(
            op, "scales given at run time ('target_value')");
    int64_t rank = inType->getRank();
    if (rank != type->getRank())
      return rewriter.notifyMatchFailure(op, "rank changes");
    Location loc = op.getLoc();
    if (type->getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, *type));
      return success();
    }
    top::shapes::ResizeAttrs attrs = top::resizeAttrs(op);
    std::vector<double> given = top::shapes::resizeGivenScales(attrs, nullptr);
    if (op.getTargetValue())
      given.clear(); // integer sizes: the scales are out / in
    std::vector<double> scales = top::shapes::resizeCoordinateScales(
        attrs, inType->getShape(), type->getShape(), given);
    if (static_cast<int64_t>(scales.size()) != rank)
      return rewriter.notifyMatchFailure(op, "scales of the wrong length");
    std::optional<ArrayRef<double>> roi = op.getRoi();
    if (op.getCoordinateTransformationMode() ==
            CoordinateMode::TfCropAndResize &&
        (!roi || static_cast<int64_t>(roi->size()) != 2 * rank))
      return rewriter.notifyMatchFailure(op, "tf_crop_and_resize needs 'roi'");

    // Plan every resized dim before creating any op.
    std::vector<top::shapes::ResizeDimFilter> plan = top::shapes::resizeFilters(
        attrs, inType->getShape(), type->getShape(), scales);

    bool isUnsigned = isUnsignedElement(op.getInput());
    bool outUnsigned = isUnsignedElement(op.getOutput());
    SmallVector<int64_t> shape(inType->getShape());
    auto f64Type = RankedTensorType::get(shape, rewriter.getF64Type());
    Value data =
        buildElementwise(rewriter, loc, f64Type, {input},
                         [&](OpBuilder &b, Location l, ValueRange xs, Type) {
                           return toF64(b, l, xs[0], isUnsigned);
                         });
    double extrapolation = op.getExtrapolationValue().convertToDouble();
    for (const top::shapes::ResizeDimFilter &filter : plan) {
      int64_t d = filter.dim;
      shape[d] = type->getDimSize(d);
      data = resampleDim(rewriter, loc, data, d, filter,
                         RankedTensorType::get(shape, rewriter.getF64Type()),
                         extrapolation);
    }
    Value r = buildElementwise(
        rewriter, loc, *type, {data},
        [&](OpBuilder &b, Location l, ValueRange xs, Type elem) {
          return fromF64(b, l, xs[0], elem, outUnsigned);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateTopToLinalgResizePatterns(const TopTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(converter, patterns.getContext());
}

} // namespace strata::conversion
