//===- AttentionUtils.h - f64 helpers of the attention patterns -*- C++ -*-===//
//
// Shared by Attention.cpp and LinearAttention.cpp: both compute in f64 and
// round each result once.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_CONVERSION_TOPTOLINALG_ATTENTIONUTILS_H
#define STRATA_LIB_CONVERSION_TOPTOLINALG_ATTENTIONUTILS_H

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace strata::conversion::attention {

using namespace mlir;
using utils::IteratorType;

inline RankedTensorType f64Tensor(OpBuilder &b, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, b.getF64Type());
}

/// A scalar float `x` as f64.
inline Value toF64(OpBuilder &b, Location l, Value x) {
  if (x.getType().isF64())
    return x;
  return arith::ExtFOp::create(b, l, b.getF64Type(), x);
}

/// An f64 scalar rounded to float type `t`.
inline Value fromF64(OpBuilder &b, Location l, Value x, Type t) {
  if (t == x.getType())
    return x;
  return arith::TruncFOp::create(b, l, t, x);
}

/// A generic with the given maps (inputs then the one output) and
/// iterators; `body` gets the block arguments (inputs, then the output's
/// current value).
inline Value
generic(OpBuilder &b, Location loc, Value init, ValueRange inputs,
        ArrayRef<AffineMap> maps, ArrayRef<IteratorType> iterators,
        llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return g.getResult(0);
}

/// A tensor of `type` filled with `v`.
inline Value filled(OpBuilder &b, Location loc, RankedTensorType type,
                    double v) {
  Value c = scalarConstant(b, loc, type.getElementType(), v);
  return linalg::FillOp::create(b, loc, c, emptyTensor(b, loc, type))
      .getResult(0);
}

/// Every element of the f64 tensor `v` rounded to `type`'s element type.
inline Value roundTo(OpBuilder &b, Location loc, Value v,
                     RankedTensorType type) {
  return buildElementwise(b, loc, type, v,
                          [](OpBuilder &nb, Location l, ValueRange xs, Type t) {
                            return fromF64(nb, l, xs[0], t);
                          });
}

/// Adds the LinearAttention pattern (LinearAttention.cpp).
void populateLinearAttentionPattern(const TopTypeConverter &converter,
                                    RewritePatternSet &patterns);

} // namespace strata::conversion::attention

#endif // STRATA_LIB_CONVERSION_TOPTOLINALG_ATTENTIONUTILS_H
