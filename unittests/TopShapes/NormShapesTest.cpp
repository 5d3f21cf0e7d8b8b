//===- NormShapesTest.cpp - shape functions of the Norm ops --------------===//

#include "strata/Dialect/Top/Shapes/NormShapes.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(NormShapes, SoftmaxKeepsShapeAndChecksAxis) {
  Shape in{2, 3};
  ShapeOr<Shape> r = inferSoftmax(in, -1);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, in);
  ShapeOr<Shape> e = inferSoftmax(in, 2);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(),
            "attribute 'axis' = 2 is out of range [-2, 2) for input rank 2");
}

TEST(NormShapes, BatchNormChannelsLast) {
  Shape in{1, 4, 4, 3}, c{3}, wrong{4};
  ShapeOr<Shape> r =
      inferBatchNorm(in, {Ints(c), Ints(c), std::nullopt, Ints(c)}, 1e-5,
                     /*channelsLast=*/true);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, in);
  ShapeOr<Shape> e = inferBatchNorm(
      in, {Ints(c), Ints(wrong), std::nullopt, std::nullopt}, 1e-5, true);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(),
            "variance must have 3 elements (one per channel), got shape [4]");
}

TEST(NormShapes, EpsilonPrintedAsMlirDoes) {
  Shape in{2, 3};
  ShapeOr<Shape> r = inferBatchNorm(in, {}, -1e-3, false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'epsilon' = -1.000000e-03 must be finite "
                       "and >= 0");
  r = inferBatchNorm(in, {}, std::nan(""), false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'epsilon' = nan must be finite and >= 0");
}

TEST(NormShapes, LayerNormParamsSpanTheNormalizedDims) {
  Shape in{2, 3, 4}, whole{12}, last{4};
  ShapeOr<Shape> r = inferLayerNorm(
      in, 1, {std::nullopt, std::nullopt, Ints(whole), std::nullopt}, 1e-5);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, in);
  ShapeOr<Shape> e = inferLayerNorm(
      in, 1, {std::nullopt, std::nullopt, Ints(last), std::nullopt}, 1e-5);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "scale must have 12 elements (the normalized shape's), "
                       "got shape [4]");
}

TEST(NormShapes, GroupNormGroupsDivideChannels) {
  Shape in{1, 6, 2, 2};
  ShapeOr<Shape> r = inferGroupNorm(in, 3, {}, 1e-5, false);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, in);
  ShapeOr<Shape> e = inferGroupNorm(in, 4, {}, 1e-5, false);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "attribute 'num_groups' = 4 must be >= 1 and divide "
                       "the input channels (6)");
}
