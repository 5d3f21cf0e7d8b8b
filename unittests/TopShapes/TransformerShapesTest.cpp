//===- TransformerShapesTest.cpp - shape functions of Transformer ops -----===//

#include "strata/Dialect/Top/Shapes/TransformerShapes.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::top::shapes;

TEST(TransformerShapes, AttentionRank3WithCache) {
  // B=1, Sq=3, Hq=4, Hkv=2, D=2; a past of 5 positions.
  Shape q{1, 3, 8}, k{1, 3, 4}, v{1, 3, 4}, past{1, 2, 5, 2}, mask{3, 8};
  AttentionOperands in{q, k, v, mask, past, past, std::nullopt};
  ShapeOr<Shapes> s = inferAttention(in, 4, 2);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(*s, (Shapes{{1, 3, 8}, {1, 2, 8, 2}, {1, 2, 8, 2}, {1, 4, 3, 8}}));
}

TEST(TransformerShapes, AttentionRank4) {
  Shape q{2, 4, 3, 8}, k{2, 2, 6, 8}, v{2, 2, 6, 5};
  ShapeOr<Shapes> s =
      inferAttention({q, k, v, {}, {}, {}, {}}, std::nullopt, std::nullopt);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ((*s)[0], (Shape{2, 4, 3, 5}));
  EXPECT_EQ((*s)[3], (Shape{2, 4, 3, 6}));
}

TEST(TransformerShapes, AttentionRejectsIndivisibleHeads) {
  Shape q{1, 3, 8}, k{1, 3, 8}, v{1, 3, 8};
  ShapeOr<Shapes> s = inferAttention({q, k, v, {}, {}, {}, {}}, 3, 1);
  ASSERT_FALSE(s);
  EXPECT_EQ(
      s.error(),
      "query hidden size 8 is not divisible by attribute 'q_num_heads' = 3");
}

TEST(TransformerShapes, AttentionRejectsLonePastKey) {
  Shape q{1, 2, 3, 4}, past{1, 2, 1, 4};
  AttentionOperands in{q, q, q, {}, past, {}, {}};
  ShapeOr<Shapes> s = inferAttention(in, std::nullopt, std::nullopt);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "past_key and past_value must be given together");
}

TEST(TransformerShapes, RMSNormKeepsInputShape) {
  Shape in{2, 3, 4}, scale{4};
  ShapeOr<Shape> s = inferRMSNorm(in, scale, -1);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(*s, in);
}

TEST(TransformerShapes, RMSNormRejectsScaleThatGrows) {
  Shape in{2, 3}, scale{2, 3};
  ShapeOr<Shape> s = inferRMSNorm(in, scale, 1);
  ASSERT_FALSE(s);
  EXPECT_EQ(
      s.error(),
      "scale shape [2, 3] does not broadcast to the normalized shape [3]");
}

TEST(TransformerShapes, RotaryEmbeddingWithPositionIds) {
  Shape in{2, 3, 8}, cache{10, 2}, pos{2, 3};
  ShapeOr<RotaryDims> d = rotaryDims(in, cache, cache, pos, 2, 0);
  ASSERT_TRUE(d) << d.error();
  EXPECT_TRUE(d->rank3);
  EXPECT_EQ(d->headSize, 4);
  EXPECT_EQ(d->positions, 10);
  ShapeOr<Shape> s = inferRotaryEmbedding(in, cache, cache, pos, 2, 0);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, in);
}

TEST(TransformerShapes, RotaryEmbeddingRejectsOddRotaryDim) {
  Shape in{1, 2, 3, 4}, cache{1, 3, 2};
  ShapeOr<Shape> s = inferRotaryEmbedding(in, cache, cache, std::nullopt, 0, 3);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "attribute 'rotary_embedding_dim' = 3 must be 0 or "
                       "even, positive and <= head size 4");
}

TEST(TransformerShapes, LinearAttentionGatedDelta) {
  // B=1, T=3, Hq=4, Hkv=2, Dk=2, Dv=3.
  Shape q{1, 3, 8}, k{1, 3, 4}, v{1, 3, 6}, decay{1, 3, 4}, beta{1, 3, 1};
  LinearAttentionOperands in{q, k, v, std::nullopt, decay, beta};
  ShapeOr<Shapes> s = inferLinearAttention(in, "gated_delta", 4, 2);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(*s, (Shapes{{1, 3, 12}, {1, 2, 2, 3}}));
  ShapeOr<LinearAttentionDims> d = linearAttentionDims(in, "gated_delta", 4, 2);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->decayPerDim);
  EXPECT_EQ(d->betaHeads, 1);
}

TEST(TransformerShapes, LinearAttentionRejectsMissingDecay) {
  Shape q{1, 3, 4};
  ShapeOr<Shapes> s =
      inferLinearAttention({q, q, q, {}, {}, {}}, "gated", 2, 2);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "decay must be given exactly when 'update_rule' gates "
                       "(got 'gated')");
}
