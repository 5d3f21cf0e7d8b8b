//===- ResizeShapesTest.cpp - shape functions of the Resize ops ----------===//

#include "strata/Dialect/Top/Shapes/ResizeShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

namespace {
/// A 1-D tensor of `dtype` holding `values`.
Tensor vector1d(DType dtype, const std::vector<double> &values) {
  Tensor t(dtype, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i)
    t.setFromDouble(static_cast<int64_t>(i), values[i]);
  return t;
}
} // namespace

TEST(ResizeShapes, SizesAndScalesAttributes) {
  Shape in{1, 3, 4, 5}, sizes{1, 3, 8, 8};
  ResizeAttrs bySizes;
  bySizes.sizes = Ints(sizes);
  ShapeOr<Shape> r = inferResize(in, bySizes, std::nullopt);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, sizes);
  ResizeAttrs byScales;
  byScales.scales = std::vector<double>{1, 1, 1.5, 0.5};
  r = inferResize(in, byScales, std::nullopt);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{1, 3, 6, 2}));
}

TEST(ResizeShapes, TargetUnknownGivesDynamicDims) {
  Shape in{1, 3, 4, 5};
  ShapeOr<Shape> r = inferResize(in, {}, ResizeTarget{4, nullptr});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, Shape(4, kDynamicDim));
}

TEST(ResizeShapes, TargetValuesGiveTheExactShape) {
  Shape in{1, 3, 4, 5};
  Tensor sizes = vector1d(DType::I64, {1, 3, 2, 7});
  ShapeOr<Shape> r = inferResize(in, {}, ResizeTarget{4, &sizes});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{1, 3, 2, 7}));
  Tensor scales = vector1d(DType::F32, {1, 1, 2, 0.5});
  r = inferResize(in, {}, ResizeTarget{4, &scales});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{1, 3, 8, 2}));
}

TEST(ResizeShapes, TargetValuesAreChecked) {
  Shape in{1, 1, 4, 4};
  Tensor negative = vector1d(DType::I32, {1, 1, -1, 2});
  ShapeOr<Shape> r = inferResize(in, {}, ResizeTarget{4, &negative});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "operand 'target_value': 'sizes' value -1 at index 2 "
                       "must be >= 0 (got [1, 1, -1, 2])");
  Tensor huge = vector1d(DType::I64, {1, 1, 65536, 65536});
  r = inferResize(in, {}, ResizeTarget{4, &huge});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "result shape [1, 1, 65536, 65536] computed at run "
                       "time has more than 2^31 elements, the element limit "
                       "(--max-elements raises it)");
  r = inferResize(in, {}, ResizeTarget{3, nullptr});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "operand 'target_value' has 3 values but the input has rank 4");
}

TEST(ResizeShapes, RejectsUnknownMode) {
  Shape in{1, 4}, sizes{1, 8};
  ResizeAttrs attrs;
  attrs.sizes = Ints(sizes);
  attrs.mode = "bilinear";
  ShapeOr<Shape> r = inferResize(in, attrs, std::nullopt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'mode' must be one of \"nearest\", "
                       "\"linear\", \"cubic\", got \"bilinear\"");
}

TEST(ResizeShapes, DepthToSpaceAndBack) {
  Shape in{1, 8, 2, 3};
  ShapeOr<Shape> d2s = inferDepthToSpace(in, 2, "DCR", false);
  ASSERT_TRUE(d2s) << d2s.error();
  EXPECT_EQ(*d2s, (Shape{1, 2, 4, 6}));
  ShapeOr<Shape> s2d = inferSpaceToDepth(*d2s, 2, false);
  ASSERT_TRUE(s2d) << s2d.error();
  EXPECT_EQ(*s2d, in);
  Shape nhwc{1, 2, 3, 8};
  ShapeOr<Shape> last = inferDepthToSpace(nhwc, 2, "CRD", true);
  ASSERT_TRUE(last) << last.error();
  EXPECT_EQ(*last, (Shape{1, 4, 6, 2}));
}

TEST(ResizeShapes, BlockOpsRejectIndivisibleDims) {
  Shape in{1, 6, 2, 2};
  ShapeOr<Shape> r = inferDepthToSpace(in, 2, "DCR", false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "input channels (6) must be divisible by blocksize^2 = 4");
  Shape odd{1, 1, 3, 4};
  r = inferSpaceToDepth(odd, 2, false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "input spatial dims [3, 4] must be divisible by "
                       "attribute 'blocksize' = 2");
}
