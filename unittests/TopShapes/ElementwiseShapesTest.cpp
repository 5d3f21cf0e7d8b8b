//===- ElementwiseShapesTest.cpp - shape functions of the Elementwise ops --------------===//

#include "strata/Dialect/Top/Shapes/ElementwiseShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(ElementwiseShapes, BinaryBroadcasts) {
  Shape lhs{2, 1, 4}, rhs{3, 1};
  ShapeOr<Shape> r = inferBinary(lhs, rhs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 3, 4}));
}

TEST(ElementwiseShapes, BinaryDynamicDimAgainstOneStaysDynamic) {
  Shape lhs{kDynamicDim, 4}, rhs{1, 4}, wide{5, 4};
  ShapeOr<Shape> r = inferBinary(lhs, rhs);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (Shape{kDynamicDim, 4}));
  ShapeOr<Shape> w = inferBinary(lhs, wide);
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (Shape{5, 4}));
}

TEST(ElementwiseShapes, BinaryRejectsMismatch) {
  Shape lhs{2, 3}, rhs{4, 3};
  ShapeOr<Shape> r = inferBinary(lhs, rhs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "operand shapes [2, 3] and [4, 3] do not broadcast");
}

TEST(ElementwiseShapes, WhereBroadcastsAllThree) {
  Shape cond{1, 3}, x{2, 1}, y{1};
  ShapeOr<Shape> r = inferWhere(cond, x, y);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (Shape{2, 3}));
}
