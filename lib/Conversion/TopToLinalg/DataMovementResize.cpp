//===- DataMovementResize.cpp - top.Resize to linalg ----------------------===//
//
// Resize is separable and its sampling depends only on static shapes and
// attributes, so each resized dim's filter (for every output position: the
// input indices and weights of its taps, or "extrapolate") is computed at
// compile time exactly as the interpreter computes it (a copy of
// lib/Dialect/Top/IR/ResizeOps.cpp's buildFilter) and embedded as constant
// tables. The data is converted to f64 once; each resized dim is one
// linalg.generic summing `weight * input[index]` over the taps in order
// (zero weights skipped, as the interpreter does); the result is converted
// back as Tensor::castTo does (floats through f32, integers truncated and
// saturated, NaN to 0).
//
//===----------------------------------------------------------------------===//

#include "DataMovement.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/Shapes/ResizeShapes.h"

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
using top::Interpolation;
using top::NearestMode;

//===----------------------------------------------------------------------===//
// The interpreter's filter construction (keep in sync with ResizeOps.cpp)
//===----------------------------------------------------------------------===//

struct DimFilter {
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<bool> extrapolate;
};

struct DimMapping {
  CoordinateMode mode;
  double scale;
  int64_t in, out;
  double roiStart = 0.0, roiEnd = 1.0;
};

std::optional<double> sourceCoord(const DimMapping &m, int64_t x) {
  double xd = static_cast<double>(x), in = static_cast<double>(m.in);
  double len = m.scale * in;
  switch (m.mode) {
  case CoordinateMode::Asymmetric:
    return xd / m.scale;
  case CoordinateMode::AlignCorners:
    return len == 1.0 ? 0.0 : xd * (in - 1) / (len - 1);
  case CoordinateMode::PytorchHalfPixel:
    return len == 1.0 ? -0.5 : (xd + 0.5) / m.scale - 0.5;
  case CoordinateMode::HalfPixelSymmetric: {
    double offset = in / 2 * (1 - static_cast<double>(m.out) / len);
    return offset + (xd + 0.5) / m.scale - 0.5;
  }
  case CoordinateMode::TfCropAndResize: {
    double span = (m.roiEnd - m.roiStart) * (in - 1);
    double r = len == 1.0 ? span / 2 : xd * span / (len - 1);
    r += m.roiStart * (in - 1);
    if (r < 0 || r > in - 1)
      return std::nullopt;
    return r;
  }
  case CoordinateMode::HalfPixel:
    break;
  }
  return (xd + 0.5) / m.scale - 0.5;
}

double cubicKernel(double x, double a) {
  x = std::abs(x);
  if (x <= 1)
    return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2)
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0.0;
}

void tapWeights(top::ResizeOp op, double r, double scale, int64_t &first,
                SmallVectorImpl<double> &w) {
  Interpolation mode = op.getMode();
  w.clear();
  if (mode == Interpolation::Nearest) {
    NearestMode nm = op.getNearestMode();
    bool up;
    if (r == 1.0 || nm == NearestMode::Ceil)
      up = true;
    else if (nm == NearestMode::Floor)
      up = false;
    else if (nm == NearestMode::RoundPreferCeil)
      up = r >= 0.5;
    else
      up = r > 0.5;
    first = 0;
    w.assign({up ? 0.0 : 1.0, up ? 1.0 : 0.0});
    return;
  }
  double a = op.getCubicCoeffA().convertToDouble();
  bool cubic = mode == Interpolation::Cubic;
  if (!op.getAntialias()) {
    if (cubic) {
      first = -1;
      for (int k = -1; k <= 2; ++k)
        w.push_back(cubicKernel(static_cast<double>(k) - r, a));
    } else {
      first = 0;
      w.assign({1.0 - r, r});
    }
    return;
  }
  double s = std::min(scale, 1.0);
  double support = cubic ? 2.0 : 1.0;
  first = static_cast<int64_t>(std::floor(-support / s)) + 1;
  double sum = 0.0;
  for (int64_t k = first; k <= 1 - first; ++k) {
    double t = s * (static_cast<double>(k) - r);
    double v = cubic ? cubicKernel(t, a) : std::max(0.0, 1.0 - std::abs(t));
    w.push_back(v);
    sum += v;
  }
  if (sum != 0.0)
    for (double &v : w)
      v /= sum;
}

