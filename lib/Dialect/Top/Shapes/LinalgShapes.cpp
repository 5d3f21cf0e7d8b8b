//===- LinalgShapes.cpp - shape functions of the Linalg ops ------------------===//

#include "strata/Dialect/Top/Shapes/LinalgShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
