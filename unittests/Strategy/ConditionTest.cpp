//===- ConditionTest.cpp - clauses, conditions, contradiction -------------===//

#include "TestWorkloads.h"

#include "strata/Strategy/Condition.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::strategy;
using namespace strata::strategy::test;
using Cmp = Clause::Cmp;

namespace {

TensorRef in0 = TensorRef::operand(0), in1 = TensorRef::operand(1);

Truth eval(const Clause &c, const Workload &w) { return c.evaluate(w).truth; }

TEST(ClauseTest, DimComparisons) {
  Workload w = matmul(4, 64, 32);
  EXPECT_EQ(eval(Clause::dim(in0, 0, Cmp::Eq, 4), w), Truth::True);
  EXPECT_EQ(eval(Clause::dim(in0, 0, Cmp::Eq, 5), w), Truth::False);
  EXPECT_EQ(eval(Clause::dim(in0, 0, Cmp::Ne, 4), w), Truth::False);
  EXPECT_EQ(eval(Clause::dim(in0, 0, Cmp::Ne, 1), w), Truth::True);
  EXPECT_EQ(eval(Clause::dim(in0, 1, Cmp::Le, 64), w), Truth::True);
  EXPECT_EQ(eval(Clause::dim(in0, 1, Cmp::Le, 63), w), Truth::False);
  EXPECT_EQ(eval(Clause::dim(in0, 1, Cmp::Ge, 64), w), Truth::True);
  EXPECT_EQ(eval(Clause::dim(in0, 1, Cmp::Ge, 65), w), Truth::False);
  EXPECT_EQ(eval(Clause::dim(in0, 1, Cmp::DivisibleBy, 16), w), Truth::True);
  EXPECT_EQ(eval(Clause::dim(in0, 1, Cmp::DivisibleBy, 5), w), Truth::False);
  // Negative dims count from the end.
  EXPECT_EQ(eval(Clause::dim(in1, -1, Cmp::Eq, 32), w), Truth::True);
  ClauseResult r = Clause::dim(in0, 1, Cmp::Eq, 3).evaluate(w);
  EXPECT_EQ(r.why, "dim 1 = 64");
}

TEST(ClauseTest, DimOutOfRangeOrMissingTensorFails) {
  Workload w = matmul(4, 64, 32);
  ClauseResult r = Clause::dim(in0, 2, Cmp::Eq, 1).evaluate(w);
  EXPECT_EQ(r.truth, Truth::False);
  EXPECT_EQ(r.why, "rank 2 has no dim 2");
  r = Clause::dim(TensorRef::operand(2), 0, Cmp::Eq, 1).evaluate(w);
  EXPECT_EQ(r.truth, Truth::False);
  EXPECT_EQ(r.why, "operand 2 is none");
  r = Clause::dim(TensorRef::operand(7), 0, Cmp::Eq, 1).evaluate(w);
  EXPECT_EQ(r.truth, Truth::False);
  EXPECT_EQ(r.why, "no operand 7");
}

TEST(ClauseTest, UnknownOnlyFromDynamicDims) {
  Workload w = matmul(Q, 64, 32);
  ClauseResult r = Clause::dim(in0, 0, Cmp::Eq, 1).evaluate(w);
  EXPECT_EQ(r.truth, Truth::Unknown);
  EXPECT_EQ(r.why, "dim 0 is dynamic");
  // Every comparison kind is unknown on a dynamic dim.
  for (Cmp c : {Cmp::Eq, Cmp::Ne, Cmp::Le, Cmp::Ge, Cmp::DivisibleBy})
    EXPECT_EQ(eval(Clause::dim(in0, 0, c, 4), w), Truth::Unknown);
  // A known dim of the same tensor is still decided.
  EXPECT_EQ(eval(Clause::dim(in0, 1, Cmp::Eq, 64), w), Truth::True);
  // Rank, dtype and attributes never are unknown on a ranked tensor.
  EXPECT_EQ(eval(Clause::rank(in0, 2), w), Truth::True);
  EXPECT_EQ(eval(Clause::dtypeIn(in0, {"f32"}), w), Truth::True);
  // An unranked tensor has no known dims or rank.
  w.operands[0] = {"f32", {}, false};
  EXPECT_EQ(eval(Clause::dim(in0, 0, Cmp::Eq, 1), w), Truth::Unknown);
  EXPECT_EQ(eval(Clause::rank(in0, 2), w), Truth::Unknown);
}

TEST(ClauseTest, RankAndDType) {
  Workload w = conv(1, 8, 8, 3, 1, "qi8");
  EXPECT_EQ(eval(Clause::rank(in0, 4), w), Truth::True);
  EXPECT_EQ(eval(Clause::rank(in0, 3), w), Truth::False);
  EXPECT_EQ(eval(Clause::dtypeIn(in0, {"i8", "qi8"}), w), Truth::True);
  ClauseResult r = Clause::dtypeIn(in0, {"f32"}).evaluate(w);
  EXPECT_EQ(r.truth, Truth::False);
  EXPECT_EQ(r.why, "dtype qi8");
  EXPECT_EQ(eval(Clause::dtypeIn(TensorRef::result(0), {"i32"}), w),
            Truth::True);
}

TEST(ClauseTest, Attributes) {
  Workload w = conv(1, 8, 8, 3, /*group=*/2);
  EXPECT_EQ(eval(Clause::attrEq("group", AttrValue::integer(2)), w),
            Truth::True);
  EXPECT_EQ(eval(Clause::attrEq("group", AttrValue::integer(1)), w),
            Truth::False);
  EXPECT_EQ(eval(Clause::attrIn("group",
                                {AttrValue::integer(1), AttrValue::integer(2)}),
                 w),
            Truth::True);
  EXPECT_EQ(eval(Clause::attrEq("layout", AttrValue::string("NCHW")), w),
            Truth::True);
  EXPECT_EQ(eval(Clause::attrEq("layout", AttrValue::string("NHWC")), w),
            Truth::False);
  EXPECT_EQ(eval(Clause::attrEq("kernel_shape", AttrValue::intList({3, 3})), w),
            Truth::True);
  EXPECT_EQ(eval(Clause::attrAllEqual("kernel_shape", 3), w), Truth::True);
  EXPECT_EQ(eval(Clause::attrAllEqual("kernel_shape", 1), w), Truth::False);
  // A value of another kind is not equal (int 1 vs bool true).
  EXPECT_EQ(eval(Clause::attrEq("group", AttrValue::boolean(true)), w),
            Truth::False);
  ClauseResult r =
      Clause::attrEq("epsilon", AttrValue::floating(1)).evaluate(w);
  EXPECT_EQ(r.truth, Truth::False);
  EXPECT_EQ(r.why, "epsilon absent");
  // all == k needs a non-empty int list.
  w.attrs["kernel_shape"] = AttrValue::intList({});
  EXPECT_EQ(eval(Clause::attrAllEqual("kernel_shape", 3), w), Truth::False);
  w.attrs["kernel_shape"] = AttrValue::integer(3);
  EXPECT_EQ(eval(Clause::attrAllEqual("kernel_shape", 3), w), Truth::False);
}

TEST(ClauseTest, AllStatic) {
  Workload w = matmul(4, 64, 32);
  EXPECT_EQ(eval(Clause::allStatic(), w), Truth::True);
  w = matmul(Q, 64, 32);
  ClauseResult r = Clause::allStatic().evaluate(w);
  // A compile-time property: false, not unknown, with a dynamic dim.
  EXPECT_EQ(r.truth, Truth::False);
  EXPECT_EQ(r.why, "operand 0 is f32[?, 64]");
}

TEST(ClauseTest, Printing) {
  EXPECT_EQ(Clause::dim(in1, -2, Cmp::Ge, 16).str(), "operand 1 dim -2 >= 16");
  EXPECT_EQ(Clause::dim(TensorRef::result(0), 1, Cmp::DivisibleBy, 8).str(),
            "result 0 dim 1 % 8 == 0");
  EXPECT_EQ(Clause::rank(in0, 4).str(), "rank(operand 0) == 4");
  EXPECT_EQ(Clause::dtypeIn(in0, {"i8", "qi8"}).str(),
            "dtype(operand 0) in {i8, qi8}");
  EXPECT_EQ(Clause::attrIn("layout", {AttrValue::string("NCHW")}).str(),
            "attr layout in {\"NCHW\"}");
  EXPECT_EQ(Clause::attrAllEqual("strides", 1).str(), "attr strides all == 1");
  EXPECT_EQ(Clause::allStatic().str(), "all dims static");
  EXPECT_EQ(Condition().str(), "always");
  EXPECT_EQ((Condition{Clause::rank(in0, 2)} &&
             Condition{Clause::dim(in0, 0, Cmp::Eq, 1)})
                .str(),
            "rank(operand 0) == 2 && operand 0 dim 0 == 1");
}

TEST(ConditionTest, ConjunctionTruth) {
  Workload w = matmul(Q, 64, 32);
  Condition held = {Clause::rank(in0, 2), Clause::dim(in0, 1, Cmp::Eq, 64)};
  Condition unknown = held && Condition{Clause::dim(in0, 0, Cmp::Eq, 1)};
  Condition failed = unknown && Condition{Clause::dtypeIn(in0, {"i8"})};
  EXPECT_EQ(held.evaluate(w).truth, Truth::True);
  EXPECT_EQ(unknown.evaluate(w).truth, Truth::Unknown);
  // False wins over unknown.
  ConditionResult r = failed.evaluate(w);
  EXPECT_EQ(r.truth, Truth::False);
  ASSERT_EQ(r.clauses.size(), 4u);
  EXPECT_EQ(r.clauses[2].truth, Truth::Unknown);
  EXPECT_EQ(r.clauses[3].truth, Truth::False);
  EXPECT_EQ(Condition().evaluate(w).truth, Truth::True);
}

TEST(ConditionTest, ContradictionRules) {
  auto disjoint = [](Clause a, Clause b) {
    EXPECT_EQ(a.contradicts(b), b.contradicts(a))
        << a.str() << " / " << b.str();
    return Condition{a}.disjointFrom(Condition{b});
  };
  // dtype sets.
  EXPECT_TRUE(
      disjoint(Clause::dtypeIn(in0, {"f32"}), Clause::dtypeIn(in0, {"i8"})));
  EXPECT_FALSE(disjoint(Clause::dtypeIn(in0, {"f32", "i8"}),
                        Clause::dtypeIn(in0, {"i8"})));
  EXPECT_FALSE(
      disjoint(Clause::dtypeIn(in0, {"f32"}), Clause::dtypeIn(in1, {"i8"})));
  // dims: ==, !=, <=, >=, %.
  EXPECT_TRUE(disjoint(Clause::dim(in0, 1, Cmp::Eq, 1),
                       Clause::dim(in0, 1, Cmp::Ne, 1)));
  EXPECT_TRUE(disjoint(Clause::dim(in0, 1, Cmp::Eq, 1),
                       Clause::dim(in0, 1, Cmp::Eq, 2)));
  EXPECT_TRUE(disjoint(Clause::dim(in0, 1, Cmp::Eq, 1),
                       Clause::dim(in0, 1, Cmp::Ge, 2)));
  EXPECT_TRUE(disjoint(Clause::dim(in0, 1, Cmp::Le, 15),
                       Clause::dim(in0, 1, Cmp::Ge, 16)));
  EXPECT_TRUE(disjoint(Clause::dim(in0, 1, Cmp::Eq, 6),
                       Clause::dim(in0, 1, Cmp::DivisibleBy, 4)));
  EXPECT_FALSE(disjoint(Clause::dim(in0, 1, Cmp::Eq, 8),
                        Clause::dim(in0, 1, Cmp::DivisibleBy, 4)));
  EXPECT_FALSE(disjoint(Clause::dim(in0, 1, Cmp::Le, 16),
                        Clause::dim(in0, 1, Cmp::Ge, 16)));
  EXPECT_FALSE(disjoint(Clause::dim(in0, 1, Cmp::Ne, 1),
                        Clause::dim(in0, 1, Cmp::Ne, 2)));
  // Another dim or tensor is another field.
  EXPECT_FALSE(disjoint(Clause::dim(in0, 1, Cmp::Eq, 1),
                        Clause::dim(in0, 2, Cmp::Ne, 1)));
  EXPECT_FALSE(disjoint(Clause::dim(in0, 1, Cmp::Eq, 1),
                        Clause::dim(in1, 1, Cmp::Ne, 1)));
  // ranks.
  EXPECT_TRUE(disjoint(Clause::rank(in0, 4), Clause::rank(in0, 3)));
  EXPECT_FALSE(disjoint(Clause::rank(in0, 4), Clause::rank(in1, 3)));
  // attribute sets and all-equal.
  EXPECT_TRUE(disjoint(
      Clause::attrIn("mode", {AttrValue::string("a"), AttrValue::string("b")}),
      Clause::attrIn("mode", {AttrValue::string("c")})));
  EXPECT_FALSE(disjoint(
      Clause::attrIn("mode", {AttrValue::string("a"), AttrValue::string("b")}),
      Clause::attrIn("mode", {AttrValue::string("b")})));
  EXPECT_FALSE(disjoint(Clause::attrEq("a", AttrValue::integer(1)),
                        Clause::attrEq("b", AttrValue::integer(2))));
  EXPECT_TRUE(disjoint(Clause::attrAllEqual("strides", 1),
                       Clause::attrAllEqual("strides", 2)));
  EXPECT_FALSE(disjoint(Clause::attrAllEqual("strides", 1),
                        Clause::attrAllEqual("pads", 2)));
  EXPECT_TRUE(disjoint(Clause::attrAllEqual("strides", 1),
                       Clause::attrEq("strides", AttrValue::intList({2, 1}))));
  EXPECT_FALSE(disjoint(Clause::attrAllEqual("strides", 1),
                        Clause::attrEq("strides", AttrValue::intList({1, 1}))));
  // Different kinds of clause are never provably disjoint.
  EXPECT_FALSE(disjoint(Clause::allStatic(), Clause::dim(in0, 0, Cmp::Eq, 1)));
  EXPECT_FALSE(disjoint(Clause::rank(in0, 2), Clause::dim(in0, 3, Cmp::Eq, 1)));
  // A condition is disjoint if any pair of clauses contradicts.
  Condition a = {Clause::rank(in0, 4), Clause::dtypeIn(in0, {"f32"})};
  Condition b = {Clause::rank(in0, 4), Clause::dtypeIn(in0, {"i8"})};
  EXPECT_TRUE(a.disjointFrom(b));
  EXPECT_FALSE(a.disjointFrom(Condition()));
}

} // namespace
