//===- SelectShapesTest.cpp - shape functions of the Select ops -----------===//

#include "strata/Dialect/Top/Shapes/SelectShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

namespace {
/// A one-element tensor holding `v`, as a runtime scalar operand would.
Tensor scalar(DType type, double v) {
  Tensor t(type, {1});
  t.setFromDouble(0, v);
  return t;
}
} // namespace

TEST(SelectShapes, TriluNeedsAMatrix) {
  Shape m{2, 3, 4}, v{4};
  EXPECT_EQ(*inferTrilu(m), m);
  ShapeOr<Shape> r = inferTrilu(v);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "input must have rank >= 2, got shape [4]");
}

TEST(SelectShapes, ScatterAndGatherElements) {
  Shape data{3, 4}, idx{3, 2}, upd{3, 2}, wide{3, 5};
  EXPECT_EQ(*inferScatterElements(data, idx, upd, 1), data);
  EXPECT_EQ(*inferGatherElements(data, idx, 1), idx);
  ShapeOr<Shape> r = inferGatherElements(data, wide, 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "'indices' shape [3, 5] must have the rank of 'data' "
                       "shape [3, 4] and be no larger in the dims other than "
                       "axis 0");
}

TEST(SelectShapes, GatherAndScatterND) {
  Shape data{2, 3, 4}, idx{5, 2}, upd{5, 4}, badUpd{5, 3};
  EXPECT_EQ(*inferGatherND(data, idx, 0), (Shape{5, 4}));
  EXPECT_EQ(*inferScatterND(data, idx, upd), data);
  ShapeOr<Shape> r = inferScatterND(data, idx, badUpd);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "'updates' shape [5, 3] must be [5, 4] "
                       "(indices.shape[:-1] + data.shape[2:])");
}

TEST(SelectShapes, TopKFromAttributeOrRuntimeK) {
  Shape in{3, 5};
  ShapeOr<Shapes> attr = inferTopK(in, -1, 2, std::nullopt);
  ASSERT_TRUE(attr) << attr.error();
  EXPECT_EQ(*attr, (Shapes{{3, 2}, {3, 2}}));
  ShapeOr<Shapes> unknown = inferTopK(in, 1, 0, RuntimeValue{{1}});
  ASSERT_TRUE(unknown);
  EXPECT_EQ((*unknown)[0], (Shape{3, kDynamicDim}));
  Tensor k = scalar(DType::I64, 4);
  ShapeOr<Shapes> known = inferTopK(in, 1, 0, RuntimeValue{{1}, &k});
  ASSERT_TRUE(known) << known.error();
  EXPECT_EQ((*known)[1], (Shape{3, 4}));
  Tensor tooLarge = scalar(DType::I64, 6);
  ShapeOr<Shapes> bad = inferTopK(in, 1, 0, RuntimeValue{{1}, &tooLarge});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(),
            "operand 'k_value' = 6 must be in [0, 5] (the size of dim 1)");
}

TEST(SelectShapes, OneHotDepthFromAttributeOrRuntime) {
  Shape idx{3}, values{2};
  EXPECT_EQ(*inferOneHot(idx, values, 10, std::nullopt, -1), (Shape{3, 10}));
  EXPECT_EQ(*inferOneHot(idx, values, std::nullopt, RuntimeValue{{1}}, 0),
            (Shape{kDynamicDim, 3}));
  Tensor depth = scalar(DType::F32, 4.7);
  ShapeOr<Shape> known =
      inferOneHot(idx, values, std::nullopt, RuntimeValue{{1}, &depth}, 0);
  ASSERT_TRUE(known) << known.error();
  EXPECT_EQ(*known, (Shape{4, 3}));
  Tensor zero = scalar(DType::F32, 0.5);
  ShapeOr<Shape> bad =
      inferOneHot(idx, values, std::nullopt, RuntimeValue{{1}, &zero}, 0);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "depth 5.000000e-01 must be in [1, 2^31)");
  ShapeOr<Shape> both = inferOneHot(idx, values, 3, RuntimeValue{{1}}, 0);
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error(), "needs exactly one of attribute 'depth' and operand "
                          "'depth_value'");
}

TEST(SelectShapes, ReverseSequenceAndMaxUnpool) {
  Shape in{4, 2, 3}, lens{2}, badLens{4};
  EXPECT_EQ(*inferReverseSequence(in, lens, 1, 0), in);
  ShapeOr<Shape> r = inferReverseSequence(in, badLens, 1, 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "'sequence_lens' shape [4] must be [2] (the batch dim)");
  Shape pooled{1, 2, 2, 2}, out{1, 2, 4, 4}, badOut{1, 3, 4, 4};
  EXPECT_EQ(*inferMaxUnpool(pooled, pooled, out), out);
  ShapeOr<Shape> u = inferMaxUnpool(pooled, pooled, badOut);
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error(), "attribute 'output_shape' [1, 3, 4, 4] must keep the "
                       "batch and channel dims of the input shape "
                       "[1, 2, 2, 2]");
}

TEST(SelectShapes, MaxPoolIndicesWindowGeometry) {
  Shape in{1, 2, 5, 5}, kernel{2, 2}, strides{2, 2}, dil{1, 1},
      pads{0, 0, 0, 0};
  MaxPoolIndicesAttrs attrs{kernel, strides, dil, pads, false, 0};
  EXPECT_EQ(*inferMaxPoolIndices(in, attrs), (Shape{1, 2, 2, 2}));
  attrs.ceilMode = true;
  EXPECT_EQ(*inferMaxPoolIndices(in, attrs), (Shape{1, 2, 3, 3}));
  Shape bigPads{2, 0, 0, 0};
  attrs.pads = bigPads;
  ShapeOr<Shape> r = inferMaxPoolIndices(in, attrs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "pads [2, 0, 0, 0] must be smaller than the effective "
                       "kernel 2 in spatial dim 0");
}
