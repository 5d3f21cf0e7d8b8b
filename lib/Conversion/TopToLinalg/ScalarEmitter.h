//===- ScalarEmitter.h - terse scalar arith for loop bodies -----*- C++ -*-===//
//
// The geometry and signal lowerings build long scalar computations inside
// linalg.generic bodies (coordinates, taps, twiddles); this wrapper keeps
// them readable. Floats are f64, integers i64 or index as created.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_CONVERSION_TOPTOLINALG_SCALAREMITTER_H
#define STRATA_LIB_CONVERSION_TOPTOLINALG_SCALAREMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

namespace strata::conversion {

struct ScalarEmitter {
  mlir::OpBuilder &b;
  mlir::Location l;

  using Value = mlir::Value;
  using P = mlir::arith::CmpFPredicate;
  using IP = mlir::arith::CmpIPredicate;

  Value f(double v) {
    return mlir::arith::ConstantOp::create(b, l, b.getF64FloatAttr(v));
  }
  Value i(int64_t v) {
    return mlir::arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
  }
  Value idx(int64_t v) { return mlir::arith::ConstantIndexOp::create(b, l, v); }
  Value add(Value x, Value y) {
    if (mlir::isa<mlir::FloatType>(x.getType()))
      return mlir::arith::AddFOp::create(b, l, x, y);
    return mlir::arith::AddIOp::create(b, l, x, y);
  }
  Value sub(Value x, Value y) {
    if (mlir::isa<mlir::FloatType>(x.getType()))
      return mlir::arith::SubFOp::create(b, l, x, y);
    return mlir::arith::SubIOp::create(b, l, x, y);
  }
  Value mul(Value x, Value y) {
    if (mlir::isa<mlir::FloatType>(x.getType()))
      return mlir::arith::MulFOp::create(b, l, x, y);
    return mlir::arith::MulIOp::create(b, l, x, y);
  }
  Value div(Value x, Value y) {
    return mlir::arith::DivFOp::create(b, l, x, y);
  }
  Value neg(Value x) { return mlir::arith::NegFOp::create(b, l, x); }
  Value floor(Value x) { return mlir::math::FloorOp::create(b, l, x); }
  Value ceil(Value x) { return mlir::math::CeilOp::create(b, l, x); }
  Value abs(Value x) { return mlir::math::AbsFOp::create(b, l, x); }
  Value cos(Value x) { return mlir::math::CosOp::create(b, l, x); }
  Value sin(Value x) { return mlir::math::SinOp::create(b, l, x); }
  Value rem(Value x, Value y) {
    return mlir::arith::RemFOp::create(b, l, x, y);
  }
  Value cmp(P p, Value x, Value y) {
    return mlir::arith::CmpFOp::create(b, l, p, x, y);
  }
  Value icmp(IP p, Value x, Value y) {
    return mlir::arith::CmpIOp::create(b, l, p, x, y);
  }
  Value sel(Value c, Value x, Value y) {
    return mlir::arith::SelectOp::create(b, l, c, x, y);
  }
  Value land(Value x, Value y) {
    return mlir::arith::AndIOp::create(b, l, x, y);
  }
  Value lor(Value x, Value y) { return mlir::arith::OrIOp::create(b, l, x, y); }
  /// max/min of integers (signed).
  Value imax(Value x, Value y) {
    return mlir::arith::MaxSIOp::create(b, l, x, y);
  }
  Value imin(Value x, Value y) {
    return mlir::arith::MinSIOp::create(b, l, x, y);
  }
  Value iclamp(Value x, int64_t lo, int64_t hi) {
    Type t = x.getType();
    auto c = [&](int64_t v) -> Value {
      return mlir::arith::ConstantOp::create(b, l, b.getIntegerAttr(t, v));
    };
    return imin(imax(x, c(lo)), c(hi));
  }
  /// Float clamp where NaN stays NaN (callers make the value finite first).
  Value fclamp(Value x, double lo, double hi) {
    return mlir::arith::MinimumFOp::create(
        b, l, mlir::arith::MaximumFOp::create(b, l, x, f(lo)), f(hi));
  }
  /// Whether the f64 `x` is finite (false for NaN and infinities).
  Value isFinite(Value x) {
    return cmp(P::ONE, abs(x), f(std::numeric_limits<double>::infinity()));
  }
  /// f64 -> i64 (truncating; the caller keeps the value in range).
  Value toI64(Value x) {
    return mlir::arith::FPToSIOp::create(b, l, b.getI64Type(), x);
  }
  Value toF64(Value x) {
    mlir::Type t = x.getType();
    if (t.isF64())
      return x;
    if (mlir::isa<mlir::FloatType>(t))
      return mlir::arith::ExtFOp::create(b, l, b.getF64Type(), x);
    if (t.isIndex())
      x = mlir::arith::IndexCastOp::create(b, l, b.getI64Type(), x);
    return mlir::arith::SIToFPOp::create(b, l, b.getF64Type(), x);
  }
  Value toIndex(Value x) {
    return mlir::arith::IndexCastOp::create(b, l, b.getIndexType(), x);
  }
  Value indexToI64(Value x) {
    return mlir::arith::IndexCastOp::create(b, l, b.getI64Type(), x);
  }
  /// The f64 `x` rounded to float type `t`.
  Value round(Value x, mlir::Type t) {
    if (t == x.getType())
      return x;
    return mlir::arith::TruncFOp::create(b, l, t, x);
  }
  /// `tensor[indices]` (indices of type i64 or index).
  Value at(Value tensor, llvm::ArrayRef<Value> indices) {
    llvm::SmallVector<Value> ix;
    for (Value v : indices)
      ix.push_back(v.getType().isIndex() ? v : toIndex(v));
    return mlir::tensor::ExtractOp::create(b, l, tensor, ix);
  }
  /// The current iteration index `d` of the enclosing linalg.generic (i64).
  Value loopIndex(unsigned d) {
    return indexToI64(mlir::linalg::IndexOp::create(b, l, d));
  }
  using Type = mlir::Type;
};

/// A linalg.generic writing every element of `type` from `body`, which gets
/// an emitter inside the body (use loopIndex for the position).
inline mlir::Value
indexGeneric(mlir::OpBuilder &b, mlir::Location loc,
             mlir::RankedTensorType type,
             llvm::function_ref<mlir::Value(ScalarEmitter &)> body) {
  mlir::MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  auto g = mlir::linalg::GenericOp::create(
      b, loc, mlir::TypeRange{type}, mlir::ValueRange{},
      mlir::ValueRange{mlir::tensor::EmptyOp::create(b, loc, type.getShape(),
                                                     type.getElementType())},
      {mlir::AffineMap::getMultiDimIdentityMap(rank, ctx)},
      llvm::SmallVector<mlir::utils::IteratorType>(
          rank, mlir::utils::IteratorType::parallel),
      [&](mlir::OpBuilder &nb, mlir::Location nl, mlir::ValueRange) {
        ScalarEmitter e{nb, nl};
        mlir::linalg::YieldOp::create(nb, nl, body(e));
      });
  return g.getResult(0);
}

} // namespace strata::conversion

#endif // STRATA_LIB_CONVERSION_TOPTOLINALG_SCALAREMITTER_H
