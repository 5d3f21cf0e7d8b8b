//===- MatMulShapes.h - shape functions of the MatMul ops ------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/MatMulOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_MATMULSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_MATMULSHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

/// numpy-matmul geometry of `input @ right`: the broadcast batch shape (and
/// each operand's own), M, K, N, and which operands were 1-d.
struct MatMulGeometry {
  Shape batch, lhsBatch, rhsBatch;
  int64_t m = 1, k = 1, n = 1;
  bool lhsVector = false, rhsVector = false;
  /// The result: batch, then M unless the input was 1-d, then N unless
  /// `right` was 1-d.
  Shape outShape;
};

/// The geometry of `input @ right` (`right` with its last two dims swapped
/// when `rightTranspose`); errors when an operand is a scalar, the
/// contracting dims differ or the batch dims do not broadcast.
ShapeOr<MatMulGeometry> matmulGeometry(Ints input, Ints right,
                                       bool rightTranspose);

/// MatMul: the geometry's result shape; `bias`, when given, has 1 or N
/// elements.
ShapeOr<Shape> inferMatMul(Ints input, Ints right, std::optional<Ints> bias,
                           bool rightTranspose);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_MATMULSHAPES_H
