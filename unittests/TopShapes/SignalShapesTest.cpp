//===- SignalShapesTest.cpp - shape functions of the Signal ops -----------===//

#include "strata/Dialect/Top/Shapes/SignalShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(SignalShapes, WindowIsOneDim) {
  ShapeOr<Shape> r = inferWindow(10);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{10}));
  ShapeOr<Shape> bad = inferWindow(-1);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "attribute 'size' = -1 must be >= 0");
}

TEST(SignalShapes, MelWeightMatrixIsBinsByMels) {
  MelWeightMatrixAttrs attrs{8, 16, 8192};
  Shape scalar{}, one{1};
  ShapeOr<Shape> r = inferMelWeightMatrix(attrs, scalar, one);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{9, 8}));
}

TEST(SignalShapes, MelWeightMatrixChecksAttributesThenOperands) {
  Shape scalar{}, two{2};
  ShapeOr<Shape> r = inferMelWeightMatrix({8, 0, 8192}, scalar, two);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'dft_length' = 0 must be in [1, 2^24]");
  ShapeOr<Shape> s = inferMelWeightMatrix({8, 16, 8192}, scalar, two);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(),
            "operand 'upper_edge_hertz' shape [2] must have one element");
}

TEST(SignalShapes, DFTOnesidedForward) {
  Shape input{2, 10, 1};
  DFTAttrs attrs{1, 10, /*inverse=*/false, /*onesided=*/true};
  ShapeOr<Shape> r = inferDFT(input, attrs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 6, 2}));
}

TEST(SignalShapes, DFTOnesidedInverseIsReal) {
  Shape input{2, 6, 2};
  DFTAttrs attrs{1, 10, /*inverse=*/true, /*onesided=*/true};
  ShapeOr<Shape> r = inferDFT(input, attrs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{2, 10, 1}));
}

TEST(SignalShapes, DFTRejectsBadInputAndAxis) {
  Shape complex3{2, 10, 3}, ok{2, 10, 2};
  ShapeOr<Shape> r = inferDFT(complex3, {1, 10, false, false});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "operand 'input' shape [2, 10, 3] must have rank >= 3 "
                       "and a last dim of 1 (real) or 2 (complex)");
  ShapeOr<Shape> a = inferDFT(ok, {2, 10, false, false});
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error(), "attribute 'axis' = 2 must be a signal dim in [0, 1]");
}

TEST(SignalShapes, STFTFramesAndBins) {
  Shape signal{1, 128, 1}, window{16};
  STFTAttrs attrs{8, 16, /*onesided=*/true};
  ShapeOr<Shape> r = inferSTFT(signal, Ints(window), attrs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, (Shape{1, 15, 9, 2}));
  ShapeOr<Shape> noWindow = inferSTFT(signal, std::nullopt, attrs);
  ASSERT_TRUE(noWindow) << noWindow.error();
  EXPECT_EQ(*noWindow, (Shape{1, 15, 9, 2}));
}

TEST(SignalShapes, STFTRejectsAWindowOfAnotherLength) {
  Shape signal{1, 128, 1}, window{15};
  ShapeOr<Shape> r = inferSTFT(signal, Ints(window), {8, 16, false});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "operand 'window' shape [15] must be [frame_length] = [16]");
}

TEST(SignalShapes, STFTRejectsAFrameLongerThanTheSignal) {
  Shape signal{1, 10, 2};
  ShapeOr<Shape> r = inferSTFT(signal, std::nullopt, {1, 11, false});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "attribute 'frame_length' = 11 exceeds the signal length 10");
}
