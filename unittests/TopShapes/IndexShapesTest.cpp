//===- IndexShapesTest.cpp - shape functions of the Index ops -------------===//

#include "strata/Dialect/Top/Shapes/IndexShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

namespace {
/// A [4, n] bounds tensor: rows starts, ends, axes, steps.
Tensor bounds(const std::vector<Shape> &rows) {
  int64_t n = rows[0].size();
  Tensor t(DType::I64, {4, n});
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t i = 0; i < n; ++i)
      t.data<int64_t>()[r * n + i] = rows[r][i];
  return t;
}
} // namespace

TEST(IndexShapes, SliceAttributesWithNegativeStep) {
  Shape in{4, 6}, starts{-1, 0}, ends{INT64_MIN, 10}, axes{0, 1}, steps{-2, 1};
  SliceAttrs attrs{starts, ends, Ints(axes), Ints(steps)};
  ShapeOr<Shape> r = inferSlice(in, attrs, std::nullopt);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 6}));
  ShapeOr<SliceWindow> w = sliceWindow(in, attrs, nullptr);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->starts, (Shape{3, 0}));
  EXPECT_EQ(w->steps, (Shape{-2, 1}));
}

TEST(IndexShapes, SliceRuntimeBoundsUnknownThenKnown) {
  Shape in{4, 6};
  SliceAttrs none{Ints(), Ints(), std::nullopt, std::nullopt};
  ShapeOr<Shape> unknown = inferSlice(in, none, RuntimeValue{{4, 1}});
  ASSERT_TRUE(unknown);
  EXPECT_EQ(*unknown, (Shape{kDynamicDim, kDynamicDim}));
  Tensor b = bounds({{1}, {3}, {-1}, {1}});
  ShapeOr<Shape> known = inferSlice(in, none, RuntimeValue{b.shape(), &b});
  ASSERT_TRUE(known) << known.error();
  EXPECT_EQ(*known, (Shape{4, 2}));
}

TEST(IndexShapes, SliceErrors) {
  Shape in{4};
  SliceAttrs none{Ints(), Ints(), std::nullopt, std::nullopt};
  Tensor zeroStep = bounds({{0}, {3}, {0}, {0}});
  ShapeOr<Shape> r =
      inferSlice(in, none, RuntimeValue{zeroStep.shape(), &zeroStep});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "operand 'bounds_value' has steps [0] with a 0");
  ShapeOr<Shape> tooMany = inferSlice(in, none, RuntimeValue{{4, 2}});
  ASSERT_FALSE(tooMany);
  EXPECT_EQ(tooMany.error(),
            "operand 'bounds_value' slices 2 dims but the input has rank 1");
  Shape starts{0}, ends{2}, steps{0};
  SliceAttrs zero{starts, ends, std::nullopt, Ints(steps)};
  ShapeOr<Shape> attr = inferSlice(in, zero, std::nullopt);
  ASSERT_FALSE(attr);
  EXPECT_EQ(attr.error(),
            "attribute 'steps' value 0 at index 0 must be non-zero (got [0])");
}

TEST(IndexShapes, GatherReplacesAxisByIndices) {
  Shape in{5, 4, 3}, indices{2, 7};
  EXPECT_EQ(*inferGather(in, indices, 1), (Shape{5, 2, 7, 3}));
  ShapeOr<Shape> r = inferGather(in, indices, 3);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'axis' = 3 is out of range for rank 3");
}
