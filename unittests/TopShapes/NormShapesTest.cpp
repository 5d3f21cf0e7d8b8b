//===- NormShapesTest.cpp - shape functions of the Norm ops --------------===//

#include "strata/Dialect/Top/Shapes/NormShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
