//===- QuantShapesTest.cpp - shape functions of the Quant ops -------------===//

#include "strata/Dialect/Top/Shapes/QuantShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(QuantShapes, QuantKeepsTheInputShape) {
  Shape input{2, 3};
  ShapeOr<Shape> perTensor = inferQuant(input, std::nullopt);
  ASSERT_TRUE(perTensor) << perTensor.error();
  EXPECT_EQ(*perTensor, input);
  ShapeOr<Shape> perAxis = inferQuant(input, QuantAxis{1, 3});
  ASSERT_TRUE(perAxis) << perAxis.error();
  EXPECT_EQ(*perAxis, input);
}

TEST(QuantShapes, PerAxisScalesMustMatchTheDim) {
  // At run time a dynamic dim has its size: the scales must match it.
  Shape input{2, 4};
  ShapeOr<Shape> r = inferQuant(input, QuantAxis{1, 3});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "result has 3 scales on quantized dimension 1 but that dim has "
            "size 4");
  ShapeOr<Shape> d = inferDequant(input, QuantAxis{2, 3});
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error(),
            "input quantized dimension 2 is out of range for rank 2");
}

TEST(QuantShapes, PerAxisDynamicDimPasses) {
  Shape input{2, kDynamicDim};
  EXPECT_FALSE(checkQuantAxis("input", QuantAxis{1, 3}, input).has_value());
}

TEST(QuantShapes, RequantPerChannel) {
  Shape input{1, 3, 4, 4}, multiplier{1, 2, 3}, rshift{5};
  RequantAttrs attrs;
  attrs.quantMode = "MultiplierShift";
  attrs.multiplier = Ints(multiplier);
  attrs.rshift = Ints(rshift);
  ShapeOr<Shape> r = inferRequant(input, attrs);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, input);
  Shape wide{1, 4, 4, 4};
  ShapeOr<Shape> w = inferRequant(wide, attrs);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error(), "attribute 'multiplier' must have 1 or 4 (input dim 1) "
                       "values, got 3 [1, 2, 3]");
}

TEST(QuantShapes, RequantAttrsWithoutAShape) {
  Shape multiplier{1, 2, 3}, rshift{64};
  RequantAttrs attrs;
  attrs.quantMode = "MultiplierShift";
  attrs.multiplier = Ints(multiplier);
  attrs.rshift = Ints(rshift);
  // Unranked input: the channel count waits, the ranges do not.
  std::optional<ShapeError> e = checkRequantAttrs(attrs, std::nullopt);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->message(), "attribute 'rshift' value 64 at index 0 must be in "
                          "[0, 63]");
}

TEST(QuantShapes, RequantModeChecks) {
  Shape input{2, 3}, one{1};
  RequantAttrs attrs;
  attrs.quantMode = "QDM";
  ShapeOr<Shape> r = inferRequant(input, attrs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "attribute 'quant_mode' must be \"MultiplierShift\", "
                       "\"TFLite\", \"Float\", \"TosaSingleRound\", "
                       "\"TosaDoubleRound\" or \"TFLiteHalfUp\", got \"QDM\"");
  attrs.quantMode = "TFLite";
  attrs.rshift = Ints(one);
  ShapeOr<Shape> m = inferRequant(input, attrs);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error(), "quant_mode \"TFLite\" requires attribute 'multiplier'");
  attrs.quantMode = "Float";
  ShapeOr<Shape> f = inferRequant(input, attrs);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error(),
            "attribute 'rshift' is not used by quant_mode \"Float\"");
}
