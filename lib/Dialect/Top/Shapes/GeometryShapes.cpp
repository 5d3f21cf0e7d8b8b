//===- GeometryShapes.cpp - shape functions of the Geometry ops ----------===//

#include "strata/Dialect/Top/Shapes/GeometryShapes.h"
#include "strata/Dialect/Top/Shapes/ConvShapes.h"

#include <cmath>

namespace strata::top::shapes {

namespace {
/// `shape` if its element count fits int64, else countElements' error.
ShapeOr<Shape> checkedResult(Shape shape) {
  if (ShapeOr<int64_t> n = countElements(shape); !n)
    return ShapeOr<Shape>::errorOf(n);
  return shape;
}

/// The optional per-spatial-dim attribute `name` (`rank` values, each >=
/// `minValue`), or `dflt` repeated when absent.
ShapeOr<Shape> spatialAttr(const char *name, std::optional<Ints> values,
                           size_t rank, int64_t minValue, int64_t dflt) {
  if (!values)
    return Shape(rank, dflt);
  if (ShapeCheck c = checkIntsAttr(name, *values, rank, minValue))
    return *c;
  return values->vec();
}

/// Strides (`rank` values >= 1, default 1), dilations (likewise) and pads
/// (2 * `rank` values >= 0, default 0) of a window.
struct SpatialAttrs {
  Shape strides, dilations, pads;
};

ShapeOr<SpatialAttrs> spatialAttrs(std::optional<Ints> strides,
                                   std::optional<Ints> dilations,
                                   std::optional<Ints> pads, size_t rank) {
  ShapeOr<Shape> s = spatialAttr("strides", strides, rank, 1, 1);
  if (!s)
    return ShapeOr<SpatialAttrs>::errorOf(s);
  ShapeOr<Shape> d = spatialAttr("dilations", dilations, rank, 1, 1);
  if (!d)
    return ShapeOr<SpatialAttrs>::errorOf(d);
  ShapeOr<Shape> p = spatialAttr("pads", pads, 2 * rank, 0, 0);
  if (!p)
    return ShapeOr<SpatialAttrs>::errorOf(p);
  return SpatialAttrs{*s, *d, *p};
}
} // namespace

//===----------------------------------------------------------------------===//
// GridSample, AffineGrid
//===----------------------------------------------------------------------===//

ShapeOr<Shape> inferGridSample(Ints input, Ints grid, const std::string &mode,
                               const std::string &paddingMode) {
  if (ShapeCheck c =
          checkEnumAttr("mode", mode, {"linear", "nearest", "cubic"}))
    return *c;
  if (ShapeCheck c = checkEnumAttr("padding_mode", paddingMode,
                                   {"zeros", "border", "reflection"}))
    return *c;
  if (input.size() < 3)
    return ShapeError() << "input must have rank >= 3 (N, C, spatial...), "
                           "got shape "
                        << input;
  int64_t r = input.rank() - 2;
  if (grid.rank() != r + 2 || grid[0] != input[0] || grid.back() != r)
    return ShapeError() << "grid shape " << grid << " must be [N = " << input[0]
                        << ", " << r << " output spatial dims, " << r
                        << "] for input shape " << input;
  Shape out{input[0], input[1]};
  out.insert(out.end(), grid.begin() + 1, grid.end() - 1);
  return checkedResult(out);
}

ShapeOr<Shape> inferAffineGrid(Ints theta, Ints size) {
  if (theta.size() != 3 || (theta[1] != 2 && theta[1] != 3) ||
      theta[2] != theta[1] + 1)
    return ShapeError() << "theta must have shape [N, 2, 3] or [N, 3, 4], got "
                        << theta;
  int64_t r = theta[1];
  if (ShapeCheck c = checkIntsAttr("size", size, r + 2, 0))
    return *c;
  if (size[0] != theta[0])
    return ShapeError() << "attribute 'size' batch " << size[0]
                        << " must equal theta's batch " << theta[0];
  Shape out{theta[0]};
  out.insert(out.end(), size.begin() + 2, size.end());
  out.push_back(r);
  return checkedResult(out);
}

//===----------------------------------------------------------------------===//
// Col2Im
//===----------------------------------------------------------------------===//

ShapeOr<Col2ImGeometry> col2imGeometry(const Col2ImAttrs &attrs) {
  Col2ImGeometry g;
  size_t r = attrs.imageShape.size();
  if (r == 0)
    return ShapeError() << "attribute 'image_shape' must not be empty";
  if (ShapeCheck c = checkIntsAttr("image_shape", attrs.imageShape, r, 1))
    return *c;
  if (ShapeCheck c = checkIntsAttr("block_shape", attrs.blockShape, r, 1))
    return *c;
  g.image = attrs.imageShape.vec();
  g.block = attrs.blockShape.vec();
  ShapeOr<SpatialAttrs> s =
      spatialAttrs(attrs.strides, attrs.dilations, attrs.pads, r);
  if (!s)
    return ShapeOr<Col2ImGeometry>::errorOf(s);
  g.strides = s->strides;
  g.dilations = s->dilations;
  g.pads = s->pads;
  for (size_t d = 0; d < r; ++d) {
    ShapeOr<WindowExtent> e = windowExtent(
        d, g.image[d], g.block[d], g.dilations[d], g.pads[d], g.pads[r + d]);
    if (!e)
      return ShapeOr<Col2ImGeometry>::errorOf(e);
    if (e->padded < e->extent)
      return ShapeError() << "block extent " << e->extent
                          << " exceeds the padded image " << e->padded
                          << " in dim " << d;
    g.blocks.push_back((e->padded - e->extent) / g.strides[d] + 1);
  }
  return g;
}

ShapeOr<Shape> inferCol2Im(Ints input, const Col2ImAttrs &attrs) {
  if (input.size() != 3)
    return ShapeError() << "input must have rank 3 (N, C * prod(block), L), "
                           "got shape "
                        << input;
  ShapeOr<Col2ImGeometry> g = col2imGeometry(attrs);
  if (!g)
    return ShapeOr<Shape>::errorOf(g);
  ShapeOr<int64_t> k = countElements(g->block);
  if (!k)
    return ShapeOr<Shape>::errorOf(k);
  ShapeOr<int64_t> l = countElements(g->blocks);
  if (!l)
    return ShapeOr<Shape>::errorOf(l);
  if (input[1] % *k != 0)
    return ShapeError() << "input dim 1 (" << input[1]
                        << ") must be divisible by prod(block_shape) = " << *k;
  if (input[2] != *l)
    return ShapeError() << "input dim 2 (" << input[2]
                        << ") must equal the number of sliding blocks "
                        << g->blocks << " = " << *l;
  Shape out{input[0], input[1] / *k};
  out.insert(out.end(), g->image.begin(), g->image.end());
  return checkedResult(out);
}

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

ShapeOr<Shape> inferRoiAlign(Ints input, Ints rois, Ints batchIndices,
                             const RoiAlignAttrs &attrs) {
  if (ShapeCheck c = checkEnumAttr("coordinate_transformation_mode",
                                   attrs.coordinateTransformationMode,
                                   {"half_pixel", "output_half_pixel"}))
    return *c;
  if (ShapeCheck c = checkEnumAttr("mode", attrs.mode, {"avg", "max"}))
    return *c;
  if (input.size() != 4)
    return ShapeError() << "input must have rank 4 (N, C, H, W), got shape "
                        << input;
  if (rois.size() != 2 || rois[1] != 4)
    return ShapeError() << "rois must have shape [R, 4], got " << rois;
  if (batchIndices.size() != 1 || batchIndices[0] != rois[0])
    return ShapeError() << "batch_indices must have shape [" << rois[0]
                        << "] (one per roi), got " << batchIndices;
  int64_t oh = attrs.outputHeight, ow = attrs.outputWidth,
          sr = attrs.samplingRatio;
  if (oh < 1 || ow < 1)
    return ShapeError() << "attributes 'output_height' = " << oh
                        << " and 'output_width' = " << ow << " must be >= 1";
  if (sr < 0 || sr > 4096)
    return ShapeError() << "attribute 'sampling_ratio' = " << sr
                        << " must be in [0, 4096]";
  if (!std::isfinite(attrs.spatialScale))
    return ShapeError() << "attribute 'spatial_scale' = " << attrs.spatialScale
                        << " must be finite";
  return checkedResult({rois[0], input[1], oh, ow});
}

//===----------------------------------------------------------------------===//
// DeformConv
//===----------------------------------------------------------------------===//

ShapeOr<DeformConvGeometry> deformConvGeometry(Ints input, Ints filter,
                                               const DeformConvAttrs &attrs) {
  if (input.size() != 4)
    return ShapeError() << "input must have rank 4 (N, C, H, W; only 2-d "
                           "deformable convolution), got shape "
                        << input;
  if (filter.size() != 4)
    return ShapeError() << "filter must have rank 4 (M, C/group, kH, kW), "
                           "got shape "
                        << filter;
  ShapeOr<SpatialAttrs> s =
      spatialAttrs(attrs.strides, attrs.dilations, attrs.pads, 2);
  if (!s)
    return ShapeOr<DeformConvGeometry>::errorOf(s);
  DeformConvGeometry g{s->strides, s->pads, s->dilations};
  int64_t outDims[2];
  for (size_t d = 0; d < 2; ++d) {
    ShapeOr<WindowExtent> e =
        windowExtent(d, input[2 + d], filter[2 + d], g.dilations[d], g.pads[d],
                     g.pads[2 + d]);
    if (!e)
      return ShapeOr<DeformConvGeometry>::errorOf(e);
    if (filter[2 + d] < 1 || e->padded < e->extent)
      return ShapeError() << "kernel extent " << e->extent
                          << " exceeds the padded input " << e->padded
                          << " in spatial dim " << d;
    outDims[d] = (e->padded - e->extent) / g.strides[d] + 1;
  }
  g.oh = outDims[0];
  g.ow = outDims[1];
  return g;
}

namespace {
/// Checks DeformConv's groups against the input channels and filter.
ShapeCheck checkDeformGroups(Ints in, Ints w, int64_t group, int64_t og) {
  if (group < 1 || og < 1)
    return ShapeError() << "attributes 'group' = " << group
                        << " and 'offset_group' = " << og << " must be >= 1";
  if (in[1] % group != 0 || w[1] != in[1] / group || w[0] % group != 0)
    return ShapeError() << "input channels " << in[1] << ", filter shape " << w
                        << " and group " << group
                        << " do not match (need C = filter[1] * group and "
                           "M divisible by group)";
  if (in[1] % og != 0)
    return ShapeError() << "input channels " << in[1]
                        << " must be divisible by 'offset_group' = " << og;
  return std::nullopt;
}
} // namespace

ShapeOr<Shape> inferDeformConv(Ints input, Ints filter, Ints offset,
                               std::optional<Ints> mask,
                               std::optional<Ints> bias,
                               const DeformConvAttrs &attrs) {
  ShapeOr<DeformConvGeometry> g = deformConvGeometry(input, filter, attrs);
  if (!g)
    return ShapeOr<Shape>::errorOf(g);
  if (ShapeCheck c =
          checkDeformGroups(input, filter, attrs.group, attrs.offsetGroup))
    return *c;
  int64_t n = input[0], og = attrs.offsetGroup, taps = filter[2] * filter[3];
  Shape wantOffset{n, og * taps * 2, g->oh, g->ow};
  if (offset != wantOffset)
    return ShapeError() << "offset shape " << offset << " must be "
                        << wantOffset;
  Shape wantMask{n, og * taps, g->oh, g->ow};
  if (mask && *mask != wantMask)
    return ShapeError() << "mask shape " << *mask << " must be " << wantMask;
  if (bias && *bias != Shape{filter[0]})
    return ShapeError() << "bias shape " << *bias << " must be [" << filter[0]
                        << "]";
  return checkedResult({n, filter[0], g->oh, g->ow});
}

} // namespace strata::top::shapes
