//===- TopDialect.cpp - Top dialect registration and verification ---------===//

#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopTable16Op.h"
#include "strata/Dialect/Top/IR/TopUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace strata::top;

#include "strata/Dialect/Top/IR/TopOpsDialect.cpp.inc"
#include "strata/Dialect/Top/IR/TopInterfaces.cpp.inc"
#include "strata/Dialect/Top/IR/TopEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "strata/Dialect/Top/IR/TopAttrs.cpp.inc"

void TopDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/Top/IR/TopOps.cpp.inc"
      >();
  // top.Table16 has its own tablegen target (TopTable16Op.td).
  addOperations<Table16Op>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "strata/Dialect/Top/IR/TopAttrs.cpp.inc"
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

#define GET_OP_CLASSES
#include "strata/Dialect/Top/IR/TopOps.cpp.inc"
