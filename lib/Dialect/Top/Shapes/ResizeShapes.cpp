//===- ResizeShapes.cpp - shape functions of the Resize ops --------------===//

#include "strata/Dialect/Top/Shapes/ResizeShapes.h"
#include "strata/Dialect/Top/Shapes/ChannelLayout.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace strata::top::shapes {

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

std::vector<double> resizeGivenScales(const ResizeAttrs &attrs,
                                      const Tensor *target) {
  std::vector<double> scales;
  if (target) {
    if (isFloat(target->dtype()))
      for (int64_t i = 0; i < target->numElements(); ++i)
        scales.push_back(target->getAsDouble(i));
  } else if (!attrs.sizes && attrs.scales) {
    scales = *attrs.scales;
  }
  return scales;
}

std::vector<double> resizeCoordinateScales(const ResizeAttrs &attrs, Ints in,
                                           Ints out,
                                           const std::vector<double> &given) {
  if (attrs.coordinateScales)
    return *attrs.coordinateScales;
  if (!given.empty())
    return given;
  std::vector<double> s;
  for (size_t d = 0; d < in.size(); ++d)
    s.push_back(in[d] ? static_cast<double>(out[d]) / static_cast<double>(in[d])
                      : 1.0);
  return s;
}

namespace {
/// Checks the attributes other than 'sizes' and 'scales' for an input of
/// rank `rank`.
ShapeCheck checkResizeAttrs(const ResizeAttrs &a, size_t rank) {
  const std::string &ctm = a.coordinateTransformationMode;
  if (ShapeCheck c =
          checkEnumAttr("mode", a.mode, {"nearest", "linear", "cubic"}))
    return c;
  if (ShapeCheck c = checkEnumAttr("coordinate_transformation_mode", ctm,
                                   {"half_pixel", "half_pixel_symmetric",
                                    "pytorch_half_pixel", "align_corners",
                                    "asymmetric", "tf_crop_and_resize"}))
    return c;
  if (ShapeCheck c = checkEnumAttr(
          "nearest_mode", a.nearestMode,
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}))
    return c;
  if (!std::isfinite(a.cubicCoeffA))
    return ShapeError() << "attribute 'cubic_coeff_a' = " << a.cubicCoeffA
                        << " must be finite";
  if (!std::isfinite(a.extrapolationValue))
    return ShapeError() << "attribute 'extrapolation_value' = "
                        << a.extrapolationValue << " must be finite";
  if (a.antialias && a.mode == "nearest")
    return ShapeError() << "attribute 'antialias' requires mode \"linear\" "
                           "or \"cubic\", got \"nearest\"";
  if (a.roi) {
    if (a.roi->size() != 2 * rank)
      return ShapeError() << "attribute 'roi' must have 2 * rank = " << 2 * rank
                          << " values, got " << a.roi->size();
    for (size_t i = 0; i < a.roi->size(); ++i)
      if (!std::isfinite((*a.roi)[i]))
        return ShapeError() << "attribute 'roi' value " << (*a.roi)[i]
                            << " at index " << i << " must be finite";
  } else if (ctm == "tf_crop_and_resize") {
    return ShapeError() << "coordinate_transformation_mode "
                           "\"tf_crop_and_resize\" requires attribute 'roi'";
  }
  if (const auto &cs = a.coordinateScales) {
    if (cs->size() != rank)
      return ShapeError() << "attribute 'coordinate_scales' must have " << rank
                          << " values, got " << cs->size();
    for (size_t i = 0; i < cs->size(); ++i)
      if (!((*cs)[i] > 0) || !std::isfinite((*cs)[i]))
        return ShapeError()
               << "attribute 'coordinate_scales' value " << (*cs)[i]
               << " at index " << i << " must be finite and > 0";
  }
  return std::nullopt;
}

/// Antialiasing widens the kernel to `2 * support / scale` taps when
/// downsampling; refuses kernels wider than 2^24 taps.
ShapeCheck checkAntialiasWidth(const ResizeAttrs &a, Ints in, Ints out,
                               const std::vector<double> &given) {
  if (!a.antialias)
    return std::nullopt;
  std::vector<double> scales = resizeCoordinateScales(a, in, out, given);
  double support = a.mode == "cubic" ? 2.0 : 1.0;
  for (size_t d = 0; d < in.size(); ++d) {
    double taps = 2 * std::ceil(support / std::min(scales[d], 1.0));
    if (in[d] != 0 && taps > 16777216.0)
      return ShapeError() << "antialias kernel of dim " << d << " needs "
                          << taps << " taps for scale " << scales[d]
                          << " (limit 2^24)";
  }
  return std::nullopt;
}

