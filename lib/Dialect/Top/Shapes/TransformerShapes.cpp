//===- TransformerShapes.cpp - shape functions of the Transformer ops ------------------===//

#include "strata/Dialect/Top/Shapes/TransformerShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
