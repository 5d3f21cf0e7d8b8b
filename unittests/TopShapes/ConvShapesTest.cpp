//===- ConvShapesTest.cpp - shape functions of the Conv ops --------------===//

#include "strata/Dialect/Top/Shapes/ConvShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
