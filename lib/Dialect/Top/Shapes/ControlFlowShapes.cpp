//===- ControlFlowShapes.cpp - shape functions of the ControlFlow ops ------------------===//

#include "strata/Dialect/Top/Shapes/ControlFlowShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
