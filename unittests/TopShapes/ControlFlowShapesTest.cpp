//===- ControlFlowShapesTest.cpp - shape functions of the ControlFlow ops --------------===//

#include "strata/Dialect/Top/Shapes/ControlFlowShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
