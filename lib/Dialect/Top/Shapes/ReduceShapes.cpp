//===- ReduceShapes.cpp - shape functions of the Reduce ops ---------------===//

#include "strata/Dialect/Top/Shapes/ReduceShapes.h"
#include "strata/Support/Tensor.h"

namespace strata::top::shapes {

namespace {
/// `input` reduced over the normalized `axes` (every dim if empty).
Shape reducedShape(Ints input, Ints axes, bool keepdims) {
  std::vector<bool> reduced = reducedDims(input.rank(), axes);
  Shape out;
  for (size_t d = 0; d < input.size(); ++d)
    if (!reduced[d])
      out.push_back(input[d]);
    else if (keepdims)
      out.push_back(1);
  return out;
}

/// The result of reducing `input` over `length` axes not known yet: with
/// keepdims any dim may become 1 (a dim of 1 stays 1), without it the rank
/// drops by `length`.
Shape unknownAxesShape(Ints input, int64_t length, bool keepdims) {
  if (!keepdims)
    return Shape(input.size() - length, kDynamicDim);
  Shape out;
  for (int64_t d : input)
    out.push_back(d == 1 ? 1 : kDynamicDim);
  return out;
}
} // namespace

std::vector<bool> reducedDims(int64_t rank, Ints axes) {
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes)
    reduced[a] = true;
  return reduced;
}

ShapeOr<Shape> reduceAxes(int64_t rank, Ints axes, const Tensor *axesValue) {
  if (axesValue)
    return normalizeAxesOperand("axes_value", tensorInts(*axesValue), rank);
  return normalizeAxesAttr("axes", axes, rank);
}

ShapeOr<Shape> inferReduce(Ints input, Ints axes, bool keepdims,
                           std::optional<RuntimeAxes> axesValue) {
  int64_t rank = input.rank();
  if (axesValue && axesValue->length > rank)
    return ShapeError() << "operand 'axes_value' holds " << axesValue->length
                        << " axes but the input has rank " << rank;
  if (axesValue && axesValue->length != 0 && !axesValue->values)
    return unknownAxesShape(input, axesValue->length, keepdims);
  ShapeOr<Shape> normalized =
      reduceAxes(rank, axes, axesValue ? axesValue->values : nullptr);
  if (!normalized)
    return normalized;
  Shape out = reducedShape(input, *normalized, keepdims);
  ShapeOr<int64_t> count = checkedShapeElementCount(out);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return out;
}

ShapeOr<Shape> inferArgMax(Ints input, int64_t axis, bool keepdims) {
  ShapeOr<int64_t> dim = normalizeAxisAttr("axis", axis, input.rank());
  if (!dim)
    return ShapeOr<Shape>::errorOf(dim);
  if (input[*dim] == 0)
    return ShapeError() << "attribute 'axis' = " << axis
                        << " selects the empty dim " << *dim
                        << "; argmax needs at least one element";
  Shape out = input.vec();
  if (keepdims)
    out[*dim] = 1;
  else
    out.erase(out.begin() + *dim);
  return out;
}

} // namespace strata::top::shapes
