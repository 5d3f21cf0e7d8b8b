//===- CoreShapesTest.cpp - shape functions of the Core ops --------------===//

#include "strata/Dialect/Top/Shapes/CoreShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
