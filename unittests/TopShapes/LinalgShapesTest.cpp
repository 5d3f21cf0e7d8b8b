//===- LinalgShapesTest.cpp - shape functions of the Linalg ops -----------===//

#include "strata/Dialect/Top/Shapes/LinalgShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(LinalgShapes, DetDropsTheMatrixDims) {
  Shape batched{2, 5, 3, 3}, single{4, 4};
  ShapeOr<Shape> r = inferDet(batched);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 5}));
  ShapeOr<Shape> s = inferDet(single);
  ASSERT_TRUE(s) << s.error();
  EXPECT_TRUE(s->empty());
}

TEST(LinalgShapes, DetRejectsANonSquareMatrix) {
  Shape input{2, 3, 4};
  ShapeOr<Shape> r = inferDet(input);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "operand 'input' shape [2, 3, 4] must be [*, M, M] "
                       "(rank >= 2, square)");
}

TEST(LinalgShapes, DetRejectsAVector) {
  Shape input{3};
  ASSERT_FALSE(inferDet(input));
}

TEST(LinalgShapes, LRNKeepsTheInputShape) {
  Shape input{1, 8, 5, 5};
  ShapeOr<Shape> r = inferLRN(input);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, input);
}

TEST(LinalgShapes, LRNRejectsRankTwo) {
  Shape input{1, 8};
  ShapeOr<Shape> r = inferLRN(input);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "operand 'input' shape [1, 8] must have rank >= 3 "
                       "(N x C x D1..)");
}
