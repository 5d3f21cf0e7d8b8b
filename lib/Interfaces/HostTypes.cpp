//===- HostTypes.cpp - MLIR element types as host dtypes ------------------===//

#include "strata/Interfaces/HostTypes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace strata {

std::optional<DType> dtypeOf(Type t) {
  if (auto q = dyn_cast<quant::QuantizedType>(t)) {
    // The storage type is a signless integer; signedness is a quant flag.
    t = IntegerType::get(t.getContext(), q.getStorageTypeIntegralWidth(),
                         q.isSigned() ? IntegerType::Signless
                                      : IntegerType::Unsigned);
  }
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isF32())
    return DType::F32;
  if (t.isF64())
    return DType::F64;
  if (isa<Float8E4M3FNType>(t))
    return DType::F8E4M3FN;
  if (isa<Float8E4M3FNUZType>(t))
    return DType::F8E4M3FNUZ;
  if (isa<Float8E5M2Type>(t))
    return DType::F8E5M2;
  if (isa<Float8E5M2FNUZType>(t))
    return DType::F8E5M2FNUZ;
  if (isa<Float4E2M1FNType>(t))
    return DType::F4E2M1FN;
  if (isa<Float8E8M0FNUType>(t))
    return DType::F8E8M0FNU;
  auto it = dyn_cast<IntegerType>(t);
  if (!it)
    return std::nullopt;
  unsigned w = it.getWidth();
  if (w == 1)
    return DType::Bool;
  bool isUnsigned = it.isUnsigned();
  switch (w) {
  case 2: return isUnsigned ? DType::U2 : DType::I2;
  case 4: return isUnsigned ? DType::U4 : DType::I4;
  case 8: return isUnsigned ? DType::U8 : DType::I8;
  case 16: return isUnsigned ? DType::U16 : DType::I16;
  case 32: return isUnsigned ? DType::U32 : DType::I32;
  case 64: return isUnsigned ? DType::U64 : DType::I64;
  default: return std::nullopt;
  }
}

std::optional<DType> dtypeOfValue(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type)
    return std::nullopt;
  return dtypeOf(type.getElementType());
}

Type elementTypeOf(DType type, MLIRContext *ctx) {
  Builder b(ctx);
  switch (type) {
  case DType::Bool: return b.getI1Type();
  case DType::I8: return b.getIntegerType(8);
  case DType::I16: return b.getIntegerType(16);
  case DType::I32: return b.getIntegerType(32);
  case DType::I64: return b.getIntegerType(64);
  case DType::U8: return b.getIntegerType(8, /*isSigned=*/false);
  case DType::U16: return b.getIntegerType(16, false);
  case DType::U32: return b.getIntegerType(32, false);
  case DType::U64: return b.getIntegerType(64, false);
  case DType::F16: return b.getF16Type();
  case DType::BF16: return b.getBF16Type();
  case DType::F32: return b.getF32Type();
  case DType::F64: return b.getF64Type();
  case DType::I4: return b.getIntegerType(4);
  case DType::U4: return b.getIntegerType(4, false);
  case DType::I2: return b.getIntegerType(2);
  case DType::U2: return b.getIntegerType(2, false);
  case DType::F8E4M3FN: return b.getType<Float8E4M3FNType>();
  case DType::F8E4M3FNUZ: return b.getType<Float8E4M3FNUZType>();
  case DType::F8E5M2: return b.getType<Float8E5M2Type>();
  case DType::F8E5M2FNUZ: return b.getType<Float8E5M2FNUZType>();
  case DType::F4E2M1FN: return b.getType<Float4E2M1FNType>();
  case DType::F8E8M0FNU: return b.getType<Float8E8M0FNUType>();
  }
  return b.getF32Type();
}

LogicalResult checkTensorFitsType(Location loc, const llvm::Twine &what,
                                  const Tensor &t, Type type) {
  auto tensorType = dyn_cast<TensorType>(type);
  if (!tensorType)
    return emitError(loc) << what << ": expected a tensor type, got " << type;
  std::optional<DType> want = dtypeOf(tensorType.getElementType());
  if (!want)
    return emitError(loc) << what << ": unsupported element type "
                          << tensorType.getElementType();
  if (t.dtype() != *want)
    return emitError(loc) << what << " has dtype " << dtypeName(t.dtype())
                          << " but " << dtypeName(*want) << " is expected";
  if (!tensorType.hasRank())
    return success();
  bool ok = tensorType.getRank() == t.rank();
  for (int64_t d = 0; ok && d < t.rank(); ++d)
    ok = tensorType.isDynamicDim(d) || tensorType.getDimSize(d) == t.dim(d);
  if (!ok) {
    if (tensorType.hasStaticShape())
      return emitError(loc)
             << what << " has shape " << shapeToString(t.shape()) << " but "
             << shapeToString(std::vector<int64_t>(tensorType.getShape().begin(),
                                                   tensorType.getShape().end()))
             << " is expected";
    return emitError(loc) << what << " has shape " << shapeToString(t.shape())
                          << " but its type is " << type;
  }
  return success();
}

} // namespace strata
