//===- TopDialect.h - Top dialect -------------------------------*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_IR_TOPDIALECT_H
#define STRATA_DIALECT_TOP_IR_TOPDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Dialect.h"

#include "strata/Dialect/Top/IR/TopOpsDialect.h.inc"
#include "strata/Dialect/Top/IR/TopEnums.h"

namespace strata::top {
/// Module attribute naming the weight file (an npz beside the .mlir).
constexpr llvm::StringLiteral kWeightFileAttr = "top.weight_file";
/// Module attribute with the model's name.
constexpr llvm::StringLiteral kModelNameAttr = "top.name";
} // namespace strata::top

#endif // STRATA_DIALECT_TOP_IR_TOPDIALECT_H
