//===- ShapeShapesTest.cpp - shape functions of the Shape ops -------------===//

#include "strata/Dialect/Top/Shapes/ShapeShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

namespace {
/// A 1-D i64 tensor holding `values`, as a runtime operand would.
Tensor ints(const Shape &values) {
  Tensor t(DType::I64, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i)
    t.data<int64_t>()[i] = values[i];
  return t;
}

/// A runtime list operand of `length` entries whose values are unknown.
RuntimeValue unknownList(int64_t length) { return RuntimeValue{{length}}; }

/// A runtime list operand whose values `t` are known.
RuntimeValue knownList(const Tensor &t) { return RuntimeValue{t.shape(), &t}; }
} // namespace

TEST(ShapeShapes, ReshapeCopiesAndInfersDims) {
  Shape in{2, 3, 4}, target{0, -1};
  ShapeOr<Shape> r = inferReshape(in, target, std::nullopt);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 12}));
}

TEST(ShapeShapes, ReshapeRuntimeShapeUnknownThenKnown) {
  Shape in{3, 4};
  ShapeOr<Shape> unknown = inferReshape(in, {}, unknownList(2));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(*unknown, (Shape{kDynamicDim, kDynamicDim}));
  Tensor target = ints({-1, 6});
  ShapeOr<Shape> known = inferReshape(in, {}, knownList(target));
  ASSERT_TRUE(known) << known.error();
  EXPECT_EQ(*known, (Shape{2, 6}));
}

TEST(ShapeShapes, ReshapeErrorsNameAttributeOrOperand) {
  Shape in{3, 4}, bad{5, 2};
  ShapeOr<Shape> r = inferReshape(in, bad, std::nullopt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "cannot reshape [3, 4] (12 elements) to [5, 2] (10 elements)");
  Tensor twoInferred = ints({-1, -1});
  ShapeOr<Shape> rt = inferReshape(in, {}, knownList(twoInferred));
  ASSERT_FALSE(rt);
  EXPECT_EQ(rt.error(), "operand 'shape_value' [-1, -1] has more than one -1");
  Shape attr{12};
  ShapeOr<Shape> both = inferReshape(in, attr, unknownList(1));
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error(), "takes the shape from attribute 'shape' [12] or "
                          "from operand 'shape_value', not both");
}

TEST(ShapeShapes, SqueezeAndUnsqueeze) {
  Shape in{1, 3, 1};
  Tensor axes = ints({0, -1});
  ShapeOr<Shape> sq = inferSqueeze(in, knownList(axes));
  ASSERT_TRUE(sq) << sq.error();
  EXPECT_EQ(*sq, (Shape{3}));
  EXPECT_EQ(*inferSqueeze(in, unknownList(2)), (Shape{kDynamicDim}));
  Tensor notOne = ints({1});
  ShapeOr<Shape> bad = inferSqueeze(in, knownList(notOne));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "cannot squeeze dim 1 of shape [1, 3, 1]: its size "
                         "is not 1");
  Shape vec{3, 4};
  Tensor at = ints({0, 3});
  ShapeOr<Shape> un = inferUnsqueeze(vec, knownList(at));
  ASSERT_TRUE(un) << un.error();
  EXPECT_EQ(*un, (Shape{1, 3, 4, 1}));
  Tensor outOfRange = ints({4});
  ShapeOr<Shape> far = inferUnsqueeze(vec, knownList(outOfRange));
  ASSERT_FALSE(far);
  EXPECT_EQ(far.error(),
            "operand 'axes_value' holds axis 4, out of range for rank 3");
}

TEST(ShapeShapes, PermuteChecksOrder) {
  Shape in{2, 3, 4}, order{2, 0, 1}, notPerm{0, 0, 1};
  EXPECT_EQ(*inferPermute(in, order), (Shape{4, 2, 3}));
  ShapeOr<Shape> r = inferPermute(in, notPerm);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'order' [0, 0, 1] is not a permutation of "
                       "0..2");
}

