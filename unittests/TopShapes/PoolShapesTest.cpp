//===- PoolShapesTest.cpp - shape functions of the Pool ops --------------===//

#include "strata/Dialect/Top/Shapes/PoolShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
