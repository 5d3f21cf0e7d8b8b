//===- NormShapes.cpp - shape functions of the Norm ops ------------------===//

#include "strata/Dialect/Top/Shapes/NormShapes.h"
#include "strata/Dialect/Top/Shapes/ChannelLayout.h"

#include <cmath>

namespace strata::top::shapes {

namespace {
/// Checks that the parameter operand `name`, when given, has `count`
/// elements; `what` says what they are.
ShapeCheck checkParamCount(const char *name, std::optional<Ints> param,
                           int64_t count, const char *what) {
  if (param && shapeElementCount(*param) != count)
    return ShapeError() << name << " must have " << count << " elements ("
                        << what << "), got shape " << *param;
  return std::nullopt;
}

/// Checks that every given parameter has `c` elements (one per channel).
ShapeCheck checkChannelParams(const NormParams &p, int64_t c) {
  for (auto [name, param] :
       {std::pair{"mean", p.mean}, std::pair{"variance", p.variance},
        std::pair{"scale", p.scale}, std::pair{"bias", p.bias}})
    if (ShapeCheck e = checkParamCount(name, param, c, "one per channel"))
      return e;
  return std::nullopt;
}

/// Checks attribute 'epsilon' is a finite value >= 0.
ShapeCheck checkEpsilon(double eps) {
  if (!(eps >= 0) || !std::isfinite(eps))
    return ShapeError() << "attribute 'epsilon' = " << eps
                        << " must be finite and >= 0";
  return std::nullopt;
}

/// Checks that the channels-first `in` has rank >= 2.
ShapeCheck checkChannelsInput(Ints in) {
  if (in.size() < 2)
    return ShapeError() << "input must have rank >= 2 (N, C, ...), got shape "
                        << in;
  return std::nullopt;
}
} // namespace

ShapeOr<int64_t> normAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return ShapeError() << "attribute 'axis' = " << axis << " is out of range ["
                        << -rank << ", " << rank << ") for input rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

ShapeOr<Shape> inferSoftmax(Ints input, int64_t axis) {
  if (ShapeOr<int64_t> a = normAxis(axis, input.rank()); !a)
    return ShapeOr<Shape>::errorOf(a);
  return input.vec();
}

ShapeOr<Shape> inferBatchNorm(Ints input, const NormParams &params,
                              double epsilon, bool channelsLast) {
  // Channels are dim 1 (NCHW) or the last dim (NHWC).
  Shape in = toChannelsFirst(input, channelsLast);
  if (ShapeCheck c = checkChannelsInput(in))
    return *c;
  if (ShapeCheck c = checkChannelParams(params, in[1]))
    return *c;
  if (ShapeCheck c = checkEpsilon(epsilon))
    return *c;
  return input.vec();
}

ShapeOr<Shape> inferLayerNorm(Ints input, int64_t axis,
                              const NormParams &params, double epsilon) {
  ShapeOr<int64_t> a = normAxis(axis, input.rank());
  if (!a)
    return ShapeOr<Shape>::errorOf(a);
  int64_t len = shapeElementCount(input.slice(*a)).value_or(-1);
  const char *what = "the normalized shape's";
  if (ShapeCheck c = checkParamCount("scale", params.scale, len, what))
    return *c;
  if (ShapeCheck c = checkParamCount("bias", params.bias, len, what))
    return *c;
  if (ShapeCheck c = checkEpsilon(epsilon))
    return *c;
  return input.vec();
}

ShapeOr<Shape> inferGroupNorm(Ints input, int64_t numGroups,
                              const NormParams &params, double epsilon,
                              bool channelsLast) {
  Shape in = toChannelsFirst(input, channelsLast);
  if (ShapeCheck c = checkChannelsInput(in))
    return *c;
  int64_t c = in[1], g = numGroups;
  if (g < 1 || c % g != 0)
    return ShapeError() << "attribute 'num_groups' = " << g
                        << " must be >= 1 and divide the input channels (" << c
                        << ")";
  if (ShapeCheck e = checkChannelParams(params, c))
    return *e;
  if (ShapeCheck e = checkEpsilon(epsilon))
    return *e;
  return input.vec();
}

} // namespace strata::top::shapes
