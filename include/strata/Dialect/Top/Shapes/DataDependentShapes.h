//===- DataDependentShapes.h - DataDependent shape functions ----*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/DataDependentOps.cpp;
// see strata/Support/ShapeFunction.h for the conventions. Their result sizes
// depend on the input values: NonZero counts them here when the input is
// given; Unique and NonMaxSuppression leave those dims kDynamicDim (knowing
// them means running the op) and the op's reference semantics sets them.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_DATADEPENDENTSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_DATADEPENDENTSHAPES_H

#include "strata/Support/ShapeFunction.h"
#include "strata/Support/Tensor.h"

#include <optional>

namespace strata::top::shapes {

/// True if element `i` of `t` counts as non-zero for NonZero.
bool isNonZeroElement(const Tensor &t, int64_t i);

/// NonZero: [rank, n], n the number of non-zero elements of `input` (the
/// tensor, when known; else kDynamicDim).
ShapeOr<Shape> inferNonZero(Ints inputShape, const Tensor *input);

/// Unique: the unique values (flattened, or slices along `axis` when given:
/// that dim is kDynamicDim), the index of each one's first occurrence
/// [?], the inverse indices [positions] and the counts [?].
ShapeOr<Shapes> inferUnique(Ints input, std::optional<int64_t> axis);

/// The shapes of NonMaxSuppression's optional scalar operands (nullopt when
/// absent); each must hold one value.
struct NonMaxSuppressionScalars {
  std::optional<Shape> maxOutputBoxesPerClass, iouThreshold, scoreThreshold;
};

/// NonMaxSuppression: [?, 3] (batch, class, box) rows for boxes
/// [batches, boxes, 4] and scores [batches, classes, boxes].
ShapeOr<Shape> inferNonMaxSuppression(Ints boxes, Ints scores,
                                      const NonMaxSuppressionScalars &scalars,
                                      int64_t centerPointBox);

/// Range's element count, max(ceil((limit - start) / delta), 0): exact
/// ceiling division for integers, in f64 for floats. An error for a delta
/// of 0, a span that overflows int64 or a count that does not fit int64.
ShapeOr<int64_t> rangeCount(const Tensor &start, const Tensor &limit,
                            const Tensor &delta);

/// Range: [n] for scalar (shape []) operands; n from rangeCount when the
/// three tensors are known (else kDynamicDim), checked against the element
/// limit.
ShapeOr<Shape> inferRange(Ints start, Ints limit, Ints delta,
                          const Tensor *startValue, const Tensor *limitValue,
                          const Tensor *deltaValue);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_DATADEPENDENTSHAPES_H
