//===- DataMovement.h - helpers of the data-movement patterns ---*- C++ -*-===//
//
// Shared by DataMovement.cpp, DataMovementIndexed.cpp and
// DataMovementResize.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_CONVERSION_TOPTOLINALG_DATAMOVEMENT_H
#define STRATA_LIB_CONVERSION_TOPTOLINALG_DATAMOVEMENT_H

#include "Utils.h"

namespace strata::conversion {

/// The type of converted operand `v` of `op` if it is a ranked tensor with a
/// static shape, else a match failure naming `what`.
mlir::FailureOr<mlir::RankedTensorType>
staticOperandType(mlir::Operation *op, mlir::Value v, llvm::StringRef what,
                  mlir::ConversionPatternRewriter &rewriter);

/// `input` (static shape) viewed as `resultType` (same element count):
/// one tensor.collapse_shape or tensor.expand_shape where the dims group,
/// else a collapse to 1-D followed by an expand.
mlir::Value reshapeStatic(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value input, mlir::RankedTensorType resultType);

/// Integer scalar `v` as an `index`: sign-extended, or zero-extended when
/// `isUnsigned` and narrower than 64 bits (a ui64 wraps to int64 as the
/// interpreter reads it).
mlir::Value indexFromInteger(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value v, bool isUnsigned);

/// `i + dim` when `i < 0`, then clamped to `[0, dim - 1]` (dim >= 1): a
/// gather/scatter index that can never address outside the dim.
mlir::Value wrapAndClampIndex(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value i, int64_t dim);

/// `min(max(i, lo), hi)` on index values.
mlir::Value clampIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                       int64_t lo, int64_t hi);

/// The `index` constant `v`.
mlir::Value indexConstant(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// top.Resize (DataMovementResize.cpp); added by
/// populateTopToLinalgDataMovementPatterns.
void populateTopToLinalgResizePatterns(const TopTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);

} // namespace strata::conversion

#endif // STRATA_LIB_CONVERSION_TOPTOLINALG_DATAMOVEMENT_H
