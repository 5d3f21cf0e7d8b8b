//===- TopTable16Op.h - top.Table16 -----------------------------*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_IR_TOPTABLE16OP_H
#define STRATA_DIALECT_TOP_IR_TOPTABLE16OP_H

#include "strata/Dialect/Top/IR/TopOps.h"

#define GET_OP_CLASSES
#include "strata/Dialect/Top/IR/TopTable16Op.h.inc"

#endif // STRATA_DIALECT_TOP_IR_TOPTABLE16OP_H