/// The output shape of resizing `in` to `sizes` (if not empty) or by
/// `scales`, with the checks of both; `from` ("attribute" or "operand
/// 'target_value':") names their origin in errors.
ShapeOr<Shape> resizedShape(const ResizeAttrs &a, Ints in, Ints sizes,
                            const std::vector<double> &scales,
                            const char *from) {
  size_t rank = in.size();
  Shape out;
  if (!sizes.empty() || scales.empty()) {
    if (sizes.size() != rank)
      return ShapeError() << from << " 'sizes' must have " << rank
                          << " values, got " << sizes.size() << " " << sizes;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] < 0)
        return ShapeError()
               << from << " 'sizes' value " << sizes[i] << " at index " << i
               << " must be >= 0 (got " << sizes << ")";
    out = sizes.vec();
  } else {
    if (scales.size() != rank)
      return ShapeError() << from << " 'scales' must have " << rank
                          << " values, got " << scales.size();
    for (size_t i = 0; i < rank; ++i) {
      double v = scales[i];
      if (!(v > 0) || !std::isfinite(v))
        return ShapeError() << from << " 'scales' value " << v << " at index "
                            << i << " must be finite and > 0";
      double dim = std::floor(static_cast<double>(in[i]) * v);
      if (dim >= 9.0e18)
        return ShapeError()
               << from << " 'scales' value " << v << " at index " << i
               << " makes output dim " << dim << " overflow int64";
      out.push_back(static_cast<int64_t>(dim));
    }
  }
  for (size_t d = 0; d < rank; ++d)
    if (in[d] == 0 && out[d] != 0)
      return ShapeError() << "cannot resize dim " << d << " of size 0 to size "
                          << out[d];
  if (ShapeCheck c = checkAntialiasWidth(
          a, in, out, sizes.empty() ? scales : std::vector<double>()))
    return *c;
  if (ShapeOr<int64_t> n = countElements(out); !n)
    return ShapeOr<Shape>::errorOf(n);
  return out;
}

/// The shape resized by the values of 'target_value' (any integer dtype:
/// sizes; float: scales), at most 2^31 elements.
ShapeOr<Shape> resizedByTarget(const ResizeAttrs &a, Ints in,
                               const Tensor &target) {
  Shape sizes;
  if (!isFloat(target.dtype()))
    for (int64_t i = 0; i < target.numElements(); ++i)
      sizes.push_back(target.getAsInt(i));
  ShapeOr<Shape> out = resizedShape(a, in, sizes, resizeGivenScales(a, &target),
                                    "operand 'target_value':");
  if (!out)
    return out;
  if (ShapeCheck c = checkRuntimeResultSize(*out))
    return *c;
  return out;
}
} // namespace

ShapeOr<Shape> inferResize(Ints input, const ResizeAttrs &attrs,
                           std::optional<ResizeTarget> target) {
  size_t rank = input.size();
  if (ShapeCheck c = checkResizeAttrs(attrs, rank))
    return *c;
  if (target) {
    if (attrs.sizes || attrs.scales)
      return ShapeError() << "takes the scales or sizes from operand "
                             "'target_value' or from attributes, not both";
    if (target->length != input.rank())
      return ShapeError() << "operand 'target_value' has " << target->length
                          << " values but the input has rank " << rank;
    if (!target->values)
      return Shape(rank, kDynamicDim);
    return resizedByTarget(attrs, input, *target->values);
  }
  if (!attrs.sizes && !attrs.scales)
    return ShapeError() << "requires attribute 'sizes' or 'scales'";
  return resizedShape(attrs, input, attrs.sizes.value_or(Ints()),
                      resizeGivenScales(attrs, nullptr), "attribute");
}

//===----------------------------------------------------------------------===//
// Resize sampling filters
//===----------------------------------------------------------------------===//

namespace {

enum class CoordMode {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfCropAndResize
};
enum class Rounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };
enum class Kernel { Nearest, Linear, Cubic };

/// The sampling attributes, decoded once per filter.
struct Sampling {
  Kernel kernel;
  CoordMode coord;
  Rounding rounding;
  double cubicA;
  bool antialias, excludeOutside;

