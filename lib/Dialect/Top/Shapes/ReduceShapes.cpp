//===- ReduceShapes.cpp - shape functions of the Reduce ops ------------------===//

#include "strata/Dialect/Top/Shapes/ReduceShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
