//===- NpuHW.h - the task-level NPU dialect ---------------------*- C++ -*-===//
//
// npuhw mirrors the NPU program (include/strata/NpuSim/NpuProgram.h) one op
// per instruction. toNpuProgram/toNpuTask convert ops to the program struct
// the simulator runs and the serializer encodes; the program op's verifier
// runs the simulator's own checks (npusim::verifyTask) on every task.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_NPUHW_IR_NPUHW_H
#define STRATA_DIALECT_NPUHW_IR_NPUHW_H

#include "strata/NpuSim/NpuProgram.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/Error.h"

#include "strata/Dialect/NpuHW/IR/NpuHWDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "strata/Dialect/NpuHW/IR/NpuHWAttrs.h.inc"

#define GET_OP_CLASSES
#include "strata/Dialect/NpuHW/IR/NpuHWOps.h.inc"

namespace strata::npuhw {

/// The NPU configuration of a program's `config` dictionary (keys of the
/// JSON schema, docs/npu.md); the error names the field.
llvm::Expected<npu::NpuConfig> configFromAttr(mlir::DictionaryAttr attr);
/// The `config` dictionary of `config`.
mlir::DictionaryAttr configToAttr(mlir::MLIRContext *ctx,
                                  const npu::NpuConfig &config);

/// The task of one task op (dma_load, dma_store, slice_task, wait); an
/// error when a field cannot be represented (unknown kernel name, negative
/// address).
std::optional<std::string> toNpuTask(mlir::Operation *op, npusim::Task &task);

/// The whole program; emits an error on the offending op on failure.
mlir::LogicalResult toNpuProgram(ProgramOp program, npusim::Program &out);

/// Builds the ops of `program` at the builder's insertion point.
ProgramOp buildProgram(mlir::OpBuilder &b, mlir::Location loc,
                       const npusim::Program &program);

} // namespace strata::npuhw

#endif // STRATA_DIALECT_NPUHW_IR_NPUHW_H
