//===- DataDependentShapesTest.cpp - shape functions of the DataDependent ops --------------===//

#include "strata/Dialect/Top/Shapes/DataDependentShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
