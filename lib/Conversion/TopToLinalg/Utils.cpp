//===- Utils.cpp - helpers shared by the Top to linalg patterns -----------===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace strata::conversion {

TopTypeConverter::TopTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](IntegerType t) -> Type {
    if (t.isSignless())
      return t;
    return IntegerType::get(t.getContext(), t.getWidth());
  });
  // Quantized tensors compute on their storage integers (as the interpreter
  // and the artifact hold them); signedness comes from the Top-side type.
  addConversion([](quant::QuantizedType t) -> Type {
    return IntegerType::get(t.getContext(), t.getStorageTypeIntegralWidth());
  });
  addConversion([this](RankedTensorType t) -> std::optional<Type> {
    Type elem = convertType(t.getElementType());
    if (!elem)
      return std::nullopt;
    return RankedTensorType::get(t.getShape(), elem);
  });
}

FailureOr<RankedTensorType>
staticResultType(Operation *op, unsigned i, const TypeConverter &converter,
                 ConversionPatternRewriter &rewriter) {
  auto type = dyn_cast<RankedTensorType>(
      converter.convertType(op->getResult(i).getType()));
  if (!type)
    return rewriter.notifyMatchFailure(op, "result type is not a ranked "
                                           "tensor of a convertible type");
  if (!type.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "result shape is not static");
  return type;
}

RankedTensorType staticTensorType(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t : RankedTensorType();
}

bool isUnsignedElement(Value v) {
  Type elem = getElementTypeOrSelf(v.getType());
  // Quantized tensors are their storage integers: `u8` storage is unsigned.
  if (auto q = dyn_cast<quant::QuantizedType>(elem))
    return !q.isSigned();
  return elem.isUnsignedInteger();
}

bool isNone(Value v) { return isa<NoneType>(v.getType()); }

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double v) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(f, v));
  return arith::ConstantOp::create(
      b, loc, type, b.getIntegerAttr(type, static_cast<int64_t>(v)));
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarBody body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs) {
    auto t = cast<RankedTensorType>(in.getType());
    SmallVector<AffineExpr> exprs;
    int64_t offset = rank - t.getRank();
    for (int64_t d = 0; d < t.getRank(); ++d) {
      bool broadcast =
          t.getDimSize(d) == 1 && resultType.getDimSize(d + offset) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(d + offset, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type elem = resultType.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs,
      ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back(), elem);
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value reluScalar(OpBuilder &b, Location loc, Value x, bool isUnsigned) {
  Type t = x.getType();
  if (isUnsigned)
    return x;
  Value zero = scalarConstant(b, loc, t, 0.0);
  if (isa<FloatType>(t))
    return arith::MaximumFOp::create(b, loc, x, zero);
  return arith::MaxSIOp::create(b, loc, x, zero);
}

} // namespace strata::conversion
