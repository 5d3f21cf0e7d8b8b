//===- IndexShapes.cpp - shape functions of the Index ops -----------------===//

#include "strata/Dialect/Top/Shapes/IndexShapes.h"

#include <algorithm>

namespace strata::top::shapes {

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

std::optional<ShapeError> checkSliceAttrs(const SliceAttrs &attrs,
                                          bool hasBoundsValue) {
  size_t n = attrs.starts.size();
  if (hasBoundsValue &&
      (n != 0 || !attrs.ends.empty() || attrs.axes || attrs.steps))
    return ShapeError() << "takes the window from operand 'bounds_value' "
                           "or from attributes 'starts', 'ends', 'axes', "
                           "'steps', not both";
  if (auto err = checkIntsAttr("ends", attrs.ends, n, INT64_MIN))
    return err;
  if (attrs.axes)
    if (auto err = checkIntsAttr("axes", *attrs.axes, n, INT64_MIN))
      return err;
  if (!attrs.steps)
    return std::nullopt;
  Ints steps = *attrs.steps;
  if (auto err = checkIntsAttr("steps", steps, n, INT64_MIN))
    return err;
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i] == 0)
      return ShapeError() << "attribute 'steps' value 0 at index " << i
                          << " must be non-zero (got " << steps << ")";
  return std::nullopt;
}

namespace {
/// A slice's parameters, one entry per sliced dim, with axes normalized
/// and defaults filled in.
struct SliceParams {
  Shape starts, ends, axes, steps;
};

/// One sliced dim: the first input index read and the number read.
struct SliceRange {
  int64_t start = 0, size = 0;
};
} // namespace

/// ONNX Slice on one dim of `dim` elements (see the op description).
static SliceRange sliceRange(int64_t dim, int64_t start, int64_t end,
                             int64_t step) {
  if (dim == 0)
    return {};
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    if (end <= start)
      return {start, 0};
    return {start, (end - start - 1) / step + 1};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  if (end >= start)
    return {start, 0};
  // -step may overflow for INT64_MIN: divide as unsigned.
  uint64_t stepAbs = 0 - static_cast<uint64_t>(step);
  return {start, static_cast<int64_t>(
                     static_cast<uint64_t>(start - end - 1) / stepAbs + 1)};
}

/// Checks that `bounds_value` slices at most `rank` dims.
static std::optional<ShapeError> checkBoundsCount(int64_t n, int64_t rank) {
  if (n > rank)
    return ShapeError() << "operand 'bounds_value' slices " << n
                        << " dims but the input has rank " << rank;
  return std::nullopt;
}

/// The parameters from the attributes (checked by checkSliceAttrs).
static ShapeOr<SliceParams> attrParams(const SliceAttrs &attrs, int64_t rank) {
  size_t n = attrs.starts.size();
  if (!attrs.axes && attrs.starts.rank() > rank)
    return ShapeError() << "attribute 'starts' has " << n
                        << " values but the input has rank " << rank;
  SliceParams p{attrs.starts.vec(), attrs.ends.vec(), {}, {}};
  if (attrs.axes)
    p.axes = attrs.axes->vec();
  else
    for (size_t i = 0; i < n; ++i)
      p.axes.push_back(static_cast<int64_t>(i));
  ShapeOr<Shape> axes = normalizeAxesAttr("axes", p.axes, rank);
  if (!axes)
    return ShapeOr<SliceParams>::errorOf(axes);
  p.axes = *axes;
  p.steps = attrs.steps ? attrs.steps->vec() : Shape(n, 1);
  return p;
}

/// The parameters from the [4, n] runtime tensor `bounds`.
static ShapeOr<SliceParams> boundsParams(const Tensor &bounds, int64_t rank) {
  if (bounds.rank() != 2 || bounds.dim(0) != 4)
    return ShapeError() << "operand 'bounds_value' must have shape [4, n], got "
                        << bounds.shape();
  int64_t n = bounds.dim(1);
  if (auto err = checkBoundsCount(n, rank))
    return *err;
  Shape v = tensorInts(bounds);
  auto row = [&](int64_t r) {
    return Shape(v.begin() + r * n, v.begin() + (r + 1) * n);
  };
  SliceParams p{row(0), row(1), {}, row(3)};
  ShapeOr<Shape> axes =
      normalizeAxesOperand("bounds_value (axes)", row(2), rank);
  if (!axes)
    return ShapeOr<SliceParams>::errorOf(axes);
  p.axes = *axes;
  if (std::find(p.steps.begin(), p.steps.end(), 0) != p.steps.end())
    return ShapeError() << "operand 'bounds_value' has steps " << p.steps
                        << " with a 0";
  return p;
}

ShapeOr<SliceWindow> sliceWindow(Ints input, const SliceAttrs &attrs,
                                 const Tensor *bounds) {
  if (auto err = checkSliceAttrs(attrs, bounds != nullptr))
    return *err;
  ShapeOr<SliceParams> p = bounds ? boundsParams(*bounds, input.rank())
                                  : attrParams(attrs, input.rank());
  if (!p)
    return ShapeOr<SliceWindow>::errorOf(p);
  SliceWindow w{Shape(input.size(), 0), input.vec(), Shape(input.size(), 1)};
  for (size_t i = 0; i < p->axes.size(); ++i) {
    int64_t a = p->axes[i];
    SliceRange r = sliceRange(input[a], p->starts[i], p->ends[i], p->steps[i]);
    w.starts[a] = r.start;
    w.sizes[a] = r.size;
    w.steps[a] = p->steps[i];
  }
  return w;
}

ShapeOr<Shape> inferSlice(Ints input, const SliceAttrs &attrs,
                          const std::optional<RuntimeValue> &boundsValue) {
  if (boundsValue && !boundsValue->tensor) {
    if (auto err = checkSliceAttrs(attrs, true))
      return *err;
    if (auto err = checkBoundsCount(boundsValue->shape[1], input.rank()))
      return *err;
    return Shape(input.size(), kDynamicDim);
  }
  ShapeOr<SliceWindow> w =
      sliceWindow(input, attrs, boundsValue ? boundsValue->tensor : nullptr);
  if (!w)
    return ShapeOr<Shape>::errorOf(w);
  return w->sizes;
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

ShapeOr<Shape> inferGather(Ints input, Ints indices, int64_t axisAttr) {
  ShapeOr<int64_t> axis = normalizeAxisAttr("axis", axisAttr, input.rank());
  if (!axis)
    return ShapeOr<Shape>::errorOf(axis);
  Shape out(input.begin(), input.begin() + *axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), input.begin() + *axis + 1, input.end());
  ShapeOr<int64_t> count = staticElementCount(out);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return out;
}

} // namespace strata::top::shapes
