//===- MatMulShapesTest.cpp - shape functions of the MatMul ops ----------===//

#include "strata/Dialect/Top/Shapes/MatMulShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(MatMulShapes, BroadcastsBatchDims) {
  Shape a{2, 1, 3, 4}, b{5, 4, 6};
  ShapeOr<Shape> r = inferMatMul(a, b, std::nullopt, false);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 5, 3, 6}));
}

TEST(MatMulShapes, VectorsAndTranspose) {
  Shape v{4}, m{2, 4, 6}, t{6, 4}, lhs{3, 4};
  ShapeOr<Shape> dot = inferMatMul(v, v, std::nullopt, false);
  ASSERT_TRUE(dot) << dot.error();
  EXPECT_EQ(*dot, Shape{});
  ShapeOr<Shape> vm = inferMatMul(v, m, std::nullopt, false);
  ASSERT_TRUE(vm) << vm.error();
  EXPECT_EQ(*vm, (Shape{2, 6}));
  ShapeOr<Shape> mt = inferMatMul(lhs, t, std::nullopt, true);
  ASSERT_TRUE(mt) << mt.error();
  EXPECT_EQ(*mt, (Shape{3, 6}));
}

TEST(MatMulShapes, DynamicBatchDimStaysDynamic) {
  Shape a{kDynamicDim, 3, 4}, b{4, 5};
  ShapeOr<Shape> r = inferMatMul(a, b, std::nullopt, false);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{kDynamicDim, 3, 5}));
}

TEST(MatMulShapes, GeometryForTheInterpreter) {
  Shape a{2, 3, 4}, b{4, 5};
  ShapeOr<MatMulGeometry> g = matmulGeometry(a, b, false);
  ASSERT_TRUE(g) << g.error();
  EXPECT_EQ(g->batch, (Shape{2}));
  EXPECT_EQ(g->rhsBatch, Shape{});
  EXPECT_EQ(g->m, 3);
  EXPECT_EQ(g->k, 4);
  EXPECT_EQ(g->n, 5);
}

TEST(MatMulShapes, RejectsContractingDimsAndBias) {
  Shape a{3, 4}, b{5, 6}, c{4, 6}, bias{5};
  ShapeOr<Shape> r = inferMatMul(a, b, std::nullopt, false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "contracting dims differ: input shape [3, 4] has K = "
                       "4, right shape [5, 6] has K = 5");
  r = inferMatMul(a, c, Ints(bias), false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "bias must have 1 or 6 elements (the output's last "
                       "dim), got shape [5]");
}
