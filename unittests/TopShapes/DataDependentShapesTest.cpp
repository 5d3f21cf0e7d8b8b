//===- DataDependentShapesTest.cpp - DataDependent shape functions --------===//

#include "strata/Dialect/Top/Shapes/DataDependentShapes.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>

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

namespace {
Tensor scalar(DType t, double v) {
  Tensor s(t, {});
  s.setFromDouble(0, v);
  return s;
}
} // namespace

TEST(DataDependentShapes, RangeCountsExactly) {
  auto count = [](DType t, double s, double l, double d) {
    return rangeCount(scalar(t, s), scalar(t, l), scalar(t, d));
  };
  EXPECT_EQ(*count(DType::I64, -7, 12, 4), 5); // -7, -3, 1, 5, 9
  EXPECT_EQ(*count(DType::I32, 10, 3, -3), 3); // 10, 7, 4
  EXPECT_EQ(*count(DType::I64, 2, 1, 1), 0);   // empty, never negative
  EXPECT_EQ(*count(DType::F32, 1.0, 5.5, 0.75), 6);
  EXPECT_EQ(*count(DType::F64, 0.5, 2.0, 0.25), 6);
  ShapeOr<int64_t> zero = count(DType::I64, 0, 5, 0);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error(), "operand 'delta' is 0");
  ASSERT_FALSE(count(DType::F32, 0, 5, 0));
  ShapeOr<int64_t> inf = count(DType::F32, 0, INFINITY, 1);
  ASSERT_FALSE(inf);
  EXPECT_NE(inf.error().find("too large"), std::string::npos);
  Tensor lo(DType::I64, {}), hi(DType::I64, {}), one(DType::I64, {});
  lo.data<int64_t>()[0] = INT64_MIN;
  hi.data<int64_t>()[0] = INT64_MAX;
  one.data<int64_t>()[0] = 1;
  ShapeOr<int64_t> wide = rangeCount(lo, hi, one);
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.error().find("overflows int64"), std::string::npos);
}

TEST(DataDependentShapes, RangeShape) {
  Shape s{};
  EXPECT_EQ(*inferRange(s, s, s, nullptr, nullptr, nullptr),
            (Shape{kDynamicDim}));
  Tensor a = scalar(DType::I64, 0), b = scalar(DType::I64, 10),
         d = scalar(DType::I64, 3);
  EXPECT_EQ(*inferRange(s, s, s, &a, &b, &d), (Shape{4}));
  ShapeOr<Shape> bad = inferRange(Shape{1}, s, s, nullptr, nullptr, nullptr);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(),
            "operand 'start' has shape [1]; it must be a scalar (shape [])");
}
