//===- BytecodeCheck.h - reading MLIR bytecode in a child process -*- C++
//-*-===//
//
// MLIR's bytecode reader trusts its input: fuzzing corrupted bytecode found
// crashes, heap corruption and endless recursion in its attribute and type
// reader (LLVM 22). Strata therefore reads a bytecode file first in a forked
// child process with a CPU-time and an address-space limit; only a file that
// child read and verified is parsed in the tool's own process (the reader is
// deterministic: same bytes, same dialects, same result). A child that
// crashes, runs out of its limits or hangs becomes an error naming the file.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_PIPELINES_BYTECODECHECK_H
#define STRATA_PIPELINES_BYTECODECHECK_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace strata {

/// The limits the child reads `bytes` under: CPU seconds and address space.
/// Both grow with the file so that any valid file reads well inside them
/// (valid bytecode reads at > 100 MB/s here).
struct BytecodeCheckLimits {
  uint64_t cpuSeconds;
  uint64_t addressSpaceBytes;
};
BytecodeCheckLimits bytecodeCheckLimits(uint64_t fileBytes);

/// Reads and verifies the MLIR bytecode `bytes` in a child process with a
/// fresh context holding `context`'s dialects (and its unregistered-dialect
/// setting), threading off, under bytecodeCheckLimits. Success when the child
/// read and verified it; otherwise the child's diagnostics, or what stopped
/// it (a signal, a limit, a wall-clock timeout), are reported to `context`
/// located at `name`.
mlir::LogicalResult checkBytecodeInChild(std::string_view bytes,
                                         const std::string &name,
                                         mlir::MLIRContext &context);

} // namespace strata

#endif // STRATA_PIPELINES_BYTECODECHECK_H
