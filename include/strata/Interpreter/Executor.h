//===- Executor.h - the dialect-neutral reference interpreter ---*- C++ -*-===//
//
// Runs blocks of any dialect whose ops implement InterpretableOpInterface on
// host tensors: op by op, regions through the environment's region runner,
// calls through CallOpInterface. Before an op runs, the shape of each of its
// results is computed from the operands' actual tensors by the op's
// ShapeInferenceOpInterface; after it runs, each result is checked against
// that shape and against its declared type. The IR is only read: running a
// module never changes it.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERPRETER_EXECUTOR_H
#define STRATA_INTERPRETER_EXECUTOR_H

#include "strata/Interpreter/InterpretableOpInterface.h"
#include "strata/Support/Npz.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <string>
#include <vector>

namespace strata {

/// The name of an intermediate value in a dump: its NameLoc (with
/// "_<result number>" for ops with several results), else "<op>_<n>".
std::string valueName(mlir::Value value, unsigned fallbackIndex);

/// Runs one op in `env`: computes its result shapes from the operand
/// tensors (ShapeInferenceOpInterface, else the declared types), stores them
/// for `env.resultShape`, calls `interpret` and checks every result against
/// its shape and declared type. Every operand must have a value in `env`.
/// Also used by constant folding, where `env` holds only the operands.
mlir::LogicalResult interpretOp(mlir::Operation *op, InterpreterEnv &env);

/// Executes function bodies and regions on host tensors.
class Executor {
public:
  /// `dump`, when given, receives every intermediate tensor of the body run
  /// by runFunction (keyed by valueName); then nothing is freed early.
  explicit Executor(InterpreterEnv &env, TensorMap *dump = nullptr);
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  /// Binds `value` for the whole run (a weight, a constant): the op defining
  /// it is not run when all its results are bound this way, and the value is
  /// never freed.
  void bindConstant(mlir::Value value, Tensor tensor);

  /// Runs the single block of a function body with `args` bound to its
  /// arguments (each checked against its type) and returns what its
  /// terminator yields. Each intermediate is freed after its last use unless
  /// it is dumped.
  mlir::FailureOr<std::vector<Tensor>> runFunction(mlir::Region &body,
                                                   llvm::ArrayRef<Tensor> args);

private:
  mlir::FailureOr<std::vector<Tensor>> runRegion(mlir::Region &region,
                                                 llvm::ArrayRef<Tensor> args);
  mlir::LogicalResult bindArguments(mlir::Block &block,
                                    llvm::ArrayRef<Tensor> args);
  mlir::LogicalResult runOp(mlir::Operation &op);
  mlir::LogicalResult runCall(mlir::Operation &op);
  mlir::LogicalResult collectYield(mlir::Operation &terminator,
                                   std::vector<Tensor> &results);
  bool isConstant(mlir::Operation &op) const;

  InterpreterEnv &env;
  TensorMap *dump;
  llvm::DenseSet<mlir::Value> constants;
  unsigned dumpCounter = 0;
  unsigned callDepth = 0;
};

} // namespace strata

#endif // STRATA_INTERPRETER_EXECUTOR_H
