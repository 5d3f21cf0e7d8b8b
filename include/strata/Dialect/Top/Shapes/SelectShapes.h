//===- SelectShapes.h - shape functions of the Select ops -------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/SelectOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_SELECTSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_SELECTSHAPES_H

#include "strata/Dialect/Top/Shapes/ShapeShapes.h"

namespace strata::top::shapes {

/// Trilu: the input, which must have rank >= 2 (the diagonal, attribute or
/// runtime operand, does not change the shape).
ShapeOr<Shape> inferTrilu(Ints input);

/// Cumulative: the input. `axis` is the attribute, checked against the
/// rank; nullopt when the axis comes from the runtime operand.
ShapeOr<Shape> inferCumulative(Ints input, std::optional<int64_t> axis);

/// ScatterElements: the data; indices and updates have one shape, the
/// data's rank, and no dim larger than the data's except along `axis`.
ShapeOr<Shape> inferScatterElements(Ints data, Ints indices, Ints updates,
                                    int64_t axis);

/// GatherElements: the indices, which have the data's rank and no dim
/// larger than the data's except along `axis` (unknown dims pass).
ShapeOr<Shape> inferGatherElements(Ints data, Ints indices, int64_t axis);

/// ScatterND: the data; updates must be indices.shape[:-1] +
/// data.shape[k:] where k (the last indices dim) is in [1, rank(data)].
ShapeOr<Shape> inferScatterND(Ints data, Ints indices, Ints updates);

/// GatherND: indices.shape[:-1] + data.shape[batchDims + k:], k the last
/// indices dim; the first `batchDims` dims of data and indices match.
ShapeOr<Shape> inferGatherND(Ints data, Ints indices, int64_t batchDims);

/// TopK: values and indices are the input with dim `axis` of size k, from
/// attribute `k` or, when the op has it, the runtime `kValue` (then `k` must
/// be 0); k is in [0, the dim].
ShapeOr<Shapes> inferTopK(Ints input, int64_t axis, int64_t k,
                          const std::optional<RuntimeValue> &kValue);

/// OneHot: the indices with a dim of size depth inserted at `axis`; depth
/// comes from attribute `depth` (>= 1) or from the runtime `depthValue`
/// (exactly one of them; its value in [1, 2^31)). `values` holds 2
/// elements (off, on).
ShapeOr<Shape> inferOneHot(Ints indices, Ints values,
                           std::optional<int64_t> depth,
                           const std::optional<RuntimeValue> &depthValue,
                           int64_t axis);

/// ReverseSequence: the input (rank >= 2); batch and time axes are 0 and 1
/// in either order; `sequenceLens` has one length per batch.
ShapeOr<Shape> inferReverseSequence(Ints input, Ints sequenceLens,
                                    int64_t batchAxis, int64_t timeAxis);

/// MaxUnpool: `outputShape`, which keeps the batch and channel dims of the
/// input (rank >= 3); the indices have the input's shape.
ShapeOr<Shape> inferMaxUnpool(Ints input, Ints indices, Ints outputShape);

/// The attributes of MaxPoolIndices (2-D max pooling's argmax).
struct MaxPoolIndicesAttrs {
  Ints kernelShape, strides, dilations, pads;
  bool ceilMode = false;
  int64_t storageOrder = 0;
};

/// MaxPoolIndices: [N, C, OH, OW] for an NCHW input, by the pooling window
/// geometry (pads smaller than the dilated kernel, ceil mode windows start
/// inside the input or its begin padding).
ShapeOr<Shape> inferMaxPoolIndices(Ints input,
                                   const MaxPoolIndicesAttrs &attrs);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_SELECTSHAPES_H
