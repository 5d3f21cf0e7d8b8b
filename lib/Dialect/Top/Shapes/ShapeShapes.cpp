//===- ShapeShapes.cpp - shape functions of the Shape ops ------------------===//

#include "strata/Dialect/Top/Shapes/ShapeShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
