//===- CoreShapes.cpp - shape functions of the Core ops -------------------===//

#include "strata/Dialect/Top/Shapes/CoreShapes.h"

namespace strata::top::shapes {

ShapeOr<Shape> inferWeight(Ints declared) {
  ShapeOr<int64_t> count = checkedShapeElementCount(declared);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return declared.vec();
}

ShapeOr<Shape> inferNone() { return Shape(); }

} // namespace strata::top::shapes
