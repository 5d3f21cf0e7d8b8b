//===- ReduceShapesTest.cpp - shape functions of the Reduce ops --------------===//

#include "strata/Dialect/Top/Shapes/ReduceShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
