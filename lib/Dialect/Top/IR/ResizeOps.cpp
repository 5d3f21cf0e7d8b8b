//===- ResizeOps.cpp - top.Resize, top.DepthToSpace, top.SpaceToDepth -----===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/ResizeShapes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// The op's attributes as its shape function takes them.
shapes::ResizeAttrs resizeAttrs(ResizeOp op) {
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
  a.scales = doubles(op.getScales());
  a.roi = doubles(op.getRoi());
  a.coordinateScales = doubles(op.getCoordinateScales());
  a.sizes = optionalInts(op.getSizes());
  return a;
}

/// How one dim is resampled: `out` output positions, each a weighted sum of
/// `taps` input samples (`index[x * taps + k]`, `weight[...]`), or the
/// extrapolation value where `extrapolate[x]` is set.
struct DimFilter {
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<bool> extrapolate;
};

/// Parameters of one dim's coordinate mapping.
struct DimMapping {
  CoordinateMode mode; // coordinate_transformation_mode
  double scale;
  int64_t in, out;
  double roiStart = 0.0, roiEnd = 1.0;
};

/// The input coordinate of output coordinate `x`, or nullopt when
/// tf_crop_and_resize maps it outside the input.
std::optional<double> sourceCoord(const DimMapping &m, int64_t x) {
  double xd = static_cast<double>(x), in = static_cast<double>(m.in);
  double len = m.scale * in; // the real-valued output length
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

/// The Keys cubic convolution kernel with parameter `a`.
double cubicKernel(double x, double a) {
  x = std::abs(x);
  if (x <= 1)
    return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2)
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0.0;
}

/// Weights of the samples `base + first .. base + first + n - 1` for the
/// fraction `r` in (0, 1] of the position past `base`.
void tapWeights(ResizeOp op, double r, double scale, int64_t &first,
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
  // Antialias: the kernel stretched by 1 / scale when downsampling.
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

/// Builds the filter of one dim.
DimFilter buildFilter(ResizeOp op, const DimMapping &m) {
  DimFilter f;
  SmallVector<double> w;
  for (int64_t x = 0; x < m.out; ++x) {
    std::optional<double> src = sourceCoord(m, x);
    f.extrapolate.push_back(!src);
    // Far outside the input every mode gives the edge value (or 0 with
    // exclude_outside) whatever the distance: clamp so that indices fit.
    double pos = std::clamp(src.value_or(0.0), -1.0e15, 1.0e15);
    double base = std::floor(pos), r = pos - base;
    if (r == 0.0) { // an exact sample: taken as the right neighbour
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

/// Resamples dim `d` of the row-major `data` of `shape` with `f`.
std::vector<double> resampleDim(const std::vector<double> &data,
                                SmallVectorImpl<int64_t> &shape, size_t d,
                                const DimFilter &f, double extrapolation) {
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
  size_t rank = shape.size();
  double extrapolation = getExtrapolationValue().convertToDouble();
  for (size_t d = 0; d < rank; ++d) {
    DimMapping m{getCoordinateTransformationMode(), scales[d], shape[d],
                 outShape[d]};
    if (auto roi = getRoi()) {
      m.roiStart = (*roi)[d];
      m.roiEnd = (*roi)[rank + d];
    }
    bool fullRoi = m.mode != CoordinateMode::TfCropAndResize ||
                   (m.roiStart == 0.0 && m.roiEnd == 1.0);
    if ((m.in == m.out && m.scale == 1.0 && fullRoi) || m.in == 0)
      continue; // identity in every mode (or an empty dim)
    data = resampleDim(data, shape, d, buildFilter(*this, m), extrapolation);
  }
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
