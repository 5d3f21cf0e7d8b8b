//===- DataDependentShapes.cpp - shape functions of the DataDependent ops -===//

#include "strata/Dialect/Top/Shapes/DataDependentShapes.h"
#include "strata/Dialect/Top/Shapes/ShapeShapes.h"

#include <cmath>
#include <tuple>

namespace strata::top::shapes {

bool isNonZeroElement(const Tensor &t, int64_t i) {
  return t.getAsDouble(i) != 0.0;
}

ShapeOr<Shape> inferNonZero(Ints inputShape, const Tensor *input) {
  if (!input)
    return Shape{inputShape.rank(), kDynamicDim};
  int64_t n = 0;
  for (int64_t i = 0; i < input->numElements(); ++i)
    n += isNonZeroElement(*input, i);
  return Shape{inputShape.rank(), n};
}

ShapeOr<int64_t> rangeCount(const Tensor &start, const Tensor &limit,
                            const Tensor &delta) {
  if (isFloat(delta.dtype())) {
    double d = delta.getAsDouble(0);
    if (d == 0.0)
      return ShapeError() << "operand 'delta' is 0";
    double count = std::ceil((limit.getAsDouble(0) - start.getAsDouble(0)) / d);
    // NaN (a NaN or infinite operand) fails this test too.
    if (!(count < 9.2e18))
      return ShapeError() << "a range of " << count << " elements is too large";
    return count > 0 ? static_cast<int64_t>(count) : int64_t(0);
  }
  int64_t d = delta.getAsInt(0), span;
  if (d == 0)
    return ShapeError() << "operand 'delta' is 0";
  if (__builtin_sub_overflow(limit.getAsInt(0), start.getAsInt(0), &span))
    return ShapeError() << "the range from " << start.getAsInt(0) << " to "
                        << limit.getAsInt(0) << " overflows int64";
  // Ceiling division in integers (no float rounding); d = -1 with span =
  // INT64_MIN cannot occur (span is a difference that did not overflow).
  int64_t q = span / d;
  if (q * d != span && ((span < 0) == (d < 0)))
    ++q;
  return std::max<int64_t>(0, q);
}

ShapeOr<Shape> inferRange(Ints start, Ints limit, Ints delta,
                          const Tensor *startValue, const Tensor *limitValue,
                          const Tensor *deltaValue) {
  for (auto [name, shape] :
       {std::pair{"start", start}, std::pair{"limit", limit},
        std::pair{"delta", delta}})
    if (shape.rank() != 0)
      return ShapeError() << "operand '" << name << "' has shape " << shape
                          << "; it must be a scalar (shape [])";
  if (!startValue || !limitValue || !deltaValue)
    return Shape{kDynamicDim};
  ShapeOr<int64_t> n = rangeCount(*startValue, *limitValue, *deltaValue);
  if (!n)
    return ShapeOr<Shape>::errorOf(n);
  if (ShapeCheck c = checkRuntimeResultSize(Shape{*n}))
    return *c;
  return Shape{*n};
}

ShapeOr<Shapes> inferUnique(Ints input, std::optional<int64_t> axisAttr) {
  ShapeOr<int64_t> count = staticElementCount(input);
  if (!count)
    return ShapeOr<Shapes>::errorOf(count);
  Shape out{kDynamicDim};
  int64_t positions = *count;
  if (axisAttr) {
    ShapeOr<int64_t> axis = normalizeAxisAttr("axis", *axisAttr, input.rank());
    if (!axis)
      return ShapeOr<Shapes>::errorOf(axis);
    out = input.vec();
    out[*axis] = kDynamicDim;
    positions = input[*axis];
  }
  return Shapes{out, {kDynamicDim}, {positions}, {kDynamicDim}};
}

ShapeOr<Shape> inferNonMaxSuppression(Ints boxes, Ints scores,
                                      const NonMaxSuppressionScalars &scalars,
                                      int64_t centerPointBox) {
  if (boxes.size() != 3 || boxes[2] != 4)
    return ShapeError() << "'boxes' shape " << boxes
                        << " must be [batches, boxes, 4]";
  if (scores.size() != 3 || scores[0] != boxes[0] || scores[2] != boxes[1])
    return ShapeError() << "'scores' shape " << scores << " must be ["
                        << boxes[0] << ", classes, " << boxes[1]
                        << "] for 'boxes' shape " << boxes;
  for (auto [shape, name] :
       {std::tuple(&scalars.maxOutputBoxesPerClass,
                   "max_output_boxes_per_class"),
        std::tuple(&scalars.iouThreshold, "iou_threshold"),
        std::tuple(&scalars.scoreThreshold, "score_threshold")}) {
    if (!*shape)
      continue;
    ShapeOr<int64_t> n = staticElementCount(**shape);
    if (!n)
      return ShapeOr<Shape>::errorOf(n);
    if (*n != 1)
      return ShapeError() << "operand '" << name
                          << "' must hold one value, has shape " << **shape;
  }
  if (centerPointBox != 0 && centerPointBox != 1)
    return ShapeError() << "attribute 'center_point_box' = " << centerPointBox
                        << " must be 0 or 1";
  return Shape{kDynamicDim, 3};
}

} // namespace strata::top::shapes
