//===- GeometryShapesTest.cpp - shape functions of the Geometry ops ------===//

#include "strata/Dialect/Top/Shapes/GeometryShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(GeometryShapes, GridSample) {
  Shape in{2, 3, 5, 6}, grid{2, 4, 7, 2}, bad{2, 4, 7, 3};
  ShapeOr<Shape> r = inferGridSample(in, grid, "linear", "zeros");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 3, 4, 7}));
  r = inferGridSample(in, bad, "linear", "zeros");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "grid shape [2, 4, 7, 3] must be [N = 2, 2 output "
                       "spatial dims, 2] for input shape [2, 3, 5, 6]");
}

TEST(GeometryShapes, AffineGrid) {
  Shape theta{2, 2, 3}, size{2, 3, 8, 9}, otherBatch{3, 3, 8, 9};
  ShapeOr<Shape> r = inferAffineGrid(theta, size);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 8, 9, 2}));
  r = inferAffineGrid(theta, otherBatch);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'size' batch 3 must equal theta's batch 2");
}

TEST(GeometryShapes, Col2Im) {
  Shape image{4, 5}, block{2, 2};
  Col2ImAttrs attrs{image, block, std::nullopt, std::nullopt, std::nullopt};
  // 3 x 4 sliding blocks of 2 x 2.
  Shape in{1, 12, 12}, fewer{1, 12, 10};
  ShapeOr<Shape> r = inferCol2Im(in, attrs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{1, 3, 4, 5}));
  r = inferCol2Im(fewer, attrs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "input dim 2 (10) must equal the number of sliding "
                       "blocks [3, 4] = 12");
}

TEST(GeometryShapes, RoiAlign) {
  Shape in{1, 8, 10, 10}, rois{5, 4}, idx{5};
  RoiAlignAttrs attrs;
  attrs.outputHeight = attrs.outputWidth = 3;
  ShapeOr<Shape> r = inferRoiAlign(in, rois, idx, attrs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{5, 8, 3, 3}));
  attrs.samplingRatio = -1;
  r = inferRoiAlign(in, rois, idx, attrs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'sampling_ratio' = -1 must be in [0, 4096]");
}

TEST(GeometryShapes, DeformConv) {
  Shape in{1, 4, 6, 6}, filter{8, 2, 3, 3}, offset{1, 18, 4, 4},
      mask{1, 9, 4, 4}, wrongOffset{1, 18, 3, 3};
  DeformConvAttrs attrs;
  attrs.group = 2;
  ShapeOr<Shape> r =
      inferDeformConv(in, filter, offset, Ints(mask), std::nullopt, attrs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{1, 8, 4, 4}));
  r = inferDeformConv(in, filter, wrongOffset, std::nullopt, std::nullopt,
                      attrs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "offset shape [1, 18, 3, 3] must be [1, 18, 4, 4]");
}
