//===- TypeChecks.cpp - ONNX data types and declared types ----------------===//
//
// ONNX data types (TensorProto DataType) to Strata's host dtypes and MLIR
// element types, their names, and the overflow check of shapes
// (TypeChecks.h); and the importer's checks of the types a model declares
// against what it holds: frozen input values against the graph input's
// type, and the computed types of graph outputs, value_info entries and
// initializers listed as inputs against their declarations.
//
//===----------------------------------------------------------------------===//

#include "TypeChecks.h"
#include "GraphImporter.h"

#include "onnx.pb.h"

#include "strata/Dialect/Top/IR/TopUtils.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

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

//===----------------------------------------------------------------------===//
// Declared types
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::checkFrozenInput(const onnx::ValueInfoProto &in,
                                              const Tensor &value,
                                              Location loc) {
  if (!in.type().has_tensor_type())
    return emitError(loc) << "frozen input '" << in.name()
                          << "' is not a tensor";
  const auto &tt = in.type().tensor_type();
  Type elem = elementTypeFromOnnx(tt.elem_type(), &ctx);
  if (elem != top::elementTypeOf(value.dtype(), &ctx))
    return emitError(loc) << "frozen input '" << in.name() << "' has dtype "
                          << dtypeName(value.dtype()) << " but the model says "
                          << onnxTypeName(tt.elem_type());
  if (!shapeFits(value.shape()))
    return emitError(loc) << "frozen input '" << in.name() << "' has shape "
                          << shapeToString(value.shape())
                          << ", whose element count overflows";
  if (tt.has_shape()) {
    bool ok = tt.shape().dim_size() == value.rank();
    for (int i = 0; ok && i < tt.shape().dim_size(); ++i)
      ok = !tt.shape().dim(i).has_dim_value() ||
           tt.shape().dim(i).dim_value() == value.dim(i);
    if (!ok)
      return emitError(loc) << "frozen input '" << in.name() << "' has shape "
                            << shapeToString(value.shape())
                            << ", which the model's input type does not allow";
  }
  return success();
}

/// "[1, seqlen, ?]": a declared shape as the model writes it.
static std::string declaredShape(const onnx::TensorShapeProto &shape) {
  std::string declared = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto &d = shape.dim(i);
    declared += (i ? ", " : "") + (d.has_dim_value()
                                       ? std::to_string(d.dim_value())
                                       : d.dim_param().empty() ? std::string("?")
                                                               : d.dim_param());
  }
  return declared + "]";
}

LogicalResult
GraphImporter::checkDeclaredDims(const onnx::ValueInfoProto &info,
                                 llvm::StringRef where) {
  if (!info.type().has_tensor_type() ||
      !info.type().tensor_type().has_shape())
    return success();
  const auto &shape = info.type().tensor_type().shape();
  Location loc = NameLoc::get(StringAttr::get(&ctx, info.name()));
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (!shape.dim(i).has_dim_value() || shape.dim(i).dim_value() >= 0)
      continue;
    int64_t d = shape.dim(i).dim_value();
    // -1 is how some exporters (Paddle2ONNX, old tf2onnx) spell an unknown
    // dim, and ONNX Runtime takes it so: said, then treated as unknown.
    if (d == -1) {
      emitWarning(loc) << where << " '" << info.name() << "' declares shape "
                       << declaredShape(shape) << ": dim " << i
                       << " = -1 is taken as an unknown dim (a dim is a size "
                          ">= 0, or a name for a symbolic one)";
      continue;
    }
    return emitError(loc) << where << " '" << info.name()
                          << "' declares shape " << declaredShape(shape)
                          << ": dim " << i << " = " << d
                          << " is negative (a dim is a size >= 0, or a name "
                             "for a symbolic one)";
  }
  return success();
}

/// A value's element type as the graph computes it must agree with the one
/// the model declares for it (graph output, value_info, or an initializer
/// also listed as a graph input), as ONNX Runtime requires. A static shape
/// that disagrees is an error for an initializer listed as an input; for a
/// graph output or value_info it is a warning and the computed type is kept
/// (ONNX Runtime warns and runs: exporters write stale shapes).
LogicalResult
GraphImporter::checkDeclaredType(const onnx::ValueInfoProto &info,
                                 llvm::StringRef where, bool shapeIsHint) {
  if (!info.type().has_tensor_type())
    return success();
  auto it = values.find(info.name());
  if (it == values.end())
    return success();
  auto actual = dyn_cast<RankedTensorType>(it->second.getType());
  if (!actual)
    return success();
  const auto &tt = info.type().tensor_type();
  Location loc = NameLoc::get(StringAttr::get(&ctx, info.name()));
  Type elem = elementTypeFromOnnx(tt.elem_type(), &ctx);
  if (elem && !isa<quant::QuantizedType>(actual.getElementType()) &&
      elem != actual.getElementType())
    return emitError(loc) << where << " '" << info.name()
                          << "' is declared as "
                          << onnxTypeName(tt.elem_type())
                          << " but the graph computes " << actual;
  if (!tt.has_shape())
    return success();
  bool ok = tt.shape().dim_size() == actual.getRank();
  for (int i = 0; ok && i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    ok = !d.has_dim_value() || d.dim_value() < 0 ||
         actual.isDynamicDim(i) || d.dim_value() == actual.getDimSize(i);
  }
  if (ok)
    return success();
  if (shapeIsHint) {
    emitWarning(loc) << where << " '" << info.name()
                     << "' is declared with shape " << declaredShape(tt.shape())
                     << " but the graph computes " << actual
                     << "; keeping the computed type";
    return success();
  }
  return emitError(loc) << where << " '" << info.name()
                        << "' is declared with shape "
                        << declaredShape(tt.shape())
                        << " but the graph computes " << actual;
}

} // namespace strata::onnx_import
