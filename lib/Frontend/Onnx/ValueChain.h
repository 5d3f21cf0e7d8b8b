//===- ValueChain.h - null-chained op builders for converters ---*- C++ -*-===//
//
// Building blocks of the converters that decompose an ONNX op into several
// Top ops (ConvertElementwise*.cpp, ConvertMath.cpp, LpPool and training
// BatchNormalization in ConvertNN*.cpp). A null Value means "failed, error
// already emitted"; every helper passes it on, so a chain of ops is checked
// once at the end (`finish`). ConverterSupport.h's binary<OpTy> and
// ValueBuilder are the FailureOr-chained counterparts.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_FRONTEND_ONNX_VALUECHAIN_H
#define STRATA_FRONTEND_ONNX_VALUECHAIN_H

#include "ConverterSupport.h"

namespace strata::onnx_import::chain {

inline mlir::Type elemType(mlir::Value v) {
  auto t = v ? mlir::dyn_cast<mlir::ShapedType>(v.getType())
             : mlir::ShapedType();
  return t ? t.getElementType() : mlir::Type();
}

inline bool isNull(mlir::Value v) { return !v; }
template <typename T> bool isNull(const T &) { return false; }

/// Creates `OpTy` with result element type `elem`; null if any operand is
/// null or the op is invalid.
template <typename OpTy, typename... Args>
mlir::Value make(NodeContext &c, mlir::Type elem, Args &&...args) {
  if (!elem || (isNull(args) || ...))
    return {};
  auto r = c.create<OpTy>(elem, std::forward<Args>(args)...);
  return mlir::failed(r) ? mlir::Value() : *r;
}

template <typename OpTy>
mlir::Value binary(NodeContext &c, mlir::Value a, mlir::Value b) {
  return make<OpTy>(c, elemType(a), a, b);
}

template <typename OpTy> mlir::Value unary(NodeContext &c, mlir::Value a) {
  return make<OpTy>(c, elemType(a), a);
}

inline mlir::Value compare(NodeContext &c, mlir::Value a, mlir::Value b,
                           top::CompareMode mode) {
  return make<top::CompareOp>(c, c.builder().getI1Type(), a, b, mode);
}

inline mlir::Value where(NodeContext &c, mlir::Value cond, mlir::Value x,
                         mlir::Value y) {
  return make<top::WhereOp>(c, elemType(x), cond, x, y);
}

/// A rank-0 constant of element type `elem` (null, with an error, if `elem`
/// has no host dtype).
inline mlir::Value scalar(NodeContext &c, mlir::Type elem, double value,
                          llvm::StringRef hint) {
  std::optional<DType> d = elem ? top::dtypeOf(elem) : std::nullopt;
  if (!d) {
    if (elem)
      c.error() << "element type " << elem << " is not supported here";
    return {};
  }
  Tensor t(*d, {});
  t.setFromDouble(0, value);
  return c.constant(t, hint);
}

/// A rank-0 constant of `like`'s element type.
inline mlir::Value scalarLike(NodeContext &c, mlir::Value like, double value,
                              llvm::StringRef hint) {
  return like ? scalar(c, elemType(like), value, hint) : mlir::Value();
}

/// Sets output 0 to `v`; failure if the chain failed.
inline mlir::LogicalResult finish(NodeContext &c, mlir::Value v) {
  if (!v)
    return mlir::failure();
  c.setOutput(0, v);
  return mlir::success();
}

/// The input's float element type, or an error naming the op's requirement.
inline mlir::FailureOr<mlir::FloatType> requireFloat(NodeContext &c,
                                                     size_t i) {
  auto t = mlir::dyn_cast_or_null<mlir::FloatType>(c.inputElementType(i));
  if (!t)
    return c.error() << "input " << i << " has element type "
                     << c.inputElementType(i) << "; only float types are "
                     << "supported";
  return t;
}

/// Checks that inputs 0..n-1 are present.
inline mlir::LogicalResult requireInputs(NodeContext &c, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!c.hasInput(i))
      return c.error() << "input " << i << " is required";
  return mlir::success();
}

/// Output 0 = `OpTy` of input 0, with its element type (input 0 required).
template <typename OpTy> mlir::LogicalResult convertUnary(NodeContext &c) {
  if (mlir::failed(requireInputs(c, 1)))
    return mlir::failure();
  return finish(c, unary<OpTy>(c, c.input(0)));
}

} // namespace strata::onnx_import::chain

#endif // STRATA_FRONTEND_ONNX_VALUECHAIN_H
