//===- MathShapesTest.cpp - shape functions of the Math ops --------------===//

#include "strata/Dialect/Top/Shapes/MathShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
