//===- TopUtils.cpp - helpers shared by Top ops and tools -----------------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace strata::top {

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
  if (failed(iface.inferShapesFromTypes(shapes)))
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
