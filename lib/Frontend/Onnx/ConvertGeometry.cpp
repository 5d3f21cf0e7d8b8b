//===- ConvertGeometry.cpp - ONNX image-geometry ops to Top ---------------===//
//
// The Geometry family (TopGeometryOps.td): GridSample, AffineGrid, Col2Im,
// RoiAlign and DeformConv each map onto the Top op of the same name; the
// inputs that determine an output shape must be constants.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

/// Input `i` as a constant list of integers; the error names the input and
/// its graph value (so that it can be frozen with --freeze-inputs).
FailureOr<std::vector<int64_t>> requireConstantInts(NodeContext &c, size_t i,
                                                    StringRef what) {
  if (!c.hasInput(i))
    return c.error() << "input '" << what << "' is required";
  if (!c.constantInput(i))
    return c.error() << "the '" << what << "' input (value '"
                     << c.node().input(i)
                     << "') must be a constant: it determines the output "
                        "shape (freeze it with --freeze-inputs)";
  auto v = c.constantInts(i);
  if (!v)
    return c.error() << "the '" << what << "' input must hold integers";
  return *v;
}

/// An optional integer-list attribute as a DenseI64ArrayAttr (null if
/// absent).
FailureOr<DenseI64ArrayAttr> optionalInts(NodeContext &c, StringRef name) {
  auto v = c.attrInts(name);
  if (failed(v))
    return failure();
  if (!*v)
    return DenseI64ArrayAttr();
  return c.builder().getDenseI64ArrayAttr(**v);
}

/// An integer attribute that must be 0 or 1.
FailureOr<bool> boolAttr(NodeContext &c, StringRef name, int64_t dflt) {
  auto v = c.attrInt(name, dflt);
  if (failed(v))
    return failure();
  if (*v != 0 && *v != 1)
    return c.error() << "attribute '" << name << "' = " << *v
                     << " is invalid (0 or 1)";
  return *v == 1;
}

//===----------------------------------------------------------------------===//
// GridSample, AffineGrid
//===----------------------------------------------------------------------===//

LogicalResult convertGridSample(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto mode = c.attrString("mode", c.version() < 20 ? "bilinear" : "linear");
  auto pad = c.attrString("padding_mode", "zeros");
  auto align = boolAttr(c, "align_corners", 0);
  if (failed(rank) || failed(mode) || failed(pad) || failed(align))
    return failure();
  // Opset 16 names the modes bilinear/bicubic; opset 20 linear/cubic.
  std::string m = *mode;
  if (c.version() < 20 && (m == "bilinear" || m == "bicubic"))
    m = m == "bilinear" ? "linear" : "cubic";
  else if (c.version() < 20 && m != "nearest")
    return c.error() << "attribute 'mode' = '" << *mode
                     << "' is invalid (bilinear, nearest or bicubic)";
  if (m != "linear" && m != "nearest" && m != "cubic")
    return c.error() << "attribute 'mode' = '" << *mode
                     << "' is invalid (linear, nearest or cubic)";
  if (*pad != "zeros" && *pad != "border" && *pad != "reflection")
    return c.error() << "attribute 'padding_mode' = '" << *pad
                     << "' is invalid (zeros, border or reflection)";
  if (c.version() < 20 && *rank != 4)
    return c.error() << "input must have rank 4 before opset 20, got rank "
                     << *rank;
  OpBuilder &b = c.builder();
  return emit<GridSampleOp>(c, elemOf(c, 0), c.input(0), c.input(1),
                            InterpolationAttr::get(b.getContext(),
                                                   *symbolizeInterpolation(m)),
                            GridPaddingAttr::get(b.getContext(),
                                                 *symbolizeGridPadding(*pad)),
                            b.getBoolAttr(*align));
}

LogicalResult convertAffineGrid(NodeContext &c) {
  auto size = requireConstantInts(c, 1, "size");
  auto align = boolAttr(c, "align_corners", 0);
  if (failed(size) || failed(align))
    return failure();
  OpBuilder &b = c.builder();
  return emit<AffineGridOp>(c, elemOf(c, 0), c.input(0),
                            b.getDenseI64ArrayAttr(*size),
                            b.getBoolAttr(*align));
}

