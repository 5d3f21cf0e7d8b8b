//===- NormShapes.cpp - shape functions of the Norm ops ------------------===//

#include "strata/Dialect/Top/Shapes/NormShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
