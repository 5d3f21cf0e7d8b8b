//===- MatMulShapesTest.cpp - shape functions of the MatMul ops --------------===//

#include "strata/Dialect/Top/Shapes/MatMulShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
