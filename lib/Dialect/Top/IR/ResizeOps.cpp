//===- ResizeOps.cpp - top.Resize, top.DepthToSpace, top.SpaceToDepth -----===//

#include "OpImpl.h"
#include "strata/Dialect/Top/IR/ResizeAttrs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

shapes::ResizeAttrs strata::top::resizeAttrs(ResizeOp op) {
  auto doubles = [](std::optional<ArrayRef<double>> v) {
    return v ? std::optional(std::vector<double>(v->begin(), v->end()))
             : std::nullopt;
  };
  shapes::ResizeAttrs a;
  a.mode = stringifyInterpolation(op.getMode()).str();
  a.coordinateTransformationMode =
      stringifyCoordinateMode(op.getCoordinateTransformationMode()).str();
  a.nearestMode = stringifyNearestMode(op.getNearestMode()).str();
  a.cubicCoeffA = op.getCubicCoeffA().convertToDouble();
  a.extrapolationValue = op.getExtrapolationValue().convertToDouble();
  a.antialias = op.getAntialias();
  a.excludeOutside = op.getExcludeOutside();
  a.scales = doubles(op.getScales());
  a.roi = doubles(op.getRoi());
  a.coordinateScales = doubles(op.getCoordinateScales());
  a.sizes = optionalInts(op.getSizes());
  return a;
}

namespace {
/// Resamples dim `d` of the row-major `data` of `shape` with `f`.
std::vector<double> resampleDim(const std::vector<double> &data,
                                SmallVectorImpl<int64_t> &shape, size_t d,
                                const shapes::ResizeDimFilter &f,
                                double extrapolation) {
  int64_t outer = 1, inner = 1, in = shape[d];
  int64_t out = static_cast<int64_t>(f.extrapolate.size());
  for (size_t i = 0; i < d; ++i)
    outer *= shape[i];
  for (size_t i = d + 1; i < shape.size(); ++i)
    inner *= shape[i];
  std::vector<double> res(static_cast<size_t>(outer * out * inner), 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t x = 0; x < out; ++x) {
      double *y = res.data() + (o * out + x) * inner;
      if (f.extrapolate[x]) {
        std::fill(y, y + inner, extrapolation);
        continue;
      }
      for (int64_t k = 0; k < f.taps; ++k) {
        double w = f.weight[x * f.taps + k];
        if (w == 0.0)
          continue;
        const double *a = data.data() + (o * in + f.index[x * f.taps + k]) *
                                            inner;
        for (int64_t i = 0; i < inner; ++i)
          y[i] += w * a[i];
      }
    }
  shape[d] = out;
  return res;
}

/// Copies elements of `elem` bytes: out[i] = in[src(i)] for every flat i of
/// the `N x C x H x W` output.
template <typename SrcFn>
void permuteCopy(const Tensor &in, Tensor &out, SrcFn src) {
  size_t elem = dtypeSize(in.dtype());
  const char *ip = static_cast<const char *>(in.raw());
  char *op = static_cast<char *>(out.raw());
  int64_t n = out.dim(0), c = out.dim(1), h = out.dim(2), w = out.dim(3);
  int64_t i = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x, ++i)
          std::memcpy(op + i * elem, ip + src(b, ch, y, x) * elem, elem);
}
} // namespace

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  std::optional<shapes::ResizeTarget> target;
  if (Value t = getTargetValue()) {
    FailureOr<int64_t> n = runtimeListLength(*this, "target_value", t);
    if (failed(n))
      return failure();
    target = shapes::ResizeTarget{*n, ctx.tensor(t)};
  }
  return appendShape(
      *this,
      shapes::inferResize(ctx.shape(getInput()), resizeAttrs(*this), target),
      s);
}

/// Per resized dim and output element: 2 flops per tap (linear 2 taps,
/// cubic 4; antialias widens the kernel by 1 / scale); nearest: none.
int64_t ResizeOp::getFlops() {
  auto t = cast<ShapedType>(getOutput().getType());
  if (!t.hasStaticShape() || getMode() == Interpolation::Nearest)
    return 0;
  int64_t taps = getMode() == Interpolation::Cubic ? 4 : 2;
  return 2 * taps * t.getRank() * t.getNumElements();
}

LogicalResult ResizeOp::interpret(InterpreterEnv &env) {
  const Tensor &raw = env.get(getInput());
  SmallVector<int64_t> shape(raw.shape().begin(), raw.shape().end());
  shapes::ResizeAttrs attrs = resizeAttrs(*this);
  Value target = getTargetValue();
  std::vector<double> given =
      shapes::resizeGivenScales(attrs, target ? &env.get(target) : nullptr);
  std::vector<int64_t> outShape = env.resultShape(getOutput());
  std::vector<double> scales =
      shapes::resizeCoordinateScales(attrs, raw.shape(), outShape, given);
  std::vector<double> data(static_cast<size_t>(raw.numElements()));
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = raw.getAsDouble(static_cast<int64_t>(i));
  double extrapolation = getExtrapolationValue().convertToDouble();
  for (const shapes::ResizeDimFilter &f :
       shapes::resizeFilters(attrs, raw.shape(), outShape, scales))
    data =
        resampleDim(data, shape, static_cast<size_t>(f.dim), f, extrapolation);
  Tensor result(DType::F64, outShape);
  std::copy(data.begin(), data.end(), result.data<double>());
  env.set(getOutput(), result.castTo(resultDType(getOutput())));
  return success();
}

