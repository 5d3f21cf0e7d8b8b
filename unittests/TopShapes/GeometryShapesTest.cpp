//===- GeometryShapesTest.cpp - shape functions of the Geometry ops --------------===//

#include "strata/Dialect/Top/Shapes/GeometryShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
