//===- ControlFlowShapesTest.cpp - shape functions of ControlFlow ops -----===//

#include "strata/Dialect/Top/Shapes/ControlFlowShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

namespace {
/// A one-element tensor of `type` holding `value` (shape `shape`).
Tensor scalar(DType type, int64_t value, std::vector<int64_t> shape = {}) {
  Tensor t(type, shape);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setFromDouble(i, static_cast<double>(value));
  return t;
}
} // namespace

TEST(ControlFlowShapes, IfJoinsBranchesWithoutCondition) {
  Shape same{4}, a{3, 2}, b{5, 2};
  ShapeOr<Shapes> r = inferIf({same, a}, {same, b}, nullptr);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shapes{{4}, {kDynamicDim, 2}}));
}

TEST(ControlFlowShapes, IfTakesBranchOfKnownCondition) {
  Shape a{3, 2}, b{5, 2};
  Tensor yes = scalar(DType::Bool, 1), no = scalar(DType::Bool, 0);
  ShapeOr<Shapes> t = inferIf({a}, {b}, &yes);
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(*t, (Shapes{{3, 2}}));
  ShapeOr<Shapes> e = inferIf({a}, {b}, &no);
  ASSERT_TRUE(e) << e.error();
  EXPECT_EQ(*e, (Shapes{{5, 2}}));
}

TEST(ControlFlowShapes, IfRejectsConditionOfTwoElements) {
  Shape a{2};
  Tensor cond = scalar(DType::Bool, 1, {2});
  ShapeOr<Shapes> r = inferIf({a}, {a}, &cond);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "operand 'cond' must have one element at run time, got shape [2]");
}

TEST(ControlFlowShapes, IfRejectsBranchesOfDifferentRanks) {
  Shape a{4}, b{2, 2};
  ShapeOr<Shapes> r = inferIf({a}, {b}, nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "the branches yield value #0 with different ranks (1 and 2)");
}

TEST(ControlFlowShapes, LoopTripCountIsDynamicUnlessNoIterationRuns) {
  Shape init{3}, yielded{kDynamicDim}, slice{3};
  LoopShapeInputs in;
  in.initial = {init};
  in.carriedYields = {yielded};
  in.scanYields = {slice};
  ShapeOr<Shapes> r = inferLoop(in);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shapes{{kDynamicDim}, {kDynamicDim, 3}}));

  Tensor five = scalar(DType::I64, 5), zero = scalar(DType::I64, 0);
  in.maxTripCount = &five;
  r = inferLoop(in);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ((*r)[1], (Shape{kDynamicDim, 3})); // the body may stop early

  in.maxTripCount = &zero;
  r = inferLoop(in);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ((*r)[1], (Shape{0, 3}));

  Tensor no = scalar(DType::Bool, 0);
  in.maxTripCount = &five;
  in.cond = &no;
  r = inferLoop(in);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ((*r)[1], (Shape{0, 3}));
}

TEST(ControlFlowShapes, LoopRejectsTripCountOfTwoElements) {
  Tensor m = scalar(DType::I64, 2, {2});
  LoopShapeInputs in;
  in.maxTripCount = &m;
  ShapeOr<Shapes> r = inferLoop(in);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "operand 'max_trip_count' must have one element at "
                       "run time, got shape [2]");
}

TEST(ControlFlowShapes, LoopRejectsCarriedRankChange) {
  Shape init{3}, yielded{1, 3};
  LoopShapeInputs in;
  in.initial = {init};
  in.carriedYields = {yielded};
  ShapeOr<Shapes> r = inferLoop(in);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "the body yields carried value #0 with rank 2 but its "
                       "initial value has rank 1");
}

TEST(ControlFlowShapes, ScanInsertsLengthAtOutputAxis) {
  Shape state{2}, stateYield{kDynamicDim}, x{2, 5}, slice{2};
  Shape inAxes{-1}, outAxes{-1};
  ScanShapeInputs in{{state}, {stateYield}, {x}, inAxes, {slice}, outAxes};
  ShapeOr<Shapes> r = inferScan(in);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shapes{{kDynamicDim}, {2, 5}}));
}

TEST(ControlFlowShapes, ScanLengthSkipsUnknownLengths) {
  Shape a{kDynamicDim, 2}, b{4, 2}, axes{0, 0};
  ShapeOr<int64_t> r = scanLength({a, b}, axes);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, 4);
}

TEST(ControlFlowShapes, ScanRejectsInputsOfDifferentLengths) {
  Shape a{3, 2}, b{4, 2}, axes{0, 0};
  ShapeOr<int64_t> r = scanLength({a, b}, axes);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "scan input #1 has 4 slices along axis 0 but scan input #0 has 3");
}

TEST(ControlFlowShapes, ScanRejectsOutputAxisOutOfRange) {
  Shape x{3, 2}, slice{2}, inAxes{0}, outAxes{2};
  ScanShapeInputs in{{}, {}, {x}, inAxes, {slice}, outAxes};
  ShapeOr<Shapes> r = inferScan(in);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "attribute 'scan_output_axes' = 2 is out of range for rank 2");
}
