//===- TopOps.h - Top dialect ops -------------------------------*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_IR_TOPOPS_H
#define STRATA_DIALECT_TOP_IR_TOPOPS_H

#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/TopInterfaces.h"
#include "strata/Dialect/Top/IR/TopTraits.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "strata/Dialect/Top/IR/TopOps.h.inc"

#endif // STRATA_DIALECT_TOP_IR_TOPOPS_H
