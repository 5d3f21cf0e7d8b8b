//===- NpuProgramIO.h - npuhw <-> NPU program bytes -------------*- C++ -*-===//
//
// The serializer (an npuhw.program to the bytes of lib/NpuSim/npu_program.fbs)
// and the disassembler (bytes back to npuhw, the listing). Both go through
// npusim::Program, so bytes -> npuhw -> bytes is the identity.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TARGET_NPU_NPUPROGRAMIO_H
#define STRATA_TARGET_NPU_NPUPROGRAMIO_H

#include "strata/Dialect/NpuHW/IR/NpuHW.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::npuhw {

/// Verifies `program` and encodes it; emits the error on the offending op.
mlir::FailureOr<std::vector<uint8_t>> serializeProgram(ProgramOp program);

/// Decodes and verifies program bytes into a module holding one
/// npuhw.program; null with `error` set on corrupted bytes.
mlir::OwningOpRef<mlir::ModuleOp> disassembleProgram(mlir::MLIRContext *ctx,
                                                     const uint8_t *data,
                                                     uint64_t size,
                                                     std::string &error);

} // namespace strata::npuhw

#endif // STRATA_TARGET_NPU_NPUPROGRAMIO_H
