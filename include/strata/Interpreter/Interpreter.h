//===- Interpreter.h - reference interpreter for Top IR ---------*- C++ -*-===//
//
// Executes a Top module's entry function on host tensors, op by op, through
// each op's InterpretableOpInterface. This is Strata's golden model.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERPRETER_INTERPRETER_H
#define STRATA_INTERPRETER_INTERPRETER_H

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
/// The name of an intermediate value: its NameLoc, else "<op>_<n>".
std::string valueName(mlir::Value value, unsigned fallbackIndex);

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
