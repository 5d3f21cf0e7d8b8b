//===- MathShapes.cpp - shape functions of the Math ops -------------------===//

#include "strata/Dialect/Top/Shapes/MathShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
