//===- ConvertNNResize.cpp - ONNX Resize and Upsample to Top --------------===//
//
// Part of the NN family (TopNNOps.td holds top.Resize): Resize and the
// older Upsample become top.Resize. The mode, coordinate transformation,
// nearest rounding, cubic coefficient, antialias, exclude_outside, roi and
// extrapolation value become its attributes; scales or sizes come from
// attributes or constant inputs, or stay runtime operands; opset 18's axes
// and keep_aspect_ratio_policy are applied to them.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include <cmath>

namespace strata::onnx_import {
namespace {

struct ResizeSpec {
  std::string mode = "nearest", ctm = "half_pixel",
              nearest = "round_prefer_floor";
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  double cubicA = -0.75, extrapolation = 0.0;
  bool excludeOutside = false, antialias = false;
  std::vector<double> roi;
  std::vector<double> coordinateScales; // keep_aspect_ratio_policy's scale
};

/// The error for a shape-determining input that is not a constant: it
/// names the graph value so that it can be frozen (`--freeze-inputs`).
InFlightDiagnostic notConstantError(NodeContext &c, size_t i, StringRef what) {
  return c.error() << "the '" << what << "' input (value '"
                   << c.node().input(i)
                   << "') must be a constant: it determines the output "
                      "shape or sampling grid (freeze it with "
                      "--freeze-inputs)";
}

/// Constant float input `i` as doubles; nullopt if absent or empty.
FailureOr<std::optional<std::vector<double>>> constantFloats(NodeContext &c,
                                                             size_t i,
                                                             StringRef what) {
  if (!c.hasInput(i))
    return std::optional<std::vector<double>>();
  const Tensor *t = c.constantInput(i);
  if (!t)
    return notConstantError(c, i, what);
  if (t->numElements() == 0)
    return std::optional<std::vector<double>>();
  std::vector<double> v(t->numElements());
  for (int64_t k = 0; k < t->numElements(); ++k)
    v[k] = t->getAsDouble(k);
  return std::optional<std::vector<double>>(v);
}

/// The enum attributes of `s` (mode, coordinate_transformation_mode,
/// nearest_mode); an error naming the attribute if a value is unknown.
struct ResizeModes {
  InterpolationAttr mode;
  CoordinateModeAttr ctm;
  NearestModeAttr nearest;
};
FailureOr<ResizeModes> resizeModes(NodeContext &c, const ResizeSpec &s) {
  auto mode = c.toEnum<Interpolation>("mode", s.mode);
  auto ctm = c.toEnum<CoordinateMode>("coordinate_transformation_mode", s.ctm);
  auto nearest = c.toEnum<NearestMode>("nearest_mode", s.nearest);
  if (failed(mode) || failed(ctm) || failed(nearest))
    return failure();
  MLIRContext *ctx = c.context();
  return ResizeModes{InterpolationAttr::get(ctx, *mode),
                     CoordinateModeAttr::get(ctx, *ctm),
                     NearestModeAttr::get(ctx, *nearest)};
}

LogicalResult emitResize(NodeContext &c, const ResizeSpec &s) {
  OpBuilder &b = c.builder();
  FailureOr<ResizeModes> m = resizeModes(c, s);
  if (failed(m))
    return failure();
  return emit<ResizeOp>(
      c, elemOf(c, 0), c.input(0), m->mode, m->ctm, m->nearest,
      s.scales.empty() ? DenseF64ArrayAttr() : b.getDenseF64ArrayAttr(s.scales),
      s.sizes.empty() ? DenseI64ArrayAttr() : b.getDenseI64ArrayAttr(s.sizes),
      b.getF64FloatAttr(s.cubicA), b.getBoolAttr(s.excludeOutside),
      b.getBoolAttr(s.antialias),
      s.roi.empty() ? DenseF64ArrayAttr() : b.getDenseF64ArrayAttr(s.roi),
      b.getF64FloatAttr(s.extrapolation),
      s.coordinateScales.empty()
          ? DenseF64ArrayAttr()
          : b.getDenseF64ArrayAttr(s.coordinateScales));
}

LogicalResult checkMode(NodeContext &c, StringRef mode) {
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return c.error() << "attribute 'mode' = '" << mode
                     << "' is invalid (nearest, linear or cubic)";
  return success();
}

/// Opset < 11 (Upsample, Resize-10): asymmetric coordinates, nearest rounds
/// down when upsampling and up when downsampling.
LogicalResult legacyNearest(NodeContext &c, ResizeSpec &s) {
  s.ctm = "asymmetric";
  bool up = llvm::all_of(s.scales, [](double v) { return v >= 1.0; });
  bool down = llvm::all_of(s.scales, [](double v) { return v <= 1.0; });
  if (!up && !down)
    return c.error() << "scales mixing up- and downsampling are not supported "
                        "before opset 11";
  s.nearest = up ? "floor" : "ceil";
  return success();
}

LogicalResult convertUpsample(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto mode = c.attrString("mode", "nearest");
  if (failed(rank) || failed(mode))
    return failure();
  ResizeSpec s;
  s.mode = *mode == "bilinear" ? "linear" : *mode;
  if (s.mode != "nearest" && s.mode != "linear")
    return c.error() << "attribute 'mode' = '" << *mode
                     << "' is invalid (nearest or linear)";
  if (c.version() < 9) {
    auto sc = c.attrFloats("scales");
    if (failed(sc))
      return failure();
    if (!*sc)
      return c.error() << "attribute 'scales' is required";
    s.scales.assign((*sc)->begin(), (*sc)->end());
  } else {
    auto sc = constantFloats(c, 1, "scales");
    if (failed(sc))
      return failure();
    if (!*sc)
      return c.error() << "input 'scales' is required";
    s.scales = **sc;
  }
  if ((int64_t)s.scales.size() != *rank)
    return c.error() << "'scales' has " << s.scales.size()
                     << " values for a rank-" << *rank << " input";
  for (double v : s.scales)
    if (!(v > 0) || !std::isfinite(v))
      return c.error() << "'scales' value " << v
                       << " must be finite and positive";
  if (failed(legacyNearest(c, s)))
    return failure();
  return emitResize(c, s);
}

LogicalResult readResizeAttrs(NodeContext &c, ResizeSpec &s) {
  auto mode = c.attrString("mode", "nearest");
  auto ctm = c.attrString("coordinate_transformation_mode", "half_pixel");
  auto nearest = c.attrString("nearest_mode", "round_prefer_floor");
  auto antialias = c.attrInt("antialias", 0);
  auto cubicA = c.attrFloat("cubic_coeff_a", -0.75f);
  auto exclude = c.attrInt("exclude_outside", 0);
  auto extrapolation = c.attrFloat("extrapolation_value", 0.0f);
  if (failed(mode) || failed(ctm) || failed(nearest) || failed(antialias) ||
      failed(cubicA) || failed(exclude) || failed(extrapolation))
    return failure();
  if (failed(checkMode(c, *mode)))
    return failure();
  if (*antialias != 0 && *antialias != 1)
    return c.error() << "attribute 'antialias' = " << *antialias
                     << " is invalid (0 or 1)";
  if (*antialias && *mode == "nearest")
    return c.error() << "attribute 'antialias' = 1 requires mode 'linear' or "
                        "'cubic', got 'nearest'";
  if (*exclude != 0 && *exclude != 1)
    return c.error() << "attribute 'exclude_outside' = " << *exclude
                     << " is invalid (0 or 1)";
  static const char *const kCtm[] = {
      "half_pixel",    "half_pixel_symmetric", "pytorch_half_pixel",
      "align_corners", "asymmetric",           "tf_crop_and_resize"};
  if (*ctm == "tf_half_pixel_for_nn" && c.version() < 13)
    return c.error() << "attribute 'coordinate_transformation_mode' = "
                        "'tf_half_pixel_for_nn' is not supported";
  if (!llvm::is_contained(kCtm, *ctm))
    return c.error() << "attribute 'coordinate_transformation_mode' = '"
                     << *ctm
                     << "' is invalid (half_pixel, half_pixel_symmetric, "
                        "pytorch_half_pixel, align_corners, asymmetric or "
                        "tf_crop_and_resize)";
  static const char *const kNearest[] = {"round_prefer_floor",
                                         "round_prefer_ceil", "floor", "ceil"};
  if (!llvm::is_contained(kNearest, *nearest))
    return c.error() << "attribute 'nearest_mode' = '" << *nearest
                     << "' is invalid";
  s.mode = *mode;
  s.ctm = *ctm;
  s.nearest = *nearest;
  s.antialias = *antialias;
  s.excludeOutside = *exclude;
  s.cubicA = *cubicA;
  s.extrapolation = *extrapolation;
  return success();
}

/// Opset 18 `axes` and `keep_aspect_ratio_policy` applied to scales, sizes
/// and roi (which then cover every dim).
/// Resize's attribute 'axes' normalized (all dims if absent).
FailureOr<std::vector<int64_t>>
resizeAxes(NodeContext &c, const std::optional<std::vector<int64_t>> &attr,
           int64_t rank) {
  std::vector<int64_t> axes;
  if (!attr) {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
    return axes;
  }
  for (int64_t a : *attr) {
    auto n = c.normalizeAxis("attribute 'axes' value", a, rank);
    if (failed(n))
      return failure();
    if (llvm::is_contained(axes, *n))
      return c.error() << "attribute 'axes' repeats axis " << a;
    axes.push_back(*n);
  }
  return axes;
}

LogicalResult applyAxes(NodeContext &c, ResizeSpec &s,
                        ArrayRef<int64_t> shape) {
  int64_t rank = shape.size();
  auto axesAttr = c.attrInts("axes");
  auto policy = c.attrString("keep_aspect_ratio_policy", "stretch");
  if (failed(axesAttr) || failed(policy))
    return failure();
  auto axesOr = resizeAxes(c, *axesAttr, rank);
  if (failed(axesOr))
    return failure();
  std::vector<int64_t> axes = *axesOr;
  size_t given = s.sizes.empty() ? s.scales.size() : s.sizes.size();
  if (given != axes.size())
    return c.error() << "'" << (s.sizes.empty() ? "scales" : "sizes")
                     << "' has " << given << " values, expected "
                     << axes.size();
  if (!s.roi.empty()) {
    if (s.roi.size() != 2 * axes.size())
      return c.error() << "'roi' has " << s.roi.size() << " values, expected "
                       << 2 * axes.size();
    std::vector<double> full(2 * rank, 0.0);
    std::fill(full.begin() + rank, full.end(), 1.0);
    for (size_t i = 0; i < axes.size(); ++i) {
      full[axes[i]] = s.roi[i];
      full[rank + axes[i]] = s.roi[axes.size() + i];
    }
    s.roi = full;
  }
  if (!s.scales.empty()) {
    std::vector<double> full(rank, 1.0);
    for (size_t i = 0; i < axes.size(); ++i)
      full[axes[i]] = s.scales[i];
    s.scales = full;
    return success();
  }
  std::vector<int64_t> full(shape.begin(), shape.end());
  for (size_t i = 0; i < axes.size(); ++i)
    full[axes[i]] = s.sizes[i];
  s.sizes = full;
  if (*policy == "stretch")
    return success();
  if (*policy != "not_larger" && *policy != "not_smaller")
    return c.error() << "attribute 'keep_aspect_ratio_policy' = '" << *policy
                     << "' is invalid (stretch, not_larger or not_smaller)";
  double scale = *policy == "not_larger" ? INFINITY : 0.0;
  for (int64_t a : axes) {
    if (shape[a] == 0)
      return c.error() << "keep_aspect_ratio_policy '" << *policy
                       << "' needs a non-empty dim " << a;
    double r = double(full[a]) / double(shape[a]);
    scale = *policy == "not_larger" ? std::min(scale, r) : std::max(scale, r);
  }
  if (!(scale > 0))
    return c.error() << "keep_aspect_ratio_policy '" << *policy
                     << "' gives scale " << scale << " (must be positive)";
  // One scale drives the coordinate mapping of every resized dim; the sizes
  // are rounded half up from it.
  s.coordinateScales.assign(rank, 1.0);
  for (int64_t a : axes) {
    s.sizes[a] = static_cast<int64_t>(scale * shape[a] + 0.5);
    s.coordinateScales[a] = scale;
  }
  return success();
}

/// True if input `i` is given, not a constant and not statically empty.
bool isRuntimeInput(NodeContext &c, size_t i) {
  if (!c.hasInput(i) || c.constantInput(i))
    return false;
  auto shape = c.inputShape(i);
  return !shape || shape->size() != 1 || (*shape)[0] != 0;
}

/// Resize-11+ whose 'scales' (input 2) or 'sizes' (input 3) is known at run
/// time only: top.Resize with the full-rank `target_value` operand. With
/// attribute 'axes', the runtime values are concatenated with the values of
/// the other dims (scale 1, or the input dim) and gathered into dim order.
LogicalResult convertRuntimeResize(NodeContext &c, ResizeSpec &s,
                                   ArrayRef<int64_t> shape, size_t i) {
  bool isSizes = i == 3;
  int64_t rank = shape.size();
  auto axesAttr = c.attrInts("axes");
  auto policy = c.attrString("keep_aspect_ratio_policy", "stretch");
  if (failed(axesAttr) || failed(policy))
    return failure();
  // The policy rounds all sizes from one scale: not done at run time.
  if (isSizes && *policy != "stretch")
    return notConstantError(c, i, "sizes");
  if (s.ctm == "tf_crop_and_resize" && !c.constantInput(1))
    return notConstantError(c, 1, "roi");
  if (s.ctm == "tf_crop_and_resize") {
    return c.error() << "coordinate_transformation_mode 'tf_crop_and_resize' "
                        "with a runtime '"
                     << (isSizes ? "sizes" : "scales")
                     << "' input is not supported";
  }
  auto axesOr = resizeAxes(c, *axesAttr, rank);
  if (failed(axesOr))
    return failure();
  std::vector<int64_t> axes = *axesOr;
  auto len = c.inputShape(i);
  int64_t n = axes.size();
  if (!len || len->size() != 1 || (*len)[0] != n)
    return c.error() << "a runtime '" << (isSizes ? "sizes" : "scales")
                     << "' input must be 1-D with " << n << " values";
  Value target = c.input(i);
  bool identity = true;
  for (int64_t k = 0; k < n; ++k)
    identity &= axes[k] == k;
  if (!identity || n != rank) {
    Type elem = c.inputElementType(i);
    auto dt = dtypeOf(elem);
    if (!dt)
      return c.error() << "'" << (isSizes ? "sizes" : "scales")
                       << "' has unsupported element type " << elem;
    Tensor defaults(*dt, {rank}), index(DType::I64, {rank});
    for (int64_t d = 0; d < rank; ++d) {
      defaults.setFromDouble(d, isSizes ? double(shape[d]) : 1.0);
      auto at = llvm::find(axes, d);
      index.data<int64_t>()[d] = at != axes.end() ? at - axes.begin() : n + d;
    }
    OpBuilder &b = c.builder();
    auto cat = c.create<ConcatOp>(
        elem, ValueRange{target, c.constant(defaults, "resize_defaults")},
        b.getI64IntegerAttr(0));
    if (failed(cat))
      return failure();
    auto full = c.create<GatherOp>(elem, *cat, c.constant(index, "resize_axes"),
                                   b.getI64IntegerAttr(0));
    if (failed(full))
      return failure();
    target = *full;
  }
  OpBuilder &b = c.builder();
  FailureOr<ResizeModes> m = resizeModes(c, s);
  if (failed(m))
    return failure();
  return emit<ResizeOp>(
      c, elemOf(c, 0), c.input(0), m->mode, m->ctm, m->nearest,
      DenseF64ArrayAttr(),
      DenseI64ArrayAttr(), b.getF64FloatAttr(s.cubicA),
      b.getBoolAttr(s.excludeOutside), b.getBoolAttr(s.antialias),
      DenseF64ArrayAttr(), b.getF64FloatAttr(s.extrapolation),
      DenseF64ArrayAttr(), target);
}

LogicalResult convertResize(NodeContext &c) {
  auto shape = c.requireShape(0);
  if (failed(shape))
    return failure();
  ResizeSpec s;
  if (failed(readResizeAttrs(c, s)))
    return failure();
  if (c.version() >= 11) {
    bool scalesRuntime = isRuntimeInput(c, 2);
    bool sizesRuntime = isRuntimeInput(c, 3);
    if (scalesRuntime && c.hasInput(3) && c.constantInput(3) &&
        c.constantInput(3)->numElements() != 0)
      return c.error() << "only one of 'scales' and 'sizes' may be given";
    if (sizesRuntime && scalesRuntime)
      return c.error() << "only one of 'scales' and 'sizes' may be given";
    if (scalesRuntime || sizesRuntime)
      return convertRuntimeResize(c, s, *shape, sizesRuntime ? 3 : 2);
  }
  if (c.version() < 11) {
    auto sc = constantFloats(c, 1, "scales");
    if (failed(sc))
      return failure();
    if (!*sc)
      return c.error() << "input 'scales' is required";
    s.scales = **sc;
    if (s.scales.size() != shape->size())
      return c.error() << "'scales' has " << s.scales.size()
                       << " values for a rank-" << shape->size() << " input";
    if (failed(legacyNearest(c, s)))
      return failure();
    return emitResize(c, s);
  }
  if (s.ctm == "tf_crop_and_resize") {
    auto roi = constantFloats(c, 1, "roi");
    if (failed(roi))
      return failure();
    if (!*roi)
      return c.error() << "coordinate_transformation_mode "
                          "'tf_crop_and_resize' requires the 'roi' input";
    s.roi = **roi;
  }
  auto sc = constantFloats(c, 2, "scales");
  if (failed(sc))
    return failure();
  if (c.hasInput(3)) {
    if (!c.constantInput(3))
      return notConstantError(c, 3, "sizes");
    auto sz = c.constantInts(3);
    if (!sz)
      return c.error() << "the 'sizes' input must hold integers";
    s.sizes = *sz;
  }
  if (*sc && !s.sizes.empty())
    return c.error() << "only one of 'scales' and 'sizes' may be given";
  if (*sc)
    s.scales = **sc;
  else if (s.sizes.empty())
    return c.error() << "one of 'scales' and 'sizes' is required";
  for (double v : s.scales)
    if (!(v > 0) || !std::isfinite(v))
      return c.error() << "'scales' value " << v
                       << " must be finite and positive";
  if (failed(applyAxes(c, s, *shape)))
    return failure();
  return emitResize(c, s);
}

const ConverterEntry kNNResize[] = {
    {"Resize", convertResize},
    {"Upsample", convertUpsample},
};
} // namespace

ArrayRef<ConverterEntry> nnResizeConverters() { return kNNResize; }

} // namespace strata::onnx_import
