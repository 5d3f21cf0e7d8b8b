//===- RecurrentShapesTest.cpp - shape functions of Recurrent ops ---------===//

#include "strata/Dialect/Top/Shapes/RecurrentShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

namespace {
/// An LSTM (4 gates, 3 results) of hidden size 2 in `direction`.
RecurrentAttrs lstm(const char *direction, int64_t layout = 0) {
  return {4, 2, direction, layout, 3};
}
} // namespace

TEST(RecurrentShapes, LstmForward) {
  Shape x{5, 3, 4}, w{1, 8, 4}, r{1, 8, 2}, b{1, 16}, h0{1, 3, 2};
  RecurrentOperands in{x, w, r, b, std::nullopt, h0, h0, std::nullopt};
  ShapeOr<Shapes> s = inferRecurrent(in, lstm("forward"));
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(*s, (Shapes{{5, 1, 3, 2}, {1, 3, 2}, {1, 3, 2}}));
}

TEST(RecurrentShapes, BidirectionalBatchFirstGru) {
  Shape x{3, 5, 4}, w{2, 6, 4}, r{2, 6, 2}, lens{3};
  RecurrentOperands in{x, w, r, {}, lens, {}, {}, {}};
  ShapeOr<Shapes> s = inferRecurrent(in, {3, 2, "bidirectional", 1, 2});
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(*s, (Shapes{{3, 5, 2, 2}, {3, 2, 2}}));
  ShapeOr<RecurrentDims> d = recurrentDims(in, {3, 2, "bidirectional", 1, 2});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->seq, 5);
  EXPECT_EQ(d->batch, 3);
  EXPECT_EQ(d->dirs, 2);
}

TEST(RecurrentShapes, DynamicSequenceLengthStaysDynamic) {
  Shape x{kDynamicDim, 3, 4}, w{1, 2, 4}, r{1, 2, 2};
  RecurrentOperands in{x, w, r, {}, {}, {}, {}, {}};
  ShapeOr<Shapes> s = inferRecurrent(in, {1, 2, "reverse", 0, 2});
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(*s, (Shapes{{kDynamicDim, 1, 3, 2}, {1, 3, 2}}));
}

TEST(RecurrentShapes, RejectsWeightOfWrongShape) {
  Shape x{5, 1, 4}, w{1, 6, 4}, r{1, 8, 2};
  RecurrentOperands in{x, w, r, {}, {}, {}, {}, {}};
  ShapeOr<Shapes> s = inferRecurrent(in, lstm("forward"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(),
            "operand 'weight' must have shape [1, 8, 4], got [1, 6, 4]");
}

TEST(RecurrentShapes, RejectsUnknownDirection) {
  ShapeOr<int64_t> dirs = checkRecurrentAttrs(lstm("sideways"));
  ASSERT_FALSE(dirs);
  EXPECT_EQ(dirs.error(), "attribute 'direction' = \"sideways\" must be "
                          "\"forward\", \"reverse\" or \"bidirectional\"");
}

TEST(RecurrentShapes, RejectsInputOfRankTwo) {
  Shape x{3, 4}, w{1, 8, 4}, r{1, 8, 2};
  ShapeOr<Shapes> s =
      inferRecurrent({x, w, r, {}, {}, {}, {}, {}}, lstm("forward", 1));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "operand 'input' must have rank 3 ([batch, seq, "
                       "input]), got shape [3, 4]");
}
