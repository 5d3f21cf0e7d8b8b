//===- SignalShapes.cpp - shape functions of the Signal ops ------------------===//

#include "strata/Dialect/Top/Shapes/SignalShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
