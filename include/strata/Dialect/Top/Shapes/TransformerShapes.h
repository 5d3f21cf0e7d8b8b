//===- TransformerShapes.h - shape functions of Transformer ops -*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/TransformerOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions. The `*Dims` functions
// give the sizes an op's reference semantics iterate over as well as its
// result shapes; errors name the operand or attribute and the value.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_TRANSFORMERSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_TRANSFORMERSHAPES_H

#include "strata/Support/ShapeFunction.h"

#include <string>

namespace strata::top::shapes {

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// The operand shapes of an Attention; absent optional operands are nullopt.
struct AttentionOperands {
  Ints query, key, value;
  std::optional<Ints> attnMask, pastKey, pastValue, nonpadKvSeqlen;
};

/// The sizes of one attention problem (see the op description).
struct AttentionDims {
  bool rank3 = false;
  int64_t batch = 0, qHeads = 0, kvHeads = 0, qSeq = 0, kvSeq = 0, past = 0,
          total = 0, headSize = 0, vHeadSize = 0, maskLen = 0;
};

/// Checks the operand shapes against each other and the attributes
/// 'q_num_heads' / 'kv_num_heads' (required for rank-3 operands, checked
/// against the heads of rank-4 ones); returns the sizes.
ShapeOr<AttentionDims> attentionDims(const AttentionOperands &operands,
                                     std::optional<int64_t> qNumHeads,
                                     std::optional<int64_t> kvNumHeads);

/// Attention: output ([B, Sq, Hq*Dv] for rank-3 operands, else [B, Hq, Sq,
/// Dv]), present_key [B, Hkv, T, Dk], present_value [B, Hkv, T, Dv] and
/// qk_matmul_output [B, Hq, Sq, T], T = past + current sequence length.
ShapeOr<Shapes> inferAttention(const AttentionOperands &operands,
                               std::optional<int64_t> qNumHeads,
                               std::optional<int64_t> kvNumHeads);

//===----------------------------------------------------------------------===//
// RMSNorm
//===----------------------------------------------------------------------===//

/// RMSNorm: the input's shape; `scale` must broadcast to the dims from
/// `axis` on without growing them.
ShapeOr<Shape> inferRMSNorm(Ints input, Ints scale, int64_t axis);

//===----------------------------------------------------------------------===//
// RotaryEmbedding
//===----------------------------------------------------------------------===//

/// The sizes of a rotary embedding (see the op description).
struct RotaryDims {
  bool rank3 = false;
  int64_t batch = 0, heads = 0, seq = 0, headSize = 0, rotary = 0,
          positions = 0;
};

/// Checks the input ([B, H, S, D], or [B, S, H*D] with `numHeads`), the
/// caches and the optional position ids (nullopt when absent) against
/// 'num_heads' and 'rotary_embedding_dim'; returns the sizes.
ShapeOr<RotaryDims> rotaryDims(Ints input, Ints cosCache, Ints sinCache,
                               std::optional<Ints> positionIds,
                               int64_t numHeads, int64_t rotaryEmbeddingDim);

/// RotaryEmbedding: the input's shape (after the checks of rotaryDims).
ShapeOr<Shape> inferRotaryEmbedding(Ints input, Ints cosCache, Ints sinCache,
                                    std::optional<Ints> positionIds,
                                    int64_t numHeads,
                                    int64_t rotaryEmbeddingDim);

//===----------------------------------------------------------------------===//
// LinearAttention
//===----------------------------------------------------------------------===//

/// The operand shapes of a LinearAttention; absent optional operands are
/// nullopt.
struct LinearAttentionOperands {
  Ints query, key, value;
  std::optional<Ints> pastState, decay, beta;
};

/// The sizes of a linear attention (see the op description).
struct LinearAttentionDims {
  int64_t batch = 0, seq = 0, qHeads = 0, kvHeads = 0, keySize = 0,
          valueSize = 0, betaHeads = 0;
  /// Gates per key dim (decay `B x T x Hkv*Dk`) rather than per head.
  bool decayPerDim = false;
  bool gating = false, delta = false;
};

/// Checks 'update_rule', the head counts and the operand shapes; returns
/// the sizes.
ShapeOr<LinearAttentionDims>
linearAttentionDims(const LinearAttentionOperands &operands,
                    const std::string &updateRule, int64_t qNumHeads,
                    int64_t kvNumHeads);

/// LinearAttention: output [B, T, Hq*Dv] and present_state [B, Hkv, Dk, Dv].
ShapeOr<Shapes> inferLinearAttention(const LinearAttentionOperands &operands,
                                     const std::string &updateRule,
                                     int64_t qNumHeads, int64_t kvNumHeads);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_TRANSFORMERSHAPES_H
