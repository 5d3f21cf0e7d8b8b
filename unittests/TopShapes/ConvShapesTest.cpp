//===- ConvShapesTest.cpp - shape functions of the Conv ops --------------===//

#include "strata/Dialect/Top/Shapes/ConvShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

namespace {
/// A 3x3 window with stride 2 and padding 1 on both spatial dims.
struct Window3x3 {
  Shape kernel{3, 3}, strides{2, 2}, dilations{1, 1}, pads{1, 1, 1, 1};
  WindowAttrs attrs() const { return {kernel, strides, dilations, pads}; }
};
} // namespace

TEST(ConvShapes, ConvStridedPadded) {
  Window3x3 w;
  ConvAttrs attrs;
  attrs.window = w.attrs();
  Shape in{1, 3, 8, 8}, filter{16, 3, 3, 3}, bias{16};
  ShapeOr<Shape> r = inferConv(in, filter, Ints(bias), attrs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{1, 16, 4, 4}));
}

TEST(ConvShapes, ConvChannelsLast) {
  Window3x3 w;
  ConvAttrs attrs;
  attrs.window = w.attrs();
  attrs.channelsLast = true;
  Shape in{1, 8, 8, 3}, filter{16, 3, 3, 3}; // NHWC input, OHWI filter
  ShapeOr<Shape> r = inferConv(in, filter, std::nullopt, attrs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{1, 4, 4, 16}));
}

TEST(ConvShapes, ConvRejectsGroupAndBias) {
  Window3x3 w;
  ConvAttrs attrs;
  attrs.window = w.attrs();
  attrs.group = 4;
  Shape in{1, 6, 5, 5}, filter{4, 3, 3, 3};
  ShapeOr<Shape> r = inferConv(in, filter, std::nullopt, attrs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'group' = 4 must be >= 1 and divide input "
                       "channels (6) and output channels (4)");
  attrs.group = 2;
  Shape halfFilter{4, 3, 3, 3}, bias{5};
  r = inferConv(in, halfFilter, Ints(bias), attrs);
  ASSERT_FALSE(r);
  EXPECT_EQ(
      r.error(),
      "bias must have 4 elements (one per output channel), got shape [5]");
}

TEST(ConvShapes, ConvRejectsWindowAttrs) {
  Window3x3 w;
  w.strides = {2, 0};
  ConvAttrs attrs;
  attrs.window = w.attrs();
  Shape in{1, 3, 8, 8}, filter{16, 3, 3, 3};
  ShapeOr<Shape> r = inferConv(in, filter, std::nullopt, attrs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'strides' value 0 at index 1 must be >= 1 "
                       "(got [2, 0])");
}

TEST(ConvShapes, WindowLargerThanInput) {
  Shape kernel{5}, strides{1}, dilations{2}, pads{0, 0}, in{6};
  WindowAttrs w{kernel, strides, dilations, pads};
  ShapeOr<Shape> r = windowOutputDims(in, w, WindowCount::Floor);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "effective kernel size 9 exceeds padded input size 6 "
                       "in spatial dim 0");
}

TEST(ConvShapes, DeconvWithOutputPadding) {
  Window3x3 w;
  w.pads = {0, 0, 0, 0};
  Shape outputPadding{1, 1};
  DeconvAttrs attrs{w.attrs(), outputPadding};
  Shape in{1, 4, 5, 5}, filter{4, 2, 3, 3};
  ShapeOr<Shape> r = inferDeconv(in, filter, std::nullopt, attrs);
  ASSERT_TRUE(r) << r.error();
  // (5 - 1) * 2 + (3 - 1) + 1 + 1 = 12.
  EXPECT_EQ(*r, (Shape{1, 2, 12, 12}));
}

TEST(ConvShapes, DeconvRejectsOutputPadding) {
  Window3x3 w;
  Shape outputPadding{2, 0};
  DeconvAttrs attrs{w.attrs(), outputPadding};
  Shape in{1, 4, 5, 5}, filter{4, 2, 3, 3};
  ShapeOr<Shape> r = inferDeconv(in, filter, std::nullopt, attrs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'output_padding' value 2 at index 0 must be "
                       "smaller than the stride (2) or the dilation (1)");
}
