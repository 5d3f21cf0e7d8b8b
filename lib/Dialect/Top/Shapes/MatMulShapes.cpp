//===- MatMulShapes.cpp - shape functions of the MatMul ops ------------------===//

#include "strata/Dialect/Top/Shapes/MatMulShapes.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes
