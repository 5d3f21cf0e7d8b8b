//===- ResizeOps.cpp - top.Resize, top.DepthToSpace, top.SpaceToDepth -----===//

#include "OpImpl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// Checks that string attribute `name` is one of `allowed`.
LogicalResult checkEnumAttr(Operation *op, StringRef name, StringRef value,
                            ArrayRef<StringRef> allowed) {
  if (llvm::is_contained(allowed, value))
    return success();
  std::string list;
  for (auto [i, a] : llvm::enumerate(allowed))
    list += (i ? ", \"" : "\"") + a.str() + "\"";
  return op->emitOpError() << "attribute '" << name << "' must be one of "
                           << list << ", got \"" << value << "\"";
}

/// `a * b` for a shape dim, or an error when it overflows int64.
FailureOr<int64_t> mulDim(Operation *op, int64_t a, int64_t b) {
  int64_t r;
  if (llvm::MulOverflow(a, b, r))
    return op->emitOpError() << "output dim " << a << " * " << b
                             << " overflows int64";
  return r;
}

/// The scales the op was given (the `scales` attribute unless `sizes` is
/// given, or runtime scales), empty when it resizes to sizes.
SmallVector<double> givenScales(ResizeOp op) {
  if (!op.getSizes() && op.getScales())
    return SmallVector<double>(*op.getScales());
  return {};
}

/// The per-dim scales used for coordinate mapping: `coordinate_scales` if
/// given, else the `given` scales (see givenScales), else `out / in`.
SmallVector<double> effectiveScales(ResizeOp op, ArrayRef<int64_t> in,
                                    ArrayRef<int64_t> out,
                                    ArrayRef<double> given) {
  if (auto cs = op.getCoordinateScales())
    return SmallVector<double>(*cs);
  if (!given.empty())
    return SmallVector<double>(given);
  SmallVector<double> s;
  for (auto [i, o] : llvm::zip_equal(in, out))
    s.push_back(i ? static_cast<double>(o) / static_cast<double>(i) : 1.0);
  return s;
}

/// Antialiasing widens the kernel to `2 * support / scale` taps when
/// downsampling; refuses kernels wider than 2^24 taps.
LogicalResult checkAntialiasWidth(ResizeOp op, ArrayRef<int64_t> in,
                                  ArrayRef<int64_t> out,
                                  ArrayRef<double> given) {
  if (!op.getAntialias())
    return success();
  SmallVector<double> scales = effectiveScales(op, in, out, given);
  double support = op.getMode() == "cubic" ? 2.0 : 1.0;
  for (size_t d = 0; d < in.size(); ++d) {
    double taps = 2 * std::ceil(support / std::min(scales[d], 1.0));
    if (in[d] != 0 && taps > 16777216.0)
      return op.emitOpError()
             << "antialias kernel of dim " << d << " needs " << taps
             << " taps for scale " << scales[d] << " (limit 2^24)";
  }
  return success();
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
  StringRef mode; // coordinate_transformation_mode
  double scale;
  int64_t in, out;
  double roiStart = 0.0, roiEnd = 1.0;
};

