//===- DataDependentShapes.cpp - shape functions of the DataDependent ops ------------------===//

#include "strata/Dialect/Top/Shapes/DataDependentShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
