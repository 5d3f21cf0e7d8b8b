//===- TypeShapes.cpp - shape functions of the Type ops -------------------===//

#include "strata/Dialect/Top/Shapes/TypeShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
