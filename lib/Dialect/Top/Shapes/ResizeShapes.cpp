//===- ResizeShapes.cpp - shape functions of the Resize ops --------------===//

#include "strata/Dialect/Top/Shapes/ResizeShapes.h"
#include "strata/Dialect/Top/Shapes/ChannelLayout.h"

#include <algorithm>
#include <cmath>

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
