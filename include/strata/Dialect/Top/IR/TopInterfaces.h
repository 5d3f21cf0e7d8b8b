//===- TopInterfaces.h - Top op interfaces ----------------------*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_IR_TOPINTERFACES_H
#define STRATA_DIALECT_TOP_IR_TOPINTERFACES_H

#include "strata/Dialect/Top/IR/InterpreterEnv.h"

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

namespace strata::top {
/// Checks the op's declared result shapes against `inferShapes` when every
/// tensor operand has a static shape.
mlir::LogicalResult verifyInferredShapes(mlir::Operation *op);
} // namespace strata::top

#include "strata/Dialect/Top/IR/TopInterfaces.h.inc"

#endif // STRATA_DIALECT_TOP_IR_TOPINTERFACES_H
