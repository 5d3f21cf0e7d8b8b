//===- DataDependentShapes.cpp - shape functions of the DataDependent ops -===//

#include "strata/Dialect/Top/Shapes/DataDependentShapes.h"
#include "strata/Dialect/Top/Shapes/ShapeShapes.h"

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
