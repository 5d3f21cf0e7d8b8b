//===- HostTypes.h - MLIR element types as host dtypes ----------*- C++ -*-===//
//
// The mapping between MLIR element types and the host tensors' DType, shared
// by every dialect the interpreter runs.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERFACES_HOSTTYPES_H
#define STRATA_INTERFACES_HOSTTYPES_H

#include "strata/Support/Tensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace strata {

/// The host element type of an MLIR element type: f16/bf16/f32/f64, the
/// FLOAT8/FLOAT4 types, i1 as bool, signless and signed integers as signed,
/// unsigned as unsigned, and a quantized type as its storage type. nullopt if
/// unsupported.
std::optional<DType> dtypeOf(mlir::Type elementType);
/// The element type of a tensor-typed value (see above).
std::optional<DType> dtypeOfValue(mlir::Value value);
/// The MLIR element type for a host element type (integers signless, except
/// unsigned ones which are `ui*`).
mlir::Type elementTypeOf(DType type, mlir::MLIRContext *ctx);

/// Checks that host tensor `t` can be the value of a value of type `type`:
/// the same dtype, the same rank and every static dim equal. Emits an error
/// at `loc` naming `what` otherwise.
mlir::LogicalResult checkTensorFitsType(mlir::Location loc,
                                        const llvm::Twine &what,
                                        const Tensor &t, mlir::Type type);

} // namespace strata

#endif // STRATA_INTERFACES_HOSTTYPES_H
