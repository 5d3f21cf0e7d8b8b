//===- InterpreterEnv.h - values of an interpreted function -----*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_IR_INTERPRETERENV_H
#define STRATA_DIALECT_TOP_IR_INTERPRETERENV_H

#include "strata/Support/Tensor.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace strata::top {

/// Maps SSA values to the host tensors the reference interpreter computed for
/// them. An op's `interpret` reads its operands with `get` and stores its
/// results with `set`.
class InterpreterEnv {
public:
  /// The tensor of `value`; the interpreter only runs an op once all of its
  /// operands have values.
  const Tensor &get(mlir::Value value) const {
    auto it = values.find(value);
    assert(it != values.end() && "operand has no value yet");
    return it->second;
  }
  bool has(mlir::Value value) const { return values.count(value); }
  void set(mlir::Value value, Tensor tensor) {
    values[value] = std::move(tensor);
  }
  void erase(mlir::Value value) { values.erase(value); }

private:
  llvm::DenseMap<mlir::Value, Tensor> values;
};

} // namespace strata::top

#endif // STRATA_DIALECT_TOP_IR_INTERPRETERENV_H
