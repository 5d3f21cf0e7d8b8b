//===- SelectShapesTest.cpp - shape functions of the Select ops --------------===//

#include "strata/Dialect/Top/Shapes/SelectShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
