//===- SignalShapesTest.cpp - shape functions of the Signal ops --------------===//

#include "strata/Dialect/Top/Shapes/SignalShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
