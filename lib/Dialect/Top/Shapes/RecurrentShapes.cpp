//===- RecurrentShapes.cpp - shape functions of the Recurrent ops ------------------===//

#include "strata/Dialect/Top/Shapes/RecurrentShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
