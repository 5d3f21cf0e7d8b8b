//===- ShapeInferenceOpInterface.cpp - result shapes of an op -------------===//

#include "strata/Interfaces/ShapeInferenceOpInterface.h"

using namespace mlir;

namespace strata {

ShapeContext::~ShapeContext() = default;

SmallVector<int64_t> TypeShapeContext::shape(Value value) const {
  return SmallVector<int64_t>(cast<RankedTensorType>(value.getType()).getShape());
}

static bool isStaticOrNone(Value v) {
  if (isa<NoneType>(v.getType()))
    return true;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape();
}

LogicalResult verifyInferredShapes(Operation *op) {
  if (!llvm::all_of(op->getOperands(), isStaticOrNone))
    return success(); // nothing to check until shapes are known
  auto iface = cast<ShapeInferenceOpInterface>(op);
  SmallVector<SmallVector<int64_t>> shapes;
  if (failed(iface.inferShapesFromTypes(shapes)))
    return failure();
  if (shapes.size() != op->getNumResults())
    return op->emitOpError() << "shape inference produced " << shapes.size()
                             << " shapes for " << op->getNumResults()
                             << " results";
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      continue;
    ArrayRef<int64_t> declared = type.getShape();
    bool ok = declared.size() == shapes[i].size();
    for (size_t d = 0; ok && d < declared.size(); ++d)
      ok = ShapedType::isDynamic(declared[d]) ||
           ShapedType::isDynamic(shapes[i][d]) || declared[d] == shapes[i][d];
    if (!ok)
      return op->emitOpError()
             << "result #" << i << " has shape " << formatInts(declared)
             << " but the operands and attributes give "
             << formatInts(shapes[i]);
  }
  return success();
}

LogicalResult checkInferredDims(Operation *op,
                                ArrayRef<SmallVector<int64_t>> shapes) {
  for (auto [i, shape] : llvm::enumerate(shapes))
    for (auto [d, dim] : llvm::enumerate(shape))
      if (dim < 0 && !ShapedType::isDynamic(dim))
        return op->emitOpError()
               << "result #" << i << " would have the negative dim " << dim
               << " at index " << d << " (shape " << formatInts(shape)
               << ") for these operands and attributes";
  return success();
}

LogicalResult appendShape(Operation *op, const ShapeOr<Shape> &result,
                          SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  if (!result)
    return op->emitOpError() << result.error();
  shapes.emplace_back(result->begin(), result->end());
  return success();
}

LogicalResult appendShapes(Operation *op, const ShapeOr<Shapes> &result,
                           SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  if (!result)
    return op->emitOpError() << result.error();
  for (const Shape &s : *result)
    shapes.emplace_back(s.begin(), s.end());
  return success();
}

} // namespace strata

#include "strata/Interfaces/ShapeInferenceOpInterface.cpp.inc"