/// The input coordinate of output coordinate `x`, or nullopt when
/// tf_crop_and_resize maps it outside the input.
std::optional<double> sourceCoord(const DimMapping &m, int64_t x) {
  double xd = static_cast<double>(x), in = static_cast<double>(m.in);
  double len = m.scale * in; // the real-valued output length
  StringRef mode = m.mode;
  if (mode == "asymmetric")
    return xd / m.scale;
  if (mode == "align_corners")
    return len == 1.0 ? 0.0 : xd * (in - 1) / (len - 1);
  if (mode == "pytorch_half_pixel")
    return len == 1.0 ? -0.5 : (xd + 0.5) / m.scale - 0.5;
  if (mode == "half_pixel_symmetric") {
    double offset = in / 2 * (1 - static_cast<double>(m.out) / len);
    return offset + (xd + 0.5) / m.scale - 0.5;
  }
  if (mode == "tf_crop_and_resize") {
    double span = (m.roiEnd - m.roiStart) * (in - 1);
    double r = len == 1.0 ? span / 2 : xd * span / (len - 1);
    r += m.roiStart * (in - 1);
    if (r < 0 || r > in - 1)
      return std::nullopt;
    return r;
  }
  return (xd + 0.5) / m.scale - 0.5; // half_pixel
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
  StringRef mode = op.getMode();
  w.clear();
  if (mode == "nearest") {
    StringRef nm = op.getNearestMode();
    bool up;
    if (r == 1.0 || nm == "ceil")
      up = true;
    else if (nm == "floor")
      up = false;
    else if (nm == "round_prefer_ceil")
      up = r >= 0.5;
    else
      up = r > 0.5;
    first = 0;
    w.assign({up ? 0.0 : 1.0, up ? 1.0 : 0.0});
    return;
  }
  double a = op.getCubicCoeffA().convertToDouble();
  bool cubic = mode == "cubic";
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

/// Checks the rank-4 input of DepthToSpace/SpaceToDepth and the blocksize.
LogicalResult checkBlockOp(Operation *op, ArrayRef<int64_t> in, int64_t b) {
  if (in.size() != 4)
    return op->emitOpError() << "input must have rank 4 (N, C, H, W), got "
                                "shape "
                             << formatArray(in);
  if (b < 1)
    return op->emitOpError() << "attribute 'blocksize' = " << b
                             << " must be >= 1";
  return success();
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

/// The output shape of resizing `in` to `sizes` (if not empty) or by
/// `scales`, with the checks of both; `from` ("attribute" or "operand
/// 'target_value'") names their origin in errors.
static FailureOr<SmallVector<int64_t>>
resizedShape(ResizeOp op, ArrayRef<int64_t> in, ArrayRef<int64_t> sizes,
             ArrayRef<double> scales, StringRef from) {
  size_t rank = in.size();
  SmallVector<int64_t> out;
  if (!sizes.empty() || scales.empty()) {
    if (sizes.size() != rank)
      return op.emitOpError() << from << " 'sizes' must have " << rank
                              << " values, got " << sizes.size() << " "
                              << formatArray(sizes);
    for (auto [i, v] : llvm::enumerate(sizes))
      if (v < 0)
        return op.emitOpError() << from << " 'sizes' value " << v
                                << " at index " << i << " must be >= 0 (got "
                                << formatArray(sizes) << ")";
    out.assign(sizes.begin(), sizes.end());
  } else {
    if (scales.size() != rank)
      return op.emitOpError() << from << " 'scales' must have " << rank
                              << " values, got " << scales.size();
    for (auto [i, v] : llvm::enumerate(scales)) {
      if (!(v > 0) || !std::isfinite(v))
        return op.emitOpError() << from << " 'scales' value " << v
                                << " at index " << i
                                << " must be finite and > 0";
      double dim = std::floor(static_cast<double>(in[i]) * v);
      if (dim >= 9.0e18)
        return op.emitOpError() << from << " 'scales' value " << v
                                << " at index " << i << " makes output dim "
                                << dim << " overflow int64";
      out.push_back(static_cast<int64_t>(dim));
    }
  }
  for (size_t d = 0; d < rank; ++d)
    if (in[d] == 0 && out[d] != 0)
      return op.emitOpError() << "cannot resize dim " << d
                              << " of size 0 to size " << out[d];
  if (failed(checkAntialiasWidth(op, in, out, sizes.empty() ? scales
                                                            : ArrayRef<double>())))
    return failure();
  if (failed(checkedElementCount(op, out)))
    return failure();
  return out;
}

LogicalResult ResizeOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = ctx.shape(getInput());
  size_t rank = in.size();
  StringRef ctm = getCoordinateTransformationMode();
  if (failed(checkEnumAttr(*this, "mode", getMode(),
                           {"nearest", "linear", "cubic"})) ||
      failed(checkEnumAttr(*this, "coordinate_transformation_mode", ctm,
                           {"half_pixel", "half_pixel_symmetric",
                            "pytorch_half_pixel", "align_corners",
                            "asymmetric", "tf_crop_and_resize"})) ||
      failed(checkEnumAttr(*this, "nearest_mode", getNearestMode(),
                           {"round_prefer_floor", "round_prefer_ceil",
                            "floor", "ceil"})))
    return failure();
  double a = getCubicCoeffA().convertToDouble();
  if (!std::isfinite(a))
    return emitOpError() << "attribute 'cubic_coeff_a' = " << a
                         << " must be finite";
  if (!std::isfinite(getExtrapolationValue().convertToDouble()))
    return emitOpError() << "attribute 'extrapolation_value' = "
                         << getExtrapolationValue().convertToDouble()
                         << " must be finite";
  if (getAntialias() && getMode() == "nearest")
    return emitOpError() << "attribute 'antialias' requires mode \"linear\" "
                            "or \"cubic\", got \"nearest\"";
  if (auto roi = getRoi()) {
    if (roi->size() != 2 * rank)
      return emitOpError() << "attribute 'roi' must have 2 * rank = "
                           << 2 * rank << " values, got " << roi->size();
    for (auto [i, v] : llvm::enumerate(*roi))
      if (!std::isfinite(v))
        return emitOpError() << "attribute 'roi' value " << v
                             << " at index " << i << " must be finite";
  } else if (ctm == "tf_crop_and_resize") {
    return emitOpError() << "coordinate_transformation_mode "
                            "\"tf_crop_and_resize\" requires attribute 'roi'";
  }
  if (auto cs = getCoordinateScales()) {
    if (cs->size() != rank)
      return emitOpError() << "attribute 'coordinate_scales' must have "
                           << rank << " values, got " << cs->size();
    for (auto [i, v] : llvm::enumerate(*cs))
      if (!(v > 0) || !std::isfinite(v))
        return emitOpError() << "attribute 'coordinate_scales' value " << v
                             << " at index " << i
                             << " must be finite and > 0";
  }
  if (Value target = getTargetValue()) {
    if (getSizes() || getScales())
      return emitOpError() << "takes the scales or sizes from operand "
                              "'target_value' or from attributes, not both";
    auto n = runtimeListLength(*this, "target_value", target);
    if (failed(n))
      return failure();
    if (*n != static_cast<int64_t>(rank))
      return emitOpError() << "operand 'target_value' has " << *n
                           << " values but the input has rank " << rank;
    s.push_back(SmallVector<int64_t>(rank, ShapedType::kDynamic));
    return success();
  }
  if (!getSizes() && !getScales())
    return emitOpError() << "requires attribute 'sizes' or 'scales'";
  auto out = resizedShape(*this, in, getSizes() ? *getSizes()
                                                : ArrayRef<int64_t>(),
                          givenScales(*this), "attribute");
  if (failed(out))
    return failure();
  s.push_back(*out);
  return success();
}

/// Per resized dim and output element: 2 flops per tap (linear 2 taps,
/// cubic 4; antialias widens the kernel by 1 / scale); nearest: none.
int64_t ResizeOp::getFlops() {
  auto t = cast<ShapedType>(getOutput().getType());
  if (!t.hasStaticShape() || getMode() == "nearest")
    return 0;
  int64_t taps = getMode() == "cubic" ? 4 : 2;
  return 2 * taps * t.getRank() * t.getNumElements();
}

LogicalResult ResizeOp::interpret(InterpreterEnv &env) {
  const Tensor &raw = env.get(getInput());
  SmallVector<int64_t> shape(raw.shape().begin(), raw.shape().end());
  SmallVector<double> given = givenScales(*this);
  // The result type has `?` dims (or no rank) when the target is runtime.
  std::vector<int64_t> outShape;
  if (!getTargetValue())
    outShape = env.resultShape(getOutput());
  if (Value target = getTargetValue()) {
    const Tensor &t = env.get(target);
    SmallVector<int64_t> sizes;
    given.clear();
    for (int64_t i = 0; i < t.numElements(); ++i) {
      if (isFloat(t.dtype()))
        given.push_back(t.getAsDouble(i));
      else
        sizes.push_back(t.getAsInt(i));
    }
    auto out = resizedShape(*this, shape, sizes, given,
                            "operand 'target_value':");
    if (failed(out))
      return failure();
    outShape.assign(out->begin(), out->end());
    if (failed(checkRuntimeResultSize(*this, outShape)))
      return failure();
  }
  SmallVector<double> scales = effectiveScales(*this, shape, outShape, given);
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
    bool fullRoi = m.mode != "tf_crop_and_resize" ||
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
  if (getCoordinateTransformationMode() == "tf_crop_and_resize")
    return {};
  return getInput();
}

//===----------------------------------------------------------------------===//
// DepthToSpaceOp
//===----------------------------------------------------------------------===//

LogicalResult
DepthToSpaceOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto channelsLast = checkLayout(*this, getLayout());
  if (failed(channelsLast))
    return failure();
  SmallVector<int64_t> in = toChannelsFirst(ctx.shape(getInput()), *channelsLast);
  int64_t b = getBlocksize();
  if (failed(checkBlockOp(*this, in, b)) ||
      failed(checkEnumAttr(*this, "mode", getMode(), {"DCR", "CRD"})))
    return failure();
  auto bb = mulDim(*this, b, b);
  if (failed(bb))
    return failure();
  if (in[1] % *bb != 0)
    return emitOpError() << "input channels (" << in[1]
                         << ") must be divisible by blocksize^2 = " << *bb;
  auto h = mulDim(*this, in[2], b), w = mulDim(*this, in[3], b);
  if (failed(h) || failed(w))
    return failure();
  SmallVector<int64_t> out{in[0], in[1] / *bb, *h, *w};
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(fromChannelsFirst(out, *channelsLast));
  return success();
}

