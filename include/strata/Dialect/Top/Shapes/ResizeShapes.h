//===- ResizeShapes.h - shape functions of the Resize ops ------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/ResizeOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_RESIZESHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_RESIZESHAPES_H

#include "strata/Support/ShapeFunction.h"
#include "strata/Support/Tensor.h"

#include <string>

namespace strata::top::shapes {

/// Attributes of top.Resize (defaults as in ODS).
struct ResizeAttrs {
  std::string mode = "nearest";
  std::string coordinateTransformationMode = "half_pixel";
  std::string nearestMode = "round_prefer_floor";
  double cubicCoeffA = -0.75, extrapolationValue = 0.0;
  bool antialias = false, excludeOutside = false;
  std::optional<std::vector<double>> scales, roi, coordinateScales;
  std::optional<Ints> sizes;
};

/// Resize's runtime operand 'target_value': one value per dim (a float
/// tensor holds scales, an integer tensor sizes).
struct ResizeTarget {
  /// Its length (the adapter checks it is a 1-D tensor of static length).
  int64_t length = 0;
  /// Its elements when known (at run time), else nullptr.
  const Tensor *values = nullptr;
};

/// The scales the op was given: the values of 'target_value' when it holds
/// floats (`target` not null), else the 'scales' attribute unless 'sizes' is
/// given; empty when it resizes to sizes.
std::vector<double> resizeGivenScales(const ResizeAttrs &attrs,
                                      const Tensor *target);

/// The per-dim scales for coordinate mapping: 'coordinate_scales' if given,
/// else `given` (see resizeGivenScales) if not empty, else `out / in`.
std::vector<double> resizeCoordinateScales(const ResizeAttrs &attrs, Ints in,
                                           Ints out,
                                           const std::vector<double> &given);

/// Resize: the input resized to 'sizes' or by 'scales' (floor(in * scale)),
/// or by `target` (all dims kDynamicDim while its values are unknown).
ShapeOr<Shape> inferResize(Ints input, const ResizeAttrs &attrs,
                           std::optional<ResizeTarget> target);

/// How Resize samples one dim `dim` it changes: each of the result's
/// positions `x` along it is the weighted sum of `taps` input samples along
/// it (`index[x * taps + k]`, `weight[x * taps + k]`, indices clamped into
/// the input), or the extrapolation value where `extrapolate[x]` is set
/// (tf_crop_and_resize outside the input).
struct ResizeDimFilter {
  int64_t dim = 0;
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<bool> extrapolate;
};

/// The filters of the dims Resize changes, in dim order, for input shape
/// `in`, result shape `out` and per-dim coordinate `scales` (see
/// resizeCoordinateScales); a dim that stays as it is in every mode (same
/// size, scale 1, whole roi) or is empty has none. The reference interpreter
/// and the CPU code generator both sample with these, so they agree.
std::vector<ResizeDimFilter> resizeFilters(const ResizeAttrs &attrs, Ints in,
                                           Ints out,
                                           const std::vector<double> &scales);

/// DepthToSpace: `[N, C / b^2, H * b, W * b]` for input `[N, C, H, W]`
/// (channels last when `channelsLast`); `mode` is "DCR" or "CRD".
ShapeOr<Shape> inferDepthToSpace(Ints input, int64_t blocksize,
                                 const std::string &mode, bool channelsLast);

/// SpaceToDepth: `[N, C * b^2, H / b, W / b]` for input `[N, C, H, W]`
/// (channels last when `channelsLast`), H and W divisible by b.
ShapeOr<Shape> inferSpaceToDepth(Ints input, int64_t blocksize,
                                 bool channelsLast);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_RESIZESHAPES_H
