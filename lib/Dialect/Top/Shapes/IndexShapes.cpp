//===- IndexShapes.cpp - shape functions of the Index ops ------------------===//

#include "strata/Dialect/Top/Shapes/IndexShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
