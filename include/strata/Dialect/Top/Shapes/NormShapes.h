//===- NormShapes.h - shape functions of the Norm ops ----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/NormOps.cpp (softmax
// and normalization); see strata/Support/ShapeFunction.h for the
// conventions. Every result has the input's shape.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_NORMSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_NORMSHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

/// Attribute 'axis' of Softmax, LogSoftmax or LayerNorm in [0, rank); the
/// error reads "attribute 'axis' = <a> is out of range [-r, r) for input
/// rank r".
ShapeOr<int64_t> normAxis(int64_t axis, int64_t rank);

/// Softmax, LogSoftmax: the input's shape; `axis` is checked.
ShapeOr<Shape> inferSoftmax(Ints input, int64_t axis);

/// The optional parameter operands of a normalization (BatchNorm has all
/// four, LayerNorm and GroupNorm `scale` and `bias`); absent ones unset.
struct NormParams {
  std::optional<Ints> mean, variance, scale, bias;
};

/// BatchNorm: input `[N, C, ..]` (channels last when `channelsLast`), every
/// given parameter with C elements, `epsilon` finite and >= 0.
ShapeOr<Shape> inferBatchNorm(Ints input, const NormParams &params,
                              double epsilon, bool channelsLast);

/// LayerNorm: normalizes the dims from `axis` on; `scale` and `bias`, when
/// given, have as many elements as those dims.
ShapeOr<Shape> inferLayerNorm(Ints input, int64_t axis,
                              const NormParams &params, double epsilon);

/// GroupNorm: input `[N, C, ..]` with C divisible by `numGroups`; `scale`
/// and `bias`, when given, have C elements.
ShapeOr<Shape> inferGroupNorm(Ints input, int64_t numGroups,
                              const NormParams &params, double epsilon,
                              bool channelsLast);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_NORMSHAPES_H
