//===- ConverterSupport.h - what every converter file includes --*- C++ -*-===//
//
// Private to lib/Frontend/Onnx, for the Convert*.cpp files only: each
// includes this header (directly, or through ValueChain.h or the Shape
// family's ConvertShape.h) instead of the importer's others. It brings the
// converter API (NodeContext.h), the converter tables (ConverterRegistry.h),
// ONNX data types and tensor reading, makes the names of `mlir` and
// `strata::top` visible inside `strata::onnx_import`, and holds the small
// helpers that converters of several families share.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_ONNX_CONVERTERSUPPORT_H
#define STRATA_LIB_FRONTEND_ONNX_CONVERTERSUPPORT_H

#include "ConverterRegistry.h"
#include "NodeContext.h"
#include "OnnxTensor.h"
#include "TypeChecks.h"

#include <optional>
#include <utility>
#include <vector>

namespace strata::onnx_import {

// The converters are written against these two namespaces; the directives
// are scoped to strata::onnx_import, which only converter files open after
// including this header.
using namespace mlir;
using namespace strata::top;

/// The element type of input `i` (null if it is absent or not a tensor).
inline Type elemOf(NodeContext &c, size_t i) { return c.inputElementType(i); }

/// Creates a single-result op and makes it output 0 of the node.
template <typename OpTy, typename... Args>
LogicalResult emit(NodeContext &c, Type elem, Args &&...args) {
  return c.setResult(c.create<OpTy>(elem, std::forward<Args>(args)...));
}

/// `v` as an i64 attribute.
inline IntegerAttr i64(NodeContext &c, int64_t v) {
  return c.builder().getI64IntegerAttr(v);
}

/// `v` as a dense i64 array attribute.
inline DenseI64ArrayAttr i64s(NodeContext &c, ArrayRef<int64_t> v) {
  return c.builder().getDenseI64ArrayAttr(v);
}

/// A rank-0 constant of element type `elem` holding `v` (f32 if `elem` has
/// no host dtype).
inline Value scalar(NodeContext &c, Type elem, double v) {
  return ValueBuilder(c).scalar(elem, v);
}

/// `v` reshaped to `shape` (top.Reshape reads a 0 dim as "copy the input's").
inline FailureOr<Value> reshape(NodeContext &c, Value v,
                                ArrayRef<int64_t> shape) {
  return ValueBuilder(c).reshape(v, shape);
}

/// `OpTy(l, r)` with the element type of `l`; a failed operand is passed on
/// (ValueBuilder::op; ValueChain.h's chain::binary is the null-chained
/// form).
template <typename OpTy>
FailureOr<Value> binary(NodeContext &c, FailureOr<Value> l,
                        FailureOr<Value> r) {
  return ValueBuilder(c).op<OpTy>(l, r);
}

/// The product of `dims` (the element count of a static shape).
inline int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

//===----------------------------------------------------------------------===//
// Shared between families
//===----------------------------------------------------------------------===//

/// Kernel window attributes of Conv and the pools (kernel_shape, strides,
/// dilations, pads, auto_pad resolved to explicit pads); ConvertNNConv.cpp.
struct KernelWindow {
  std::vector<int64_t> kernel, strides, dilations, pads;
};
FailureOr<KernelWindow>
readKernelWindow(NodeContext &c, int64_t spatialRank,
                 ArrayRef<int64_t> inSpatial,
                 std::optional<std::vector<int64_t>> kernel);

} // namespace strata::onnx_import

#endif // STRATA_LIB_FRONTEND_ONNX_CONVERTERSUPPORT_H