  explicit Sampling(const ResizeAttrs &a)
      : kernel(a.mode == "cubic"    ? Kernel::Cubic
               : a.mode == "linear" ? Kernel::Linear
                                    : Kernel::Nearest),
        coord(a.coordinateTransformationMode == "half_pixel_symmetric"
                  ? CoordMode::HalfPixelSymmetric
              : a.coordinateTransformationMode == "pytorch_half_pixel"
                  ? CoordMode::PytorchHalfPixel
              : a.coordinateTransformationMode == "align_corners"
                  ? CoordMode::AlignCorners
              : a.coordinateTransformationMode == "asymmetric"
                  ? CoordMode::Asymmetric
              : a.coordinateTransformationMode == "tf_crop_and_resize"
                  ? CoordMode::TfCropAndResize
                  : CoordMode::HalfPixel),
        rounding(a.nearestMode == "round_prefer_ceil"
                     ? Rounding::RoundPreferCeil
                 : a.nearestMode == "floor" ? Rounding::Floor
                 : a.nearestMode == "ceil"  ? Rounding::Ceil
                                            : Rounding::RoundPreferFloor),
        cubicA(a.cubicCoeffA), antialias(a.antialias),
        excludeOutside(a.excludeOutside) {}
};

/// Parameters of one dim's coordinate mapping.
struct DimMapping {
  double scale;
  int64_t in, out;
  double roiStart = 0.0, roiEnd = 1.0;
};

