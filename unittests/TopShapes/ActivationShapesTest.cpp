//===- ActivationShapesTest.cpp - shape functions of the Activation ops ---===//

#include "strata/Dialect/Top/Shapes/ActivationShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(ActivationShapes, PReluKeepsTheInputShape) {
  Shape input{2, 3, 4, 4}, slope{3, 1, 1};
  ShapeOr<Shape> r = inferPRelu(input, slope);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, input);
}

TEST(ActivationShapes, PReluScalarSlope) {
  Shape input{5}, slope{};
  ShapeOr<Shape> r = inferPRelu(input, slope);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{5}));
}

TEST(ActivationShapes, PReluRejectsASlopeThatDoesNotBroadcast) {
  Shape input{2, 3, 4}, slope{2, 4};
  ShapeOr<Shape> r = inferPRelu(input, slope);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "operand 'slope' shape [2, 4] does not broadcast to "
                       "operand 'input' shape [2, 3, 4]");
}

TEST(ActivationShapes, PReluRejectsASlopeOfHigherRank) {
  Shape input{4}, slope{1, 4};
  ShapeOr<Shape> r = inferPRelu(input, slope);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "operand 'slope' shape [1, 4] does not broadcast to "
                       "operand 'input' shape [4]");
}
