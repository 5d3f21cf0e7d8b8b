//===- CoreShapes.cpp - shape functions of the Core ops ------------------===//

#include "strata/Dialect/Top/Shapes/CoreShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
