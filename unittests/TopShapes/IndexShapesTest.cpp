//===- IndexShapesTest.cpp - shape functions of the Index ops --------------===//

#include "strata/Dialect/Top/Shapes/IndexShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
