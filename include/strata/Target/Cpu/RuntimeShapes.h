//===- RuntimeShapes.h - dispatches whose result shape is decided at run time
//
// The ops whose result shape depends on input values (NonZero, Unique,
// NonMaxSuppression, Range of run-time bounds) are outlined with
// `strata.result_bounds` (strata-cpu-outline-dispatches) and run as a
// runtime kernel (lib/Runtime/CpuShapeKernels.cpp) that writes each such
// result compactly into a buffer of its bound and its actual dims into a
// dims buffer (artifact format 1.2, docs/artifact.md). This plans that
// kernel call.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TARGET_CPU_RUNTIMESHAPES_H
#define STRATA_TARGET_CPU_RUNTIMESHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::cpu {

struct RuntimeShapeKernelPlan {
  /// One kernel binding: an argument of the dispatch function, one of its
  /// results, or the dims buffer of one of its results.
  struct Binding {
    enum Kind { Operand, Result, Dims } kind;
    unsigned index;
  };
  std::string kernel;
  std::vector<int64_t> params;
  std::vector<Binding> bindings;
  /// Per function result: a static upper bound of its shape (its shape when
  /// static) and whether the runtime decides it.
  std::vector<std::vector<int64_t>> bounds;
  std::vector<bool> runtime;
};

/// The kernel call of the dispatch function `fn`, which carries
/// `strata.result_bounds`; `dtypeNumber` gives the artifact dtype number of
/// an element type (nullopt: not supported). Failure with `error` naming
/// the op when the kernel does not take its form (rank above 8, a dtype).
mlir::FailureOr<RuntimeShapeKernelPlan> planRuntimeShapeKernel(
    mlir::func::FuncOp fn,
    llvm::function_ref<std::optional<int64_t>(mlir::Type)> dtypeNumber,
    std::string &error);

} // namespace strata::cpu

#endif // STRATA_TARGET_CPU_RUNTIMESHAPES_H