OpFoldResult ResizeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  if (!type || !type.hasStaticShape() || type != getOutput().getType())
    return {};
  // Same shape: identity unless a `scales` entry other than 1 shifts the
  // sampling grid.
  auto notOne = [](double v) { return v != 1.0; };
  if (!getSizes() && getScales() && llvm::any_of(*getScales(), notOne))
    return {};
  if (getCoordinateScales() && llvm::any_of(*getCoordinateScales(), notOne))
    return {};
  if (getCoordinateTransformationMode() == CoordinateMode::TfCropAndResize)
    return {};
  return getInput();
}

//===----------------------------------------------------------------------===//
// DepthToSpaceOp
//===----------------------------------------------------------------------===//

LogicalResult
DepthToSpaceOp::inferShapes(const ShapeContext &ctx,
                            SmallVectorImpl<SmallVector<int64_t>> &s) {
  bool channelsLast = getLayout() == Layout::NHWC;
  return appendShape(*this,
                     shapes::inferDepthToSpace(ctx.shape(getInput()),
                                               getBlocksize(),
                                               stringifyDepthToSpaceMode(getMode()).str(),
                                               channelsLast),
                     s);
}

int64_t DepthToSpaceOp::getFlops() { return 0; }

LogicalResult DepthToSpaceOp::interpret(InterpreterEnv &env) {
  // NHWC runs as NCHW between two transposes.
  bool channelsLast = getLayout() == Layout::NHWC;
  Tensor in = toChannelsFirst(env.get(getInput()), channelsLast);
  SmallVector<int64_t> outDims =
      toChannelsFirst(env.resultShape(getOutput()), channelsLast);
  Tensor out(in.dtype(), std::vector<int64_t>(outDims.begin(), outDims.end()));
  int64_t b = getBlocksize(), c = out.dim(1), ci = in.dim(1), h = in.dim(2),
          w = in.dim(3);
  bool dcr = getMode() == DepthToSpaceMode::DCR;
  permuteCopy(in, out, [&](int64_t n, int64_t ch, int64_t y, int64_t x) {
    int64_t by = y % b, bx = x % b;
    int64_t src = dcr ? (by * b + bx) * c + ch : ch * b * b + by * b + bx;
    return ((n * ci + src) * h + y / b) * w + x / b;
  });
  env.set(getOutput(), fromChannelsFirst(out, channelsLast)
                           .castTo(resultDType(getOutput())));
  return success();
}

OpFoldResult DepthToSpaceOp::fold(FoldAdaptor) {
  if (getBlocksize() == 1 && getInput().getType() == getOutput().getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// SpaceToDepthOp
//===----------------------------------------------------------------------===//

LogicalResult
SpaceToDepthOp::inferShapes(const ShapeContext &ctx,
                            SmallVectorImpl<SmallVector<int64_t>> &s) {
  bool channelsLast = getLayout() == Layout::NHWC;
  return appendShape(*this,
                     shapes::inferSpaceToDepth(ctx.shape(getInput()),
                                               getBlocksize(), channelsLast),
                     s);
}

int64_t SpaceToDepthOp::getFlops() { return 0; }

LogicalResult SpaceToDepthOp::interpret(InterpreterEnv &env) {
  // NHWC runs as NCHW between two transposes.
  bool channelsLast = getLayout() == Layout::NHWC;
  Tensor in = toChannelsFirst(env.get(getInput()), channelsLast);
  SmallVector<int64_t> outDims =
      toChannelsFirst(env.resultShape(getOutput()), channelsLast);
  Tensor out(in.dtype(), std::vector<int64_t>(outDims.begin(), outDims.end()));
  int64_t b = getBlocksize(), ci = in.dim(1), hi = in.dim(2), wi = in.dim(3);
  permuteCopy(in, out, [&](int64_t n, int64_t ch, int64_t y, int64_t x) {
    int64_t blk = ch / ci, c = ch % ci;
    return ((n * ci + c) * hi + y * b + blk / b) * wi + x * b + blk % b;
  });
  env.set(getOutput(), fromChannelsFirst(out, channelsLast)
                           .castTo(resultDType(getOutput())));
  return success();
}

OpFoldResult SpaceToDepthOp::fold(FoldAdaptor) {
  if (getBlocksize() == 1 && getInput().getType() == getOutput().getType())
    return getInput();
  return {};
}
