//===- ShapeShapesTest.cpp - shape functions of the Shape ops --------------===//

#include "strata/Dialect/Top/Shapes/ShapeShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
