//===- Utils.h - helpers shared by the Top to linalg patterns ---*- C++ -*-===//

#ifndef STRATA_LIB_CONVERSION_TOPTOLINALG_UTILS_H
#define STRATA_LIB_CONVERSION_TOPTOLINALG_UTILS_H

#include "strata/Conversion/TopToLinalg/TopToLinalg.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata::conversion {

/// The converted type of `op`'s result `i` as a static ranked tensor, or a
/// match failure naming why (unranked, dynamic dim, type not convertible).
mlir::FailureOr<mlir::RankedTensorType>
staticResultType(mlir::Operation *op, unsigned i,
                 const mlir::TypeConverter &converter,
                 mlir::ConversionPatternRewriter &rewriter);

/// `v`'s type if it is a ranked tensor of static shape, else null.
mlir::RankedTensorType staticTensorType(mlir::Value v);

/// Whether `v`'s (original, Top-side) element type is an unsigned integer
/// (or a quantized type with unsigned storage).
bool isUnsignedElement(mlir::Value v);

/// Whether `v` is an absent optional operand (the `none` of top.None).
bool isNone(mlir::Value v);

/// `tensor.empty` of `type`.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type);

/// A scalar constant of element type `type` (float or integer) with value
/// `v` (converted as C would).
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type type, double v);

/// Body of an elementwise computation: scalars of the inputs in order, the
/// result element type; returns the result scalar.
using ScalarBody = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange, mlir::Type)>;

/// A `linalg.generic` computing `resultType` from `inputs` with numpy
/// broadcasting: each input's dims align with the result's from the right; a
/// dim of size 1 where the result's is larger is read at index 0. All shapes
/// must be static.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType,
                             mlir::ValueRange inputs, ScalarBody body);

/// `max(x, 0)` for a float or integer scalar with NaN kept (the `do_relu`
/// epilogue of several Top ops); `x` itself for unsigned integers.
mlir::Value reluScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       bool isUnsigned);

} // namespace strata::conversion

#endif // STRATA_LIB_CONVERSION_TOPTOLINALG_UTILS_H
