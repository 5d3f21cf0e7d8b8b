//===- ActivationShapes.cpp - shape functions of the Activation ops -------===//

#include "strata/Dialect/Top/Shapes/ActivationShapes.h"

namespace strata::top::shapes {

ShapeOr<Shape> inferPRelu(Ints input, Ints slope) {
  bool ok = slope.size() <= input.size();
  for (size_t i = 0; ok && i < slope.size(); ++i) {
    int64_t d = slope[slope.size() - 1 - i];
    ok = d == 1 || d == input[input.size() - 1 - i];
  }
  if (!ok)
    return ShapeError() << "operand 'slope' shape " << slope
                        << " does not broadcast to operand 'input' shape "
                        << input;
  return input.vec();
}

} // namespace strata::top::shapes
