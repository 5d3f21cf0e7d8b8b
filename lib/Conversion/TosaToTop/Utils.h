//===- Utils.h - helpers shared by the TOSA to Top patterns -----*- C++ -*-===//
//
// Building Top ops by name, constants as top.Weight ops carrying their value,
// reading TOSA's constant operands (shapes, zero points, shifts), and the
// integer arithmetic (floor division, TOSA's apply_scale) several patterns
// decompose into Top ops.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_CONVERSION_TOSATOTOP_UTILS_H
#define STRATA_LIB_CONVERSION_TOSATOTOP_UTILS_H

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata::conversion::tosa_to_top {

/// Creates the Top op `top.<name>` with one result of `type`.
mlir::Value makeTop(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::StringRef name, mlir::Type type,
                    mlir::ValueRange operands,
                    llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

/// `v`'s ranked tensor type.
mlir::RankedTensorType tensorType(mlir::Value v);
/// `t` with element type `elem`.
mlir::RankedTensorType withElement(mlir::RankedTensorType t, mlir::Type elem);

/// A top.Weight holding `value` (its name is made unique by the pass).
mlir::Value weight(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::ElementsAttr value);
/// A constant tensor of `type` with integer (or, for float types, converted)
/// elements `values` (one value is a splat).
mlir::Value intConst(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::RankedTensorType type,
                     llvm::ArrayRef<int64_t> values);
/// A rank-0 constant of element type `elem` (it broadcasts to any shape).
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elem,
                   double value);

/// `v` converted to element type `elem` by top.Cast (v itself if it has it).
mlir::Value castTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                   mlir::Type elem);
/// A binary Top op whose result has `a`'s element type and the broadcast
/// shape of both operands.
mlir::Value binary(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                   mlir::Value a, mlir::Value c);
/// top.Compare of `a` and `c` (broadcast), an i1 tensor.
mlir::Value compare(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                    mlir::Value c, top::CompareMode mode);
/// top.Where (broadcast); the result has `x`'s element type.
mlir::Value where(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
                  mlir::Value x, mlir::Value y);
/// The broadcast of two static shapes (numpy rules; they are compatible).
llvm::SmallVector<int64_t> broadcastShape(llvm::ArrayRef<int64_t> a,
                                          llvm::ArrayRef<int64_t> b);

/// floor(t / d) for i64 tensors with d > 0 (top.Div truncates toward zero).
mlir::Value floorDiv(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                     mlir::Value d);

/// TOSA's apply_scale_32/16 on an i64 tensor `x` (already minus its zero
/// point): `floor((x * m + r) / 2^s)` with `r = 2^(s-1)`, plus `±2^30` when
/// `doubleRound` and `s > 31` (by the sign of x). `multipliers`/`shifts`
/// hold one value or one per index of the last dim (or, with `constShape`,
/// a full constant of that shape). Returns an i64 tensor.
mlir::Value applyScale(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       llvm::ArrayRef<int64_t> multipliers,
                       llvm::ArrayRef<int64_t> shifts, bool doubleRound,
                       llvm::ArrayRef<int64_t> constShape = {});

/// Clamps an integer tensor to [lo, hi] with top.Max/top.Min.
mlir::Value clampInt(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                     int64_t lo, int64_t hi);

/// An i64 tensor clamped to the range of the integer type `elem` (unsigned
/// with `asUnsigned`, whose values then land in `elem`'s bits) and cast to
/// it: TOSA's saturation to the output type.
mlir::Value saturateTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Type elem, bool asUnsigned = false);

/// The integer values of a constant operand (tosa.const_shape, tosa.const, a
/// top.Weight carrying a value, or TOSA shape ops evaluated on such
/// operands and static dims), or failure.
mlir::FailureOr<llvm::SmallVector<int64_t>> constInts(mlir::Value v);
/// The values of a constant float or integer operand as doubles.
mlir::FailureOr<llvm::SmallVector<double>> constFloats(mlir::Value v);

/// Reports that `op`'s `field` has a form the conversion does not handle:
/// "'tosa.x' <field> <what>". Returns failure.
mlir::LogicalResult unsupported(mlir::Operation *op, llvm::StringRef field,
                                const llvm::Twine &what);

/// A constant operand's integer values, reported as unsupported (naming
/// `field`) when it is not constant.
mlir::FailureOr<llvm::SmallVector<int64_t>>
requireConstInts(mlir::Operation *op, mlir::Value v, llvm::StringRef field);

/// The single value of a scalar zero-point operand (0 for floats).
mlir::FailureOr<int64_t> zeroPoint(mlir::Operation *op, mlir::Value v,
                                   llvm::StringRef field);

/// Whether `t` is a Top element type this conversion can produce (rejects
/// i48, f6 and mxint8 with an error naming `op`).
mlir::LogicalResult checkElementType(mlir::Operation *op, mlir::Type t);

/// Refuses function arguments and results of element types Top has no
/// tensors of although the block-scaled ops take them (f6, mxint8), naming
/// the function, the index and the type (BlockScaled.cpp).
mlir::LogicalResult checkCarriedSignatures(mlir::ModuleOp module);

/// A pattern that replaces one TOSA op by what `build` returns.
template <typename OpTy> struct TosaPattern : mlir::OpConversionPattern<OpTy> {
  using mlir::OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
  virtual mlir::FailureOr<mlir::Value> build(OpTy op, Adaptor adaptor,
                                             mlir::OpBuilder &b) const = 0;
  mlir::LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const final {
    for (mlir::Type t : op->getResultTypes())
      if (failed(checkElementType(op, t)))
        return mlir::failure();
    for (mlir::Type t : op->getOperandTypes())
      if (failed(checkElementType(op, t)))
        return mlir::failure();
    mlir::FailureOr<mlir::Value> v = build(op, adaptor, rewriter);
    if (failed(v))
      return mlir::failure();
    rewriter.replaceOp(op, *v);
    return mlir::success();
  }
};

} // namespace strata::conversion::tosa_to_top

#endif // STRATA_LIB_CONVERSION_TOSATOTOP_UTILS_H