//===----------------------------------------------------------------------===//
// Col2Im
//===----------------------------------------------------------------------===//

LogicalResult convertCol2Im(NodeContext &c) {
  auto image = requireConstantInts(c, 1, "image_shape");
  if (failed(image))
    return failure();
  auto block = requireConstantInts(c, 2, "block_shape");
  auto strides = optionalInts(c, "strides");
  auto pads = optionalInts(c, "pads");
  auto dilations = optionalInts(c, "dilations");
  if (failed(block) || failed(strides) || failed(pads) || failed(dilations))
    return failure();
  OpBuilder &b = c.builder();
  return emit<Col2ImOp>(c, elemOf(c, 0), c.input(0),
                        b.getDenseI64ArrayAttr(*image),
                        b.getDenseI64ArrayAttr(*block), *strides, *pads,
                        *dilations);
}

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

LogicalResult convertRoiAlign(NodeContext &c) {
  // Opset 10 had no coordinate_transformation_mode and behaved as
  // output_half_pixel.
  auto ctm = c.attrEnum<RoiCoordinateMode>(
      "coordinate_transformation_mode",
      c.version() < 16 ? "output_half_pixel" : "half_pixel");
  auto mode = c.attrEnum<RoiPoolMode>("mode", "avg");
  auto oh = c.attrInt("output_height", 1);
  auto ow = c.attrInt("output_width", 1);
  auto sr = c.attrInt("sampling_ratio", 0);
  auto scale = c.attrFloat("spatial_scale", 1.0f);
  if (failed(ctm) || failed(mode) || failed(oh) || failed(ow) || failed(sr) ||
      failed(scale))
    return failure();
  OpBuilder &b = c.builder();
  return emit<RoiAlignOp>(
      c, elemOf(c, 0), c.input(0), c.input(1), c.input(2),
      RoiCoordinateModeAttr::get(b.getContext(), *ctm),
      RoiPoolModeAttr::get(b.getContext(), *mode), b.getI64IntegerAttr(*oh),
      b.getI64IntegerAttr(*ow), b.getI64IntegerAttr(*sr),
      b.getF64FloatAttr(*scale));
}

//===----------------------------------------------------------------------===//
// DeformConv
//===----------------------------------------------------------------------===//

LogicalResult convertDeformConv(NodeContext &c) {
  auto w = c.requireShape(1);
  auto kernel = c.attrInts("kernel_shape");
  auto strides = optionalInts(c, "strides");
  auto pads = optionalInts(c, "pads");
  auto dilations = optionalInts(c, "dilations");
  auto group = c.attrInt("group", 1);
  auto og = c.attrInt("offset_group", 1);
  if (failed(w) || failed(kernel) || failed(strides) || failed(pads) ||
      failed(dilations) || failed(group) || failed(og))
    return failure();
  if (*kernel && (w->size() < 2 ||
                  ArrayRef<int64_t>(**kernel) != ArrayRef(*w).drop_front(2)))
    return c.error() << "attribute 'kernel_shape' "
                     << formatArray(**kernel)
                     << " does not match the weight shape "
                     << formatArray(*w);
  OpBuilder &b = c.builder();
  return emit<DeformConvOp>(c, elemOf(c, 0), c.input(0), c.input(1),
                            c.input(2), c.input(3), c.input(4), *strides,
                            *pads, *dilations, b.getI64IntegerAttr(*group),
                            b.getI64IntegerAttr(*og));
}

const ConverterEntry kGeometry[] = {
    {"GridSample", convertGridSample},
    {"AffineGrid", convertAffineGrid},
    {"Col2Im", convertCol2Im},
    {"RoiAlign", convertRoiAlign},
    {"DeformConv", convertDeformConv},
};

} // namespace

ArrayRef<ConverterEntry> geometryConverters() { return kGeometry; }

} // namespace strata::onnx_import
