//===- TopUtils.h - helpers shared by Top ops and tools ---------*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_IR_TOPUTILS_H
#define STRATA_DIALECT_TOP_IR_TOPUTILS_H

#include "strata/Interfaces/HostTypes.h"
#include "strata/Support/Tensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace strata::top {

// The MLIR element type <-> host dtype mapping is dialect-neutral.
using ::strata::dtypeOf;
using ::strata::dtypeOfValue;
using ::strata::elementTypeOf;

/// True if `value` is a ranked tensor with no dynamic dims.
bool hasStaticShape(mlir::Value value);
/// The static shape of a ranked tensor value.
llvm::SmallVector<int64_t> shapeOf(mlir::Value value);
/// True if `value` is the result of `top.None` (an absent optional operand).
bool isNone(mlir::Value value);

/// "[1, 2, 3]".
std::string formatArray(llvm::ArrayRef<int64_t> values);

/// numpy broadcast of two shapes; emits an error on `op` naming both shapes
/// when they do not broadcast.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(mlir::Operation *op, llvm::ArrayRef<int64_t> lhs,
                llvm::ArrayRef<int64_t> rhs);

/// Product of dims with overflow check; emits an error on `op` if the count
/// overflows int64.
mlir::FailureOr<int64_t> checkedElementCount(mlir::Operation *op,
                                             llvm::ArrayRef<int64_t> shape);

/// Runs the op's shape inference and replaces every result type that is
/// unranked or has dynamic dims with the inferred static shape (keeping the
/// element type). The operands must have static shapes. Emits the op's error
/// on failure.
mlir::LogicalResult inferAndSetResultTypes(mlir::Operation *op);

/// The Permute order from channels last to channels first for `rank`
/// (>= 2) dims: `[0, rank-1, 1, .., rank-2]`.
llvm::SmallVector<int64_t> channelsLastToFirstOrder(int64_t rank);
/// The Permute order from channels first to channels last:
/// `[0, 2, .., rank-1, 1]`.
llvm::SmallVector<int64_t> channelsFirstToLastOrder(int64_t rank);
/// `shape` permuted as `top.Permute` with `order` permutes it.
llvm::SmallVector<int64_t> permuteShape(llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<int64_t> order);

} // namespace strata::top

#endif // STRATA_DIALECT_TOP_IR_TOPUTILS_H
