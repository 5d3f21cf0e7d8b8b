//===- QuantShapes.cpp - shape functions of the Quant ops ------------------===//

#include "strata/Dialect/Top/Shapes/QuantShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
