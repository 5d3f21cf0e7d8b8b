//===- SelectShapes.cpp - shape functions of the Select ops ------------------===//

#include "strata/Dialect/Top/Shapes/SelectShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
