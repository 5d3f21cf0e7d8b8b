//===- TopInterfaces.h - Top op interfaces ----------------------*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_IR_TOPINTERFACES_H
#define STRATA_DIALECT_TOP_IR_TOPINTERFACES_H

#include "strata/Dialect/Top/IR/TopEnums.h"
#include "strata/Interfaces/ShapeInferenceOpInterface.h"
#include "strata/Interpreter/InterpretableOpInterface.h"

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

namespace strata::top {
// Top ops implement the dialect-neutral shape and interpreter interfaces.
using ::strata::InterpretableOpInterface;
using ::strata::InterpreterEnv;
using ::strata::ShapeContext;
using ::strata::ShapeInferenceOpInterface;
} // namespace strata::top

#include "strata/Dialect/Top/IR/TopInterfaces.h.inc"

#endif // STRATA_DIALECT_TOP_IR_TOPINTERFACES_H
