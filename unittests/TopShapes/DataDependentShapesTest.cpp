//===- DataDependentShapesTest.cpp - DataDependent shape functions --------===//

#include "strata/Dialect/Top/Shapes/DataDependentShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(DataDependentShapes, NonZeroCountsWhenTheInputIsKnown) {
  Shape shape{2, 3};
  EXPECT_EQ(*inferNonZero(shape, nullptr), (Shape{2, kDynamicDim}));
  Tensor x(DType::F32, shape);
  x.data<float>()[1] = 2.f;
  x.data<float>()[5] = -1.f;
  ShapeOr<Shape> r = inferNonZero(shape, &x);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (Shape{2, 2}));
}

TEST(DataDependentShapes, UniqueLeavesCountsDynamic) {
  Shape in{4, 3};
  ShapeOr<Shapes> flat = inferUnique(in, std::nullopt);
  ASSERT_TRUE(flat);
  EXPECT_EQ(*flat, (Shapes{{kDynamicDim}, {kDynamicDim}, {12}, {kDynamicDim}}));
  ShapeOr<Shapes> rows = inferUnique(in, 0);
  ASSERT_TRUE(rows);
  EXPECT_EQ((*rows)[0], (Shape{kDynamicDim, 3}));
  EXPECT_EQ((*rows)[2], (Shape{4}));
  ShapeOr<Shapes> bad = inferUnique(in, 2);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "attribute 'axis' = 2 is out of range for rank 2");
}

TEST(DataDependentShapes, NonMaxSuppressionChecksOperands) {
  Shape boxes{1, 6, 4}, scores{1, 2, 6}, badScores{1, 2, 5};
  NonMaxSuppressionScalars scalars{Shape{1}, Shape{}, std::nullopt};
  EXPECT_EQ(*inferNonMaxSuppression(boxes, scores, scalars, 0),
            (Shape{kDynamicDim, 3}));
  ShapeOr<Shape> r = inferNonMaxSuppression(boxes, badScores, scalars, 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "'scores' shape [1, 2, 5] must be [1, classes, 6] for "
                       "'boxes' shape [1, 6, 4]");
  scalars.iouThreshold = Shape{2};
  ShapeOr<Shape> s = inferNonMaxSuppression(boxes, scores, scalars, 0);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(),
            "operand 'iou_threshold' must hold one value, has shape [2]");
}
