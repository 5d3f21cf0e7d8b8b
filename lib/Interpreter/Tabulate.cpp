//===- Tabulate.cpp - a chain of ops on every int8 value ------------------===//

#include "strata/Interpreter/Tabulate.h"

#include "strata/Interpreter/InterpretableOpInterface.h"
#include "strata/Interpreter/InterpreterEnv.h"

namespace strata {

mlir::FailureOr<Tensor> tabulateChain(llvm::ArrayRef<mlir::Operation *> ops,
                                      int64_t entries) {
  Tensor current(DType::I8, {entries});
  for (int64_t i = 0; i < entries; ++i)
    current.data<int8_t>()[i] = static_cast<int8_t>(i - entries / 2);
  InterpreterEnv env;
  for (mlir::Operation *op : ops) {
    auto iface = llvm::dyn_cast<InterpretableOpInterface>(op);
    if (!iface || op->getNumOperands() < 1 || op->getNumResults() != 1)
      return mlir::failure();
    env.set(op->getOperand(0), std::move(current));
    env.setResultShape(op->getResult(0), {entries});
    if (mlir::failed(iface.interpret(env)) || !env.has(op->getResult(0)))
      return mlir::failure();
    current = env.get(op->getResult(0)).clone();
  }
  return current;
}

} // namespace strata
