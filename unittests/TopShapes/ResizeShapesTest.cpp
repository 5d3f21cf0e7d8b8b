//===- ResizeShapesTest.cpp - shape functions of the Resize ops --------------===//

#include "strata/Dialect/Top/Shapes/ResizeShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
