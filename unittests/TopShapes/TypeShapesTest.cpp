//===- TypeShapesTest.cpp - shape functions of the Type ops ---------------===//
//
// BitCast has no shape function of its own: it uses inferUnary, tested in
// ElementwiseShapesTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/Shapes/TypeShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
