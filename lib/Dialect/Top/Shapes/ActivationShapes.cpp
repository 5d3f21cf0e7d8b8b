//===- ActivationShapes.cpp - shape functions of the Activation ops ------------------===//

#include "strata/Dialect/Top/Shapes/ActivationShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
