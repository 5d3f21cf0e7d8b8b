//===- Tabulate.cpp - a chain of ops on every int8 value ------------------===//

#include "strata/Interpreter/Tabulate.h"

#include "strata/Interpreter/InterpretableOpInterface.h"
#include "strata/Interpreter/InterpreterEnv.h"
#include "strata/Support/IntegerTable16.h"

namespace strata {

/// `ops` on `current` (each op's result shaped as `current`).
static mlir::FailureOr<Tensor> runChain(llvm::ArrayRef<mlir::Operation *> ops,
                                        Tensor current) {
  std::vector<int64_t> shape = current.shape();
  InterpreterEnv env;
  for (mlir::Operation *op : ops) {
    auto iface = llvm::dyn_cast<InterpretableOpInterface>(op);
    if (!iface || op->getNumOperands() < 1 || op->getNumResults() != 1)
      return mlir::failure();
    env.set(op->getOperand(0), std::move(current));
    env.setResultShape(op->getResult(0), shape);
    if (mlir::failed(iface.interpret(env)) || !env.has(op->getResult(0)))
      return mlir::failure();
    current = env.get(op->getResult(0)).clone();
  }
  return current;
}

mlir::FailureOr<Tensor> tabulateChain(llvm::ArrayRef<mlir::Operation *> ops,
                                      int64_t entries) {
  Tensor current(DType::I8, {entries});
  for (int64_t i = 0; i < entries; ++i)
    current.data<int8_t>()[i] = static_cast<int8_t>(i - entries / 2);
  return runChain(ops, std::move(current));
}

mlir::FailureOr<Tensor>
tabulateChainPerChannel(llvm::ArrayRef<mlir::Operation *> ops, int64_t channels,
                        int64_t entries) {
  Tensor current(DType::I8, {1, channels, entries});
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < entries; ++i)
      current.data<int8_t>()[c * entries + i] =
          static_cast<int8_t>(i - entries / 2);
  return runChain(ops, std::move(current));
}

mlir::FailureOr<std::vector<int16_t>>
tabulateTable16(llvm::ArrayRef<mlir::Operation *> ops, mlir::Value input,
                mlir::Value output, double inScale, int64_t inZp,
                double outScale, int64_t outZp, int64_t qmin, int64_t qmax) {
  const int64_t n = intq::kTable16Entries;
  std::vector<int64_t> shape = {n};
  Tensor x(DType::F32, shape);
  for (int64_t i = 0; i < n; ++i)
    x.data<float>()[i] = static_cast<float>(
        static_cast<double>(intq::table16EntryInput(i) - inZp) * inScale);
  InterpreterEnv env;
  env.set(input, std::move(x));
  for (mlir::Operation *op : ops) {
    auto iface = llvm::dyn_cast<InterpretableOpInterface>(op);
    if (!iface || op->getNumResults() != 1)
      return mlir::failure();
    for (mlir::Value operand : op->getOperands())
      if (!env.has(operand))
        return mlir::failure();
    env.setResultShape(op->getResult(0), shape);
    if (mlir::failed(iface.interpret(env)) || !env.has(op->getResult(0)))
      return mlir::failure();
  }
  if (!env.has(output))
    return mlir::failure();
  Tensor y = env.get(output).castTo(DType::F64);
  std::vector<int16_t> table(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    table[size_t(i)] =
        intq::table16Entry(y.data<double>()[i], outScale, outZp, qmin, qmax);
  return table;
}

} // namespace strata
