//===- TypeChecks.h - ONNX data types and declared types --------*- C++ -*-===//
//
// Private to lib/Frontend/Onnx. The mapping of ONNX data types (TensorProto
// DataType) to Strata's host dtypes and MLIR element types, their names in
// errors, and the overflow check every shape the importer creates passes.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_ONNX_TYPECHECKS_H
#define STRATA_LIB_FRONTEND_ONNX_TYPECHECKS_H

#include "strata/Support/Tensor.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>

namespace strata::onnx_import {

/// Host dtype of an ONNX data type, if Strata supports it.
std::optional<DType> dtypeFromOnnx(int32_t dataType);
/// The element type for an ONNX TensorProto data type, or null if
/// unsupported.
mlir::Type elementTypeFromOnnx(int32_t dataType, mlir::MLIRContext *ctx);
/// Name of an ONNX data type ("FLOAT", "STRING", ...).
const char *onnxTypeName(int32_t dataType);

/// True if every dim of `shape` is >= 0 and the product of the non-zero dims
/// fits comfortably in int64 (so no product of any of its dims overflows).
/// Every value the importer creates obeys this.
bool shapeFits(llvm::ArrayRef<int64_t> shape);

} // namespace strata::onnx_import

#endif // STRATA_LIB_FRONTEND_ONNX_TYPECHECKS_H
