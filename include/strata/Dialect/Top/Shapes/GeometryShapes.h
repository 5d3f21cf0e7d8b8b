//===- GeometryShapes.h - shape functions of the Geometry ops --*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/GeometryOps.cpp
// (GridSample, AffineGrid, Col2Im, RoiAlign, DeformConv); see
// strata/Support/ShapeFunction.h for the conventions. The element types
// (float operands, integer batch indices) are checked by the ops.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_GEOMETRYSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_GEOMETRYSHAPES_H

#include "strata/Support/ShapeFunction.h"

#include <string>

namespace strata::top::shapes {

/// GridSample: `[N, C, out spatial..]` for input `[N, C, D..]` and grid
/// `[N, out spatial.., r]` (r spatial dims); `mode` and `paddingMode` are
/// checked.
ShapeOr<Shape> inferGridSample(Ints input, Ints grid, const std::string &mode,
                               const std::string &paddingMode);

/// AffineGrid: `[N, size[2..], r]` for theta `[N, r, r + 1]` (r = 2 or 3)
/// and attribute 'size' `[N, C, r spatial dims]`.
ShapeOr<Shape> inferAffineGrid(Ints theta, Ints size);

/// Attributes of top.Col2Im (absent optional ones unset).
struct Col2ImAttrs {
  Ints imageShape, blockShape;
  std::optional<Ints> strides, pads, dilations;
};

/// Col2Im's geometry: attributes checked and defaulted, and the number of
/// sliding blocks along each image dim.
struct Col2ImGeometry {
  Shape image, block, strides, pads, dilations, blocks;
};

/// The geometry of Col2Im's attributes (no operand shape needed).
ShapeOr<Col2ImGeometry> col2imGeometry(const Col2ImAttrs &attrs);

/// Col2Im: `[N, C, image..]` for input `[N, C * prod(block), L]`, L the
/// number of sliding blocks.
ShapeOr<Shape> inferCol2Im(Ints input, const Col2ImAttrs &attrs);

/// Attributes of top.RoiAlign.
struct RoiAlignAttrs {
  std::string coordinateTransformationMode = "half_pixel", mode = "avg";
  int64_t outputHeight = 1, outputWidth = 1, samplingRatio = 0;
  double spatialScale = 1.0;
};

/// RoiAlign: `[R, C, output_height, output_width]` for input `[N, C, H, W]`,
/// rois `[R, 4]` and batch indices `[R]`.
ShapeOr<Shape> inferRoiAlign(Ints input, Ints rois, Ints batchIndices,
                             const RoiAlignAttrs &attrs);

/// Attributes of top.DeformConv (absent optional ones unset).
struct DeformConvAttrs {
  std::optional<Ints> strides, pads, dilations;
  int64_t group = 1, offsetGroup = 1;
};

/// DeformConv's geometry: window attributes checked and defaulted, and the
/// output height and width.
struct DeformConvGeometry {
  Shape strides, pads, dilations;
  int64_t oh = 0, ow = 0;
};

/// The geometry of a 2-d deformable convolution of input `[N, C, H, W]` with
/// filter `[M, C / group, kH, kW]`.
ShapeOr<DeformConvGeometry> deformConvGeometry(Ints input, Ints filter,
                                               const DeformConvAttrs &attrs);

/// DeformConv: `[N, M, oh, ow]`; offset `[N, offset_group * kH * kW * 2, oh,
/// ow]`, mask (when given) `[N, offset_group * kH * kW, oh, ow]`, bias (when
/// given) `[M]`.
ShapeOr<Shape> inferDeformConv(Ints input, Ints filter, Ints offset,
                               std::optional<Ints> mask,
                               std::optional<Ints> bias,
                               const DeformConvAttrs &attrs);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_GEOMETRYSHAPES_H
