//===- TypeShapesTest.cpp - shape functions of the Type ops --------------===//

#include "strata/Dialect/Top/Shapes/TypeShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