/// The input coordinate of output coordinate `x`, or nullopt when
/// tf_crop_and_resize maps it outside the input.
std::optional<double> sourceCoord(CoordMode mode, const DimMapping &m,
                                  int64_t x) {
  double xd = static_cast<double>(x), in = static_cast<double>(m.in);
  double len = m.scale * in; // the real-valued output length
  switch (mode) {
  case CoordMode::Asymmetric:
    return xd / m.scale;
  case CoordMode::AlignCorners:
    return len == 1.0 ? 0.0 : xd * (in - 1) / (len - 1);
  case CoordMode::PytorchHalfPixel:
    return len == 1.0 ? -0.5 : (xd + 0.5) / m.scale - 0.5;
  case CoordMode::HalfPixelSymmetric: {
    double offset = in / 2 * (1 - static_cast<double>(m.out) / len);
    return offset + (xd + 0.5) / m.scale - 0.5;
  }
  case CoordMode::TfCropAndResize: {
    double span = (m.roiEnd - m.roiStart) * (in - 1);
    double r = len == 1.0 ? span / 2 : xd * span / (len - 1);
    r += m.roiStart * (in - 1);
    if (r < 0 || r > in - 1)
      return std::nullopt;
    return r;
  }
  case CoordMode::HalfPixel:
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
void tapWeights(const Sampling &sm, double r, double scale, int64_t &first,
                std::vector<double> &w) {
  w.clear();
  if (sm.kernel == Kernel::Nearest) {
    bool up;
    if (r == 1.0 || sm.rounding == Rounding::Ceil)
      up = true;
    else if (sm.rounding == Rounding::Floor)
      up = false;
    else if (sm.rounding == Rounding::RoundPreferCeil)
      up = r >= 0.5;
    else
      up = r > 0.5;
    first = 0;
    w.assign({up ? 0.0 : 1.0, up ? 1.0 : 0.0});
    return;
  }
  bool cubic = sm.kernel == Kernel::Cubic;
  if (!sm.antialias) {
    if (cubic) {
      first = -1;
      for (int k = -1; k <= 2; ++k)
        w.push_back(cubicKernel(static_cast<double>(k) - r, sm.cubicA));
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
    double v =
        cubic ? cubicKernel(t, sm.cubicA) : std::max(0.0, 1.0 - std::abs(t));
    w.push_back(v);
    sum += v;
  }
  if (sum != 0.0)
    for (double &v : w)
      v /= sum;
}

/// Builds the filter of one dim.
ResizeDimFilter buildFilter(const Sampling &sm, const DimMapping &m) {
  ResizeDimFilter f;
  std::vector<double> w;
  for (int64_t x = 0; x < m.out; ++x) {
    std::optional<double> src = sourceCoord(sm.coord, m, x);
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
    tapWeights(sm, r, m.scale, first, w);
    f.taps = static_cast<int64_t>(w.size());
    int64_t b = static_cast<int64_t>(base);
    if (sm.excludeOutside) {
      double sum = 0.0;
      for (size_t k = 0; k < w.size(); ++k) {
        int64_t i = b + first + static_cast<int64_t>(k);
        if (i < 0 || i >= m.in)
          w[k] = 0.0;
        sum += w[k];
      }
      if (sum != 0.0)
        for (double &v : w)
          v /= sum;
    }
    for (size_t k = 0; k < w.size(); ++k) {
      int64_t i = b + first + static_cast<int64_t>(k);
      f.index.push_back(std::clamp<int64_t>(i, 0, m.in - 1));
      f.weight.push_back(w[k]);
    }
  }
  return f;
}

} // namespace

std::vector<ResizeDimFilter> resizeFilters(const ResizeAttrs &attrs, Ints in,
                                           Ints out,
                                           const std::vector<double> &scales) {
  Sampling sm(attrs);
  int64_t rank = in.rank();
  bool hasRoi =
      attrs.roi && static_cast<int64_t>(attrs.roi->size()) == 2 * rank;
  std::vector<ResizeDimFilter> filters;
  for (int64_t d = 0; d < rank; ++d) {
    DimMapping m{scales[d], in[d], out[d]};
    if (hasRoi) {
      m.roiStart = (*attrs.roi)[d];
      m.roiEnd = (*attrs.roi)[rank + d];
    }
    bool fullRoi = sm.coord != CoordMode::TfCropAndResize ||
                   (m.roiStart == 0.0 && m.roiEnd == 1.0);
    if ((m.in == m.out && m.scale == 1.0 && fullRoi) || m.in == 0)
      continue; // identity in every mode (or an empty dim)
    filters.push_back(buildFilter(sm, m));
    filters.back().dim = d;
  }
  return filters;
}

//===----------------------------------------------------------------------===//
// DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

namespace {
/// `a * b` for a shape dim, or an error when it overflows int64.
ShapeOr<int64_t> mulDim(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return ShapeError() << "output dim " << a << " * " << b
                        << " overflows int64";
  return r;
}

/// Checks the rank-4 (channels-first) input and the blocksize.
ShapeCheck checkBlockOp(Ints in, int64_t b) {
  if (in.size() != 4)
    return ShapeError() << "input must have rank 4 (N, C, H, W), got shape "
                        << in;
  if (b < 1)
    return ShapeError() << "attribute 'blocksize' = " << b << " must be >= 1";
  return std::nullopt;
}

/// `out` (channels first) in the op's layout, if its element count fits.
ShapeOr<Shape> blockOpResult(const Shape &out, bool channelsLast) {
  if (ShapeOr<int64_t> n = countElements(out); !n)
    return ShapeOr<Shape>::errorOf(n);
  return fromChannelsFirst(out, channelsLast);
}
} // namespace

ShapeOr<Shape> inferDepthToSpace(Ints input, int64_t blocksize,
                                 const std::string &mode, bool channelsLast) {
  Shape in = toChannelsFirst(input, channelsLast);
  int64_t b = blocksize;
  if (ShapeCheck c = checkBlockOp(in, b))
    return *c;
  if (ShapeCheck c = checkEnumAttr("mode", mode, {"DCR", "CRD"}))
    return *c;
  ShapeOr<int64_t> bb = mulDim(b, b);
  if (!bb)
    return ShapeOr<Shape>::errorOf(bb);
  if (in[1] % *bb != 0)
    return ShapeError() << "input channels (" << in[1]
                        << ") must be divisible by blocksize^2 = " << *bb;
  ShapeOr<int64_t> h = mulDim(in[2], b);
  if (!h)
    return ShapeOr<Shape>::errorOf(h);
  ShapeOr<int64_t> w = mulDim(in[3], b);
  if (!w)
    return ShapeOr<Shape>::errorOf(w);
  return blockOpResult({in[0], in[1] / *bb, *h, *w}, channelsLast);
}

ShapeOr<Shape> inferSpaceToDepth(Ints input, int64_t blocksize,
                                 bool channelsLast) {
  Shape in = toChannelsFirst(input, channelsLast);
  int64_t b = blocksize;
  if (ShapeCheck c = checkBlockOp(in, b))
    return *c;
  if (in[2] % b != 0 || in[3] % b != 0)
    return ShapeError() << "input spatial dims [" << in[2] << ", " << in[3]
                        << "] must be divisible by attribute 'blocksize' = "
                        << b;
  ShapeOr<int64_t> bb = mulDim(b, b);
  if (!bb)
    return ShapeOr<Shape>::errorOf(bb);
  ShapeOr<int64_t> c = mulDim(in[1], *bb);
  if (!c)
    return ShapeOr<Shape>::errorOf(c);
  return blockOpResult({in[0], *c, in[2] / b, in[3] / b}, channelsLast);
}

} // namespace strata::top::shapes
