//===- GeometryShapes.cpp - shape functions of the Geometry ops ------------------===//

#include "strata/Dialect/Top/Shapes/GeometryShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
