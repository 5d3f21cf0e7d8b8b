//===- ReduceShapes.h - shape functions of the Reduce ops -------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/ReduceOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_REDUCESHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_REDUCESHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata {
class Tensor;
} // namespace strata

namespace strata::top::shapes {

/// Reduce's runtime operand 'axes_value': its length (static, from its
/// type) and its elements when known (during a run), else nullptr.
struct RuntimeAxes {
  int64_t length = 0;
  const Tensor *values = nullptr;
};

/// The dims of a rank-`rank` input that a Reduce reduces, normalized, in
/// the order given; empty means every dim. They come from `axesValue`'s
/// elements when given (errors name operand 'axes_value'), else from
/// attribute `axes`.
ShapeOr<Shape> reduceAxes(int64_t rank, Ints axes, const Tensor *axesValue);

/// One flag per dim of a rank-`rank` input: whether the normalized `axes`
/// (see reduceAxes) reduce it.
std::vector<bool> reducedDims(int64_t rank, Ints axes);

/// Reduce: `input` without the reduced dims (kept as 1 when `keepdims`).
/// With operand 'axes_value' (`axesValue`) whose elements are unknown, the
/// dims it may reduce are kDynamicDim (a dim of 1 stays 1 with keepdims).
ShapeOr<Shape> inferReduce(Ints input, Ints axes, bool keepdims,
                           std::optional<RuntimeAxes> axesValue);

/// ArgMax: `input` without dim `axis` (kept as 1 when `keepdims`); that dim
/// must not be empty.
ShapeOr<Shape> inferArgMax(Ints input, int64_t axis, bool keepdims);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_REDUCESHAPES_H
