//===- TypeChecks.cpp - ONNX data types and declared types ----------------===//
//
// ONNX data types (TensorProto DataType) to Strata's host dtypes and MLIR
// element types, their names, and the overflow check of shapes
// (TypeChecks.h).
//
//===----------------------------------------------------------------------===//

#include "TypeChecks.h"

#include "onnx.pb.h"

#include "strata/Dialect/Top/IR/TopUtils.h"

#include <algorithm>

using namespace mlir;

namespace strata::onnx_import {

std::optional<DType> dtypeFromOnnx(int32_t t) {
  using TP = onnx::TensorProto;
  switch (t) {
  case TP::FLOAT: return DType::F32;
  case TP::UINT8: return DType::U8;
  case TP::INT8: return DType::I8;
  case TP::UINT16: return DType::U16;
  case TP::INT16: return DType::I16;
  case TP::INT32: return DType::I32;
  case TP::INT64: return DType::I64;
  case TP::BOOL: return DType::Bool;
  case TP::FLOAT16: return DType::F16;
  case TP::DOUBLE: return DType::F64;
  case TP::UINT32: return DType::U32;
  case TP::UINT64: return DType::U64;
  case TP::BFLOAT16: return DType::BF16;
  case TP::FLOAT8E4M3FN: return DType::F8E4M3FN;
  case TP::FLOAT8E4M3FNUZ: return DType::F8E4M3FNUZ;
  case TP::FLOAT8E5M2: return DType::F8E5M2;
  case TP::FLOAT8E5M2FNUZ: return DType::F8E5M2FNUZ;
  case TP::UINT4: return DType::U4;
  case TP::INT4: return DType::I4;
  case TP::FLOAT4E2M1: return DType::F4E2M1FN;
  case TP::FLOAT8E8M0: return DType::F8E8M0FNU;
  case TP::UINT2: return DType::U2;
  case TP::INT2: return DType::I2;
  default: return std::nullopt;
  }
}

const char *onnxTypeName(int32_t t) {
  if (onnx::TensorProto_DataType_IsValid(t))
    return onnx::TensorProto_DataType_Name(
               static_cast<onnx::TensorProto_DataType>(t))
        .c_str();
  return "INVALID";
}

bool shapeFits(llvm::ArrayRef<int64_t> shape) {
  // 16 bytes per element is the widest element type.
  constexpr int64_t kLimit = INT64_MAX / 16;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return false;
    if (d > 1 && n > kLimit / d)
      return false;
    n *= std::max<int64_t>(d, 1);
  }
  return true;
}

Type elementTypeFromOnnx(int32_t t, MLIRContext *ctx) {
  std::optional<DType> d = dtypeFromOnnx(t);
  return d ? top::elementTypeOf(*d, ctx) : Type();
}

} // namespace strata::onnx_import
