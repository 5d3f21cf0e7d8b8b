//===- ActivationShapesTest.cpp - shape functions of the Activation ops --------------===//

#include "strata/Dialect/Top/Shapes/ActivationShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
