//===- ElementwiseShapes.cpp - shape functions of the Elementwise ops -----===//

#include "strata/Dialect/Top/Shapes/ElementwiseShapes.h"

namespace strata::top::shapes {

ShapeOr<Shape> inferBinary(Ints lhs, Ints rhs) {
  return broadcastShape(lhs, rhs);
}

ShapeOr<Shape> inferWhere(Ints cond, Ints x, Ints y) {
  ShapeOr<Shape> cx = broadcastShape(cond, x);
  if (!cx)
    return cx;
  return broadcastShape(*cx, y);
}

ShapeOr<Shape> inferUnary(Ints input) { return input.vec(); }

} // namespace strata::top::shapes