int64_t DepthToSpaceOp::getFlops() { return 0; }

LogicalResult DepthToSpaceOp::interpret(InterpreterEnv &env) {
  // NHWC runs as NCHW between two transposes.
  bool channelsLast = getLayout() == kLayoutNHWC;
  Tensor in = toChannelsFirst(env.get(getInput()), channelsLast);
  SmallVector<int64_t> outDims =
      toChannelsFirst(env.resultShape(getOutput()), channelsLast);
  Tensor out(in.dtype(), std::vector<int64_t>(outDims.begin(), outDims.end()));
  int64_t b = getBlocksize(), c = out.dim(1), ci = in.dim(1), h = in.dim(2),
          w = in.dim(3);
  bool dcr = getMode() == "DCR";
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
SpaceToDepthOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto channelsLast = checkLayout(*this, getLayout());
  if (failed(channelsLast))
    return failure();
  SmallVector<int64_t> in = toChannelsFirst(ctx.shape(getInput()), *channelsLast);
  int64_t b = getBlocksize();
  if (failed(checkBlockOp(*this, in, b)))
    return failure();
  if (in[2] % b != 0 || in[3] % b != 0)
    return emitOpError() << "input spatial dims [" << in[2] << ", " << in[3]
                         << "] must be divisible by attribute 'blocksize' = "
                         << b;
  auto bb = mulDim(*this, b, b);
  if (failed(bb))
    return failure();
  auto c = mulDim(*this, in[1], *bb);
  if (failed(c))
    return failure();
  SmallVector<int64_t> out{in[0], *c, in[2] / b, in[3] / b};
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(fromChannelsFirst(out, *channelsLast));
  return success();
}

int64_t SpaceToDepthOp::getFlops() { return 0; }

LogicalResult SpaceToDepthOp::interpret(InterpreterEnv &env) {
  // NHWC runs as NCHW between two transposes.
  bool channelsLast = getLayout() == kLayoutNHWC;
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