TEST(ShapeShapes, ConcatJoinsAlongAxis) {
  Shapes inputs{{2, 3}, {2, 5}};
  EXPECT_EQ(*inferConcat(inputs, -1), (Shape{2, 8}));
  Shapes mismatch{{2, 3}, {4, 3}};
  ShapeOr<Shape> r = inferConcat(mismatch, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "input #1 has shape [4, 3] but input #0 has shape "
                       "[2, 3]; only dim 1 (attribute 'axis') may differ");
}

TEST(ShapeShapes, SplitByAttributeAndRuntimeSizes) {
  Shape in{5, 2}, split{2, 3};
  ShapeOr<Shapes> r = inferSplit(in, 0, split, 2, std::nullopt);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shapes{{2, 2}, {3, 2}}));
  ShapeOr<Shapes> unknown = inferSplit(in, 0, {}, 2, unknownList(2));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(*unknown, (Shapes{{kDynamicDim, 2}, {kDynamicDim, 2}}));
  Tensor badSizes = ints({2, 2});
  ShapeOr<Shapes> bad = inferSplit(in, 0, {}, 2, knownList(badSizes));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(),
            "operand 'split_value' [2, 2] must sum to the size 5 of dim 0");
}

TEST(ShapeShapes, PadRuntimePads) {
  Shape in{3, 4};
  Tensor pads = ints({1, 2, 2, -1});
  ShapeOr<Shape> r = inferPad(in, "constant", {}, knownList(pads));
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{6, 5}));
  EXPECT_EQ(*inferPad(in, "edge", {}, unknownList(4)),
            (Shape{kDynamicDim, kDynamicDim}));
  ShapeOr<Shape> count = inferPad(in, "constant", {}, unknownList(3));
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error(), "operand 'pads_value' has 3 entries but the input "
                           "has rank 2 (needs 4)");
  Shape tooBig{3, 0, 0, 0};
  ShapeOr<Shape> reflect = inferPad(in, "reflect", tooBig, std::nullopt);
  ASSERT_FALSE(reflect);
  EXPECT_EQ(reflect.error(), "attribute 'pads' [3, 0, 0, 0] must be smaller "
                             "than dim 0 (size 3) in mode \"reflect\"");
  ShapeOr<Shape> mode = inferPad(in, "mirror", tooBig, std::nullopt);
  ASSERT_FALSE(mode);
  EXPECT_EQ(mode.error(), "attribute 'mode' = \"mirror\" must be "
                          "\"constant\", \"reflect\", \"edge\" or \"wrap\"");
}

TEST(ShapeShapes, TileKeepsZeroDimsWhenRepeatsUnknown) {
  Shape in{2, 0}, repeats{3, 2};
  EXPECT_EQ(*inferTile(in, repeats, std::nullopt), (Shape{6, 0}));
  EXPECT_EQ(*inferTile(in, {}, unknownList(2)), (Shape{kDynamicDim, 0}));
  Shape wide{2, 3};
  Tensor huge = ints({int64_t(1) << 40, int64_t(1) << 40});
  ShapeOr<Shape> r = inferTile(wide, {}, knownList(huge));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "shape [2199023255552, 3298534883328] has a negative "
                       "dim or overflows int64");
}

TEST(ShapeShapes, ExpandBroadcastsAndLimitsRuntimeSize) {
  Shape in{3, 1}, target{2, 3, 4};
  EXPECT_EQ(*inferExpand(in, target, std::nullopt), (Shape{2, 3, 4}));
  EXPECT_EQ(*inferExpand(in, {}, unknownList(3)),
            (Shape{kDynamicDim, 3, kDynamicDim}));
  Shape one{1};
  Tensor big = ints({1 << 20, 1 << 20});
  ShapeOr<Shape> r = inferExpand(one, {}, knownList(big));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "result shape [1048576, 1048576] computed at run time "
                       "has more than 2^31 elements, the element limit "
                       "(--max-elements raises it)");
  Shape bad{4, 2};
  ShapeOr<Shape> nb = inferExpand(in, bad, std::nullopt);
  ASSERT_FALSE(nb);
  EXPECT_EQ(nb.error(), "attribute 'shape' [4, 2] does not broadcast with the "
                        "input shape [3, 1]");
}
