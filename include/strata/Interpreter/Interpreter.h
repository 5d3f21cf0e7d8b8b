//===- Interpreter.h - reference interpreter for Top IR ---------*- C++ -*-===//
//
// Executes a Top model (a module with an entry function, named inputs and
// outputs, top.Weight constants) on host tensors through the dialect-neutral
// Executor. This is Strata's golden model. The module is only read: running
// it leaves it byte for byte as it was.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERPRETER_INTERPRETER_H
#define STRATA_INTERPRETER_INTERPRETER_H

#include "strata/Interpreter/Executor.h"
#include "strata/Support/Npz.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace strata {

/// The name of input `i` of `func`: its `top.name` argument attribute, else
/// "input<i>".
std::string inputName(mlir::func::FuncOp func, unsigned i);
/// The name of result `i` of `func`: its `top.name` result attribute, else
/// "output<i>".
std::string outputName(mlir::func::FuncOp func, unsigned i);

/// The entry function: `main` if present, else the only public function.
mlir::FailureOr<mlir::func::FuncOp> findEntryFunction(mlir::ModuleOp module);

struct InterpreterOptions {
  /// Also return every intermediate tensor (keyed by valueName).
  bool dumpAll = false;
};

/// Runs the entry function. `inputs` are keyed by input name and must match
/// the argument types; `weights` must hold every top.Weight. Errors are
/// emitted as diagnostics on the module's context.
mlir::FailureOr<TensorMap> interpretModule(mlir::ModuleOp module,
                                           const TensorMap &inputs,
                                           const TensorMap &weights,
                                           const InterpreterOptions &options = {});

} // namespace strata

#endif // STRATA_INTERPRETER_INTERPRETER_H
