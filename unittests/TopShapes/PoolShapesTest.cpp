//===- PoolShapesTest.cpp - shape functions of the Pool ops --------------===//

#include "strata/Dialect/Top/Shapes/PoolShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(PoolShapes, FloorAndCeil) {
  Shape kernel{3, 3}, strides{2, 2}, dilations{1, 1}, pads{0, 0, 0, 0};
  WindowAttrs w{kernel, strides, dilations, pads};
  Shape in{1, 3, 8, 8};
  ShapeOr<Shape> floor = inferPool(in, w, /*ceilMode=*/false, false);
  ASSERT_TRUE(floor) << floor.error();
  EXPECT_EQ(*floor, (Shape{1, 3, 3, 3}));
  ShapeOr<Shape> ceil = inferPool(in, w, /*ceilMode=*/true, false);
  ASSERT_TRUE(ceil) << ceil.error();
  EXPECT_EQ(*ceil, (Shape{1, 3, 4, 4}));
}

TEST(PoolShapes, CeilDropsWindowStartingInEndPadding) {
  // 5 inputs, window 2, stride 3, one end pad: rounding up would add a
  // window starting at 6, past the input.
  Shape kernel{2}, strides{3}, dilations{1}, pads{0, 1};
  WindowAttrs w{kernel, strides, dilations, pads};
  Shape in{1, 1, 5};
  ShapeOr<Shape> r = inferPool(in, w, /*ceilMode=*/true, false);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{1, 1, 2}));
}

TEST(PoolShapes, ChannelsLast) {
  Shape kernel{2, 2}, strides{2, 2}, dilations{1, 1}, pads{0, 0, 0, 0};
  WindowAttrs w{kernel, strides, dilations, pads};
  Shape in{2, 6, 4, 5};
  ShapeOr<Shape> r = inferPool(in, w, false, /*channelsLast=*/true);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 3, 2, 5}));
}

TEST(PoolShapes, RejectsPadsAsWideAsTheWindow) {
  Shape kernel{2, 2}, strides{1, 1}, dilations{1, 1}, pads{2, 0, 2, 0};
  WindowAttrs w{kernel, strides, dilations, pads};
  Shape in{1, 1, 4, 4};
  ShapeOr<Shape> r = inferPool(in, w, false, false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "pads [2, 0, 2, 0] must be smaller than the effective "
                       "kernel 2 in spatial dim 0");
}

TEST(PoolShapes, GlobalAvgPool) {
  Shape in{2, 5, 5, 8};
  ShapeOr<Shape> r = inferGlobalAvgPool(in, /*channelsLast=*/true);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 1, 1, 8}));
  Shape flat{2, 3};
  ShapeOr<Shape> e = inferGlobalAvgPool(flat, false);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(),
            "input must have rank >= 3 (N, C, spatial...), got shape [2, 3]");
}
