//===- OpImpl.h - helpers for implementing Top ops --------------*- C++ -*-===//
//
// Private to lib/Dialect/Top/IR: attribute checks that emit uniform errors,
// and host-side helpers the ops' reference semantics share.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_DIALECT_TOP_IR_OPIMPL_H
#define STRATA_LIB_DIALECT_TOP_IR_OPIMPL_H

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Support/Tensor.h"

#include <cmath>
#include <functional>

namespace strata::top::impl {

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;
using mlir::LogicalResult;
using mlir::Operation;

/// Checks that attribute `name` has `size` entries, each >= `minValue`.
LogicalResult checkArrayAttr(Operation *op, StringRef name,
                             ArrayRef<int64_t> values, size_t size,
                             int64_t minValue);

/// The type computations run in: f64 for f64, f32 for other floats, i64 for
/// integers and bool.
DType computeType(DType type);
/// `t` converted to its compute type (shares the buffer if already there).
Tensor toCompute(const Tensor &t);
/// The element type of `result` as a host dtype (asserts it is supported).
DType resultDType(mlir::Value result);
/// The shape of a ranked result as std::vector.
std::vector<int64_t> resultShape(mlir::Value result);

/// Applies relu (and a cap if `limit >= 0`) in place to a compute tensor.
void applyRelu(Tensor &t, double limit);

/// Calls `fn(outIndex, lhsIndex, rhsIndex)` for every element of the
/// broadcast of two shapes (flat indices, row-major).
void forEachBroadcast(ArrayRef<int64_t> outShape, ArrayRef<int64_t> lhsShape,
                      ArrayRef<int64_t> rhsShape,
                      const std::function<void(int64_t, int64_t, int64_t)> &fn);

/// Strides of `shape` broadcast to `outShape` (0 on broadcast dims).
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> outShape);

/// C[M,N] (+)= A[M,K] * B[K,N], row-major with leading dims, f32.
void gemmF32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
             const float *B, int64_t ldb, float *C, int64_t ldc,
             bool accumulate);

/// Applies a unary function elementwise in the compute type and converts the
/// result to the result's dtype.
Tensor mapUnary(const Tensor &input, DType outType,
                const std::function<double(double)> &fn);

} // namespace strata::top::impl

#endif // STRATA_LIB_DIALECT_TOP_IR_OPIMPL_H
