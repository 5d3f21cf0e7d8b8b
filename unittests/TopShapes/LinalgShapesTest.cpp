//===- LinalgShapesTest.cpp - shape functions of the Linalg ops --------------===//

#include "strata/Dialect/Top/Shapes/LinalgShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
