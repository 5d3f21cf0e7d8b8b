//===- PoolShapes.cpp - shape functions of the Pool ops ------------------===//

#include "strata/Dialect/Top/Shapes/PoolShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
