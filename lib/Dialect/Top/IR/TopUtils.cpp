//===- TopUtils.cpp - helpers shared by Top ops and tools -----------------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace strata::top {

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

bool hasStaticShape(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape();
}

SmallVector<int64_t> shapeOf(Value value) {
  return SmallVector<int64_t>(cast<RankedTensorType>(value.getType()).getShape());
}

bool isNone(Value value) { return isa<NoneType>(value.getType()); }

std::string formatArray(ArrayRef<int64_t> values) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(values, os, [&](int64_t v) {
    if (ShapedType::isDynamic(v))
      os << '?';
    else
      os << v;
  });
  os << ']';
  return s;
}

FailureOr<SmallVector<int64_t>> broadcastShapes(Operation *op,
                                                ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    // A dynamic dim (`?`) is 1 or the other dim; only run time tells.
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b)) {
      int64_t known = ShapedType::isDynamic(a) ? b : a;
      out[i] = ShapedType::isDynamic(known) || known == 1 ? ShapedType::kDynamic
                                                          : known;
      continue;
    }
    if (a != b && a != 1 && b != 1)
      return op->emitOpError() << "operand shapes " << formatArray(lhs)
                               << " and " << formatArray(rhs)
                               << " do not broadcast";
    out[i] = a == 1 ? b : a;
  }
  return out;
}

FailureOr<int64_t> checkedElementCount(Operation *op, ArrayRef<int64_t> shape) {
  std::optional<int64_t> n =
      checkedNumElements(std::vector<int64_t>(shape.begin(), shape.end()));
  if (!n)
    return op->emitOpError() << "shape " << formatArray(shape)
                             << " has a negative dim or overflows int64";
  return *n;
}

LogicalResult inferAndSetResultTypes(Operation *op) {
  auto iface = dyn_cast<ShapeInferenceOpInterface>(op);
  if (!iface)
    return op->emitOpError("does not implement shape inference");
  SmallVector<SmallVector<int64_t>> shapes;
  if (failed(iface.inferShapes(shapes)))
    return failure();
  if (shapes.size() != op->getNumResults())
    return op->emitOpError() << "shape inference produced " << shapes.size()
                             << " shapes for " << op->getNumResults()
                             << " results";
  for (auto [result, shape] : llvm::zip(op->getResults(), shapes)) {
    auto type = dyn_cast<TensorType>(result.getType());
    if (type && !type.hasStaticShape())
      result.setType(RankedTensorType::get(shape, type.getElementType()));
  }
  return success();
}

SmallVector<int64_t> channelsLastToFirstOrder(int64_t rank) {
  SmallVector<int64_t> order{0, rank - 1};
  for (int64_t d = 1; d + 1 < rank; ++d)
    order.push_back(d);
  return order;
}

SmallVector<int64_t> channelsFirstToLastOrder(int64_t rank) {
  SmallVector<int64_t> order{0};
  for (int64_t d = 2; d < rank; ++d)
    order.push_back(d);
  order.push_back(1);
  return order;
}

SmallVector<int64_t> permuteShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> order) {
  SmallVector<int64_t> out;
  for (int64_t d : order)
    out.push_back(shape[d]);
  return out;
}

} // namespace strata::top
