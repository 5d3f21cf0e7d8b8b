//===- ConvertShape.h - helpers of the Shape family converters --*- C++ -*-===//
//
// Private to lib/Frontend/Onnx. What the converter files of the Shape
// family (TopShapeOps.td: ConvertShape.cpp, ConvertShapeSlice.cpp,
// ConvertShapeReduce.cpp) share: reading constant int lists and axes, and
// building reshapes and casts. Defined in ConvertShape.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_ONNX_CONVERTSHAPE_H
#define STRATA_LIB_FRONTEND_ONNX_CONVERTSHAPE_H

#include "ConverterSupport.h"

namespace strata::onnx_import {

using IntList = std::vector<int64_t>;
using OptIntList = std::optional<IntList>;

/// Input `i` as constant integers; `what` names it in the error.
FailureOr<IntList> requireConstInts(NodeContext &c, size_t i, StringRef what);

/// An int list that is attribute `name` before schema version `inputSince`
/// and optional input `index` from then on.
FailureOr<OptIntList> attrOrInputInts(NodeContext &c, StringRef name,
                                      int64_t inputSince, size_t index);

/// Normalizes every entry of `axes` into [0, rank) and rejects duplicates.
FailureOr<IntList> normalizeAxes(NodeContext &c, StringRef what,
                                 ArrayRef<int64_t> axes, int64_t rank);

/// The data type of an element type, or an error naming it.
FailureOr<DType> dtypeFor(NodeContext &c, Type elem);

/// Reshapes `x` to `shape`. top.Reshape reads 0 as "copy the input dim", so
/// an empty result (which has no data) becomes a constant instead.
FailureOr<Value> reshapeValue(NodeContext &c, Value x, ArrayRef<int64_t> shape);

/// Sets output 0 to input 0 reshaped to `shape` (reshapeValue).
LogicalResult reshapeTo(NodeContext &c, ArrayRef<int64_t> shape);

/// `x` converted to element type `to` (itself if it has it). Float
/// functions on integer data compute in f64 and truncate back, as the ONNX
/// reference (numpy) does.
FailureOr<Value> castTo(NodeContext &c, Value x, Type to);

} // namespace strata::onnx_import

#endif // STRATA_LIB_FRONTEND_ONNX_CONVERTSHAPE_H
