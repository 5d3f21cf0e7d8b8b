//===- CoreShapesTest.cpp - shape functions of the Core ops ---------------===//

#include "strata/Dialect/Top/Shapes/CoreShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(CoreShapes, WeightIsItsDeclaredShape) {
  Shape declared{64, 3, 7, 7};
  ShapeOr<Shape> r = inferWeight(declared);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, declared);
}

TEST(CoreShapes, WeightRejectsAnOverflowingShape) {
  Shape declared{int64_t(1) << 40, int64_t(1) << 40};
  ShapeOr<Shape> r = inferWeight(declared);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "shape [1099511627776, 1099511627776] has a negative "
                       "dim or overflows int64");
}

TEST(CoreShapes, WeightRejectsADynamicDim) {
  Shape declared{kDynamicDim, 4};
  ShapeOr<Shape> r = inferWeight(declared);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "shape [?, 4] has a negative dim or overflows int64");
}

TEST(CoreShapes, NoneHasAnEmptyShape) {
  ShapeOr<Shape> r = inferNone();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
}
