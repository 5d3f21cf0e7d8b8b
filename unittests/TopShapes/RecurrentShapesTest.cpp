//===- RecurrentShapesTest.cpp - shape functions of the Recurrent ops --------------===//

#include "strata/Dialect/Top/Shapes/RecurrentShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
