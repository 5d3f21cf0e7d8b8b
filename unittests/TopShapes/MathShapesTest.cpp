//===- MathShapesTest.cpp - shape functions of the Math ops ---------------===//
//
// The Math ops have no shape functions of their own: they use inferUnary and
// inferBinary, tested in ElementwiseShapesTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/Shapes/MathShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;
