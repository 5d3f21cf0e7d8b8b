//===- ConvShapes.cpp - shape functions of the Conv ops ------------------===//

#include "strata/Dialect/Top/Shapes/ConvShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
