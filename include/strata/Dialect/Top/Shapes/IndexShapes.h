//===- IndexShapes.h - shape functions of the Index ops ---------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/IndexOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_INDEXSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_INDEXSHAPES_H

#include "strata/Dialect/Top/Shapes/ShapeShapes.h"

namespace strata::top::shapes {

/// Slice's window attributes (ONNX Slice): one start and end per sliced
/// dim; `axes` defaults to 0 .. n-1 and `steps` to 1.
struct SliceAttrs {
  Ints starts, ends;
  std::optional<Ints> axes, steps;
};

/// Checks Slice's attributes: the window from the attributes or from the
/// runtime `bounds_value`, not both; `ends`, `axes`, `steps` as long as
/// `starts`; no zero step. Nullopt when valid.
std::optional<ShapeError> checkSliceAttrs(const SliceAttrs &attrs,
                                          bool hasBoundsValue);

/// What a slice reads of each input dim: the first index, the number of
/// elements (the result dim) and the step.
struct SliceWindow {
  Shape starts, sizes, steps;
};

/// The window of a slice of `input` given by `attrs`, or by the runtime
/// `bounds` (a [4, n] tensor of starts, ends, axes and steps) when not
/// null.
ShapeOr<SliceWindow> sliceWindow(Ints input, const SliceAttrs &attrs,
                                 const Tensor *bounds);

/// Slice: the sizes of the window (see sliceWindow); every dim is
/// kDynamicDim when the window comes from a `boundsValue` not yet known.
ShapeOr<Shape> inferSlice(Ints input, const SliceAttrs &attrs,
                          const std::optional<RuntimeValue> &boundsValue);

/// Gather: dim `axis` of the input replaced by the indices' dims.
ShapeOr<Shape> inferGather(Ints input, Ints indices, int64_t axis);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_INDEXSHAPES_H
