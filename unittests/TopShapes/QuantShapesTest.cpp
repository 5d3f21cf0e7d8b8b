//===- QuantShapesTest.cpp - shape functions of the Quant ops --------------===//

#include "strata/Dialect/Top/Shapes/QuantShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
