//===- TransformerShapesTest.cpp - shape functions of the Transformer ops --------------===//

#include "strata/Dialect/Top/Shapes/TransformerShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
