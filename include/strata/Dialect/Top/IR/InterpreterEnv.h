//===- InterpreterEnv.h - values of an interpreted function -----*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_IR_INTERPRETERENV_H
#define STRATA_DIALECT_TOP_IR_INTERPRETERENV_H

#include "strata/Support/Tensor.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "mlir/IR/Value.h"
#include <functional>
#include <unordered_map>
#include <vector>

namespace strata::top {

/// Maps SSA values to the host tensors the reference interpreter computed for
/// them. An op's `interpret` reads its operands with `get` and stores its
/// results with `set`. The references `get` returns stay valid while other
/// values are set (node-based storage), so an op may keep reading an operand
/// after storing its first results.
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

  /// Runs the single block of a region with `args` bound to its arguments and
  /// returns the values its terminator yields; values of enclosing scopes
  /// stay visible inside. Set by the reference interpreter.
  using RegionRunner = std::function<mlir::FailureOr<std::vector<Tensor>>(
      mlir::Region &, llvm::ArrayRef<Tensor>)>;
  void setRegionRunner(RegionRunner runner) { regionRunner = std::move(runner); }
  /// Runs `region` (see RegionRunner); fails with an error on the region's
  /// parent op when no interpreter is attached (e.g. importer folding).
  mlir::FailureOr<std::vector<Tensor>> runRegion(mlir::Region &region,
                                                 llvm::ArrayRef<Tensor> args) {
    if (!regionRunner)
      return region.getParentOp()->emitOpError(
          "has regions, which only the reference interpreter can run");
    return regionRunner(region, args);
  }

private:
  struct ValueHash {
    size_t operator()(mlir::Value v) const { return mlir::hash_value(v); }
  };
  std::unordered_map<mlir::Value, Tensor, ValueHash> values;
  RegionRunner regionRunner;
};

} // namespace strata::top

#endif // STRATA_DIALECT_TOP_IR_INTERPRETERENV_H
