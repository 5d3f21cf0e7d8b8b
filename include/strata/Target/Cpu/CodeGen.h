//===- CodeGen.h - LLVM dialect to a loadable shared object -----*- C++ -*-===//

#ifndef STRATA_TARGET_CPU_CODEGEN_H
#define STRATA_TARGET_CPU_CODEGEN_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace strata::cpu {

struct CodeGenOptions {
  /// LLVM CPU name (`znver4`, `x86-64-v3`, ...); empty: this host's CPU and
  /// features.
  std::string cpu;
  /// LLVM optimization level, 0-3.
  unsigned optLevel = 2;
};

/// Translates `module` (LLVM dialect) to LLVM IR, optimizes it, emits an
/// x86-64 object and links it into a shared object (ld.lld, against libm
/// and libc) whose bytes it returns. Errors name the stage.
mlir::FailureOr<std::string> emitSharedObject(mlir::ModuleOp module,
                                              const CodeGenOptions &options,
                                              std::string &error);

/// Whether `cpu` names a CPU LLVM's x86-64 back end knows.
bool isKnownCpu(const std::string &cpu);

} // namespace strata::cpu

#endif // STRATA_TARGET_CPU_CODEGEN_H