DimFilter buildFilter(top::ResizeOp op, const DimMapping &m) {
  DimFilter f;
  SmallVector<double> w;
  for (int64_t x = 0; x < m.out; ++x) {
    std::optional<double> src = sourceCoord(m, x);
    f.extrapolate.push_back(!src);
    double pos = std::clamp(src.value_or(0.0), -1.0e15, 1.0e15);
    double base = std::floor(pos), r = pos - base;
    if (r == 0.0) {
      base -= 1.0;
      r = 1.0;
    }
    int64_t first;
    tapWeights(op, r, m.scale, first, w);
    f.taps = static_cast<int64_t>(w.size());
    int64_t b = static_cast<int64_t>(base);
    if (op.getExcludeOutside()) {
      double sum = 0.0;
      for (auto [k, v] : llvm::enumerate(w)) {
        int64_t i = b + first + static_cast<int64_t>(k);
        if (i < 0 || i >= m.in)
          v = 0.0;
        sum += v;
      }
      if (sum != 0.0)
        for (double &v : w)
          v /= sum;
    }
    for (auto [k, v] : llvm::enumerate(w)) {
      int64_t i = b + first + static_cast<int64_t>(k);
      f.index.push_back(std::clamp<int64_t>(i, 0, m.in - 1));
      f.weight.push_back(v);
    }
  }
  return f;
}

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
                  const DimFilter &f, RankedTensorType outType,
                  double extrapolation) {
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
    top::shapes::ResizeAttrs attrs;
    auto doubles = [](std::optional<ArrayRef<double>> v) {
      return v ? std::optional(std::vector<double>(v->begin(), v->end()))
               : std::nullopt;
    };
    attrs.scales = doubles(op.getScales());
    attrs.coordinateScales = doubles(op.getCoordinateScales());
    std::optional<ArrayRef<int64_t>> sizes = op.getSizes();
    if (sizes)
      attrs.sizes = Ints(sizes->data(), sizes->size());
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
    SmallVector<int64_t> shape(inType->getShape());
    SmallVector<std::pair<int64_t, DimFilter>> plan;
    for (int64_t d = 0; d < rank; ++d) {
      DimMapping m{op.getCoordinateTransformationMode(), scales[d], shape[d],
                   type->getDimSize(d)};
      if (roi && static_cast<int64_t>(roi->size()) == 2 * rank) {
        m.roiStart = (*roi)[d];
        m.roiEnd = (*roi)[rank + d];
      }
      bool fullRoi = m.mode != CoordinateMode::TfCropAndResize ||
                     (m.roiStart == 0.0 && m.roiEnd == 1.0);
      if ((m.in == m.out && m.scale == 1.0 && fullRoi) || m.in == 0)
        continue;
      plan.emplace_back(d, buildFilter(op, m));
      shape[d] = m.out;
    }
    if (ArrayRef<int64_t>(shape) != type->getShape())
      return rewriter.notifyMatchFailure(op, "resampled shape differs");

    bool isUnsigned = isUnsignedElement(op.getInput());
    bool outUnsigned = isUnsignedElement(op.getOutput());
    shape.assign(inType->getShape().begin(), inType->getShape().end());
    auto f64Type = RankedTensorType::get(shape, rewriter.getF64Type());
    Value data =
        buildElementwise(rewriter, loc, f64Type, {input},
                         [&](OpBuilder &b, Location l, ValueRange xs, Type) {
                           return toF64(b, l, xs[0], isUnsigned);
                         });
    double extrapolation = op.getExtrapolationValue().convertToDouble();
    for (auto &[d, filter] : plan) {
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
