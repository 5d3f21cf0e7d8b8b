//===- ResizeShapes.cpp - shape functions of the Resize ops ------------------===//

#include "strata/Dialect/Top/Shapes/ResizeShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
