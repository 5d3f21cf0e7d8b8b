//===- LinalgShapes.cpp - shape functions of the Linalg ops ---------------===//

#include "strata/Dialect/Top/Shapes/LinalgShapes.h"

namespace strata::top::shapes {

ShapeOr<Shape> inferDet(Ints input) {
  size_t rank = input.size();
  if (rank < 2 || input[rank - 1] != input[rank - 2])
    return ShapeError() << "operand 'input' shape " << input
                        << " must be [*, M, M] (rank >= 2, square)";
  return input.slice(0, rank - 2).vec();
}

ShapeOr<Shape> inferLRN(Ints input) {
  if (input.size() < 3)
    return ShapeError() << "operand 'input' shape " << input
                        << " must have rank >= 3 (N x C x D1..)";
  return input.vec();
}

} // namespace strata::top::shapes
