//===- TopDialect.cpp - Top dialect registration and verification ---------===//

#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace strata::top;

#include "strata/Dialect/Top/IR/TopOpsDialect.cpp.inc"
#include "strata/Dialect/Top/IR/TopInterfaces.cpp.inc"

void TopDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/Top/IR/TopOps.cpp.inc"
      >();
}

LogicalResult TopDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kWeightFileAttr || name == kModelNameAttr) {
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << name
                             << "' is only valid on a builtin.module";
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a string, got "
                             << attr.getValue();
    return success();
  }
  return op->emitError() << "unknown Top dialect attribute '" << name << "'";
}

LogicalResult strata::top::verifyInferredShapes(Operation *op) {
  for (Value operand : op->getOperands())
    if (!isa<NoneType>(operand.getType()) && !hasStaticShape(operand))
      return success(); // nothing to check until shapes are known
  auto iface = cast<ShapeInferenceOpInterface>(op);
  SmallVector<SmallVector<int64_t>> shapes;
  if (failed(iface.inferShapes(shapes)))
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
             << "result #" << i << " has shape " << formatArray(declared)
             << " but the operands and attributes give "
             << formatArray(shapes[i]);
  }
  return success();
}

#define GET_OP_CLASSES
#include "strata/Dialect/Top/IR/TopOps.cpp.inc"
