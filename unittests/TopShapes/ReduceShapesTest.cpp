//===- ReduceShapesTest.cpp - shape functions of the Reduce ops -----------===//

#include "strata/Dialect/Top/Shapes/ReduceShapes.h"
#include "strata/Support/Tensor.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

namespace {
/// A 1-D i64 tensor holding `values` (a runtime `axes_value`).
Tensor axesTensor(const std::vector<int64_t> &values) {
  Tensor t(DType::I64, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i)
    t.data<int64_t>()[i] = values[i];
  return t;
}
} // namespace

TEST(ReduceShapes, AttributeAxes) {
  Shape input{2, 3, 4}, axes{-1, 0};
  ShapeOr<Shape> kept = inferReduce(input, axes, true, std::nullopt);
  ASSERT_TRUE(kept) << kept.error();
  EXPECT_EQ(*kept, (Shape{1, 3, 1}));
  ShapeOr<Shape> dropped = inferReduce(input, axes, false, std::nullopt);
  ASSERT_TRUE(dropped) << dropped.error();
  EXPECT_EQ(*dropped, (Shape{3}));
  ShapeOr<Shape> all = inferReduce(input, Shape{}, false, std::nullopt);
  ASSERT_TRUE(all) << all.error();
  EXPECT_TRUE(all->empty());
}

TEST(ReduceShapes, AttributeAxesErrors) {
  Shape input{2, 3}, outOfRange{2}, repeated{0, -2};
  ShapeOr<Shape> r = inferReduce(input, outOfRange, true, std::nullopt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'axes' = 2 is out of range for rank 2");
  ShapeOr<Shape> d = inferReduce(input, repeated, true, std::nullopt);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error(), "attribute 'axes' [0, -2] repeats dim 0");
}

TEST(ReduceShapes, RuntimeAxesUnknownAreDynamic) {
  Shape input{2, 1, 4};
  RuntimeAxes axesValue{1, nullptr};
  ShapeOr<Shape> kept = inferReduce(input, Shape{}, true, axesValue);
  ASSERT_TRUE(kept) << kept.error();
  EXPECT_EQ(*kept, (Shape{kDynamicDim, 1, kDynamicDim}));
  ShapeOr<Shape> dropped = inferReduce(input, Shape{}, false, axesValue);
  ASSERT_TRUE(dropped) << dropped.error();
  EXPECT_EQ(*dropped, (Shape{kDynamicDim, kDynamicDim}));
}

TEST(ReduceShapes, RuntimeAxesKnownAreExact) {
  Shape input{2, 1, 4};
  Tensor axes = axesTensor({-1});
  ShapeOr<Shape> r = inferReduce(input, Shape{}, false, RuntimeAxes{1, &axes});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 1}));
  Tensor none = axesTensor({});
  ShapeOr<Shape> all = inferReduce(input, Shape{}, true, RuntimeAxes{0, &none});
  ASSERT_TRUE(all) << all.error();
  EXPECT_EQ(*all, (Shape{1, 1, 1}));
}

TEST(ReduceShapes, RuntimeAxesErrors) {
  Shape input{2, 3};
  ShapeOr<Shape> many = inferReduce(input, Shape{}, true, RuntimeAxes{3});
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error(),
            "operand 'axes_value' holds 3 axes but the input has rank 2");
  Tensor bad = axesTensor({5});
  ShapeOr<Shape> r = inferReduce(input, Shape{}, true, RuntimeAxes{1, &bad});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "operand 'axes_value' holds axis 5, out of range for rank 2");
  Tensor twice = axesTensor({1, -1});
  ShapeOr<Shape> d = inferReduce(input, Shape{}, true, RuntimeAxes{2, &twice});
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error(), "operand 'axes_value' [1, -1] repeats dim 1");
}

TEST(ReduceShapes, ArgMax) {
  Shape input{2, 3, 4};
  ShapeOr<Shape> kept = inferArgMax(input, 1, true);
  ASSERT_TRUE(kept) << kept.error();
  EXPECT_EQ(*kept, (Shape{2, 1, 4}));
  ShapeOr<Shape> dropped = inferArgMax(input, -1, false);
  ASSERT_TRUE(dropped) << dropped.error();
  EXPECT_EQ(*dropped, (Shape{2, 3}));
}

TEST(ReduceShapes, ArgMaxErrors) {
  Shape input{2, 0};
  ShapeOr<Shape> empty = inferArgMax(input, -1, true);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error(), "attribute 'axis' = -1 selects the empty dim 1; "
                           "argmax needs at least one element");
  ShapeOr<Shape> range = inferArgMax(input, 2, true);
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error(), "attribute 'axis' = 2 is out of range for rank 2");
}
