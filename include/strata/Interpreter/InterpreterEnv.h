//===- InterpreterEnv.h - values of an interpreted function -----*- C++ -*-===//
//
// The environment an op's reference semantics (InterpretableOpInterface) runs
// in: the tensors of the values computed so far, the shapes of the results
// the op is about to compute, and a way to run the op's regions. It knows no
// dialect.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERPRETER_INTERPRETERENV_H
#define STRATA_INTERPRETER_INTERPRETERENV_H

#include "strata/Support/Tensor.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "mlir/IR/Value.h"
#include <functional>
#include <unordered_map>
#include <vector>

namespace strata {

/// Maps SSA values to the host tensors the reference interpreter computed for
/// them. An op's `interpret` reads its operands with `get`, the shapes of its
/// results with `resultShape`, and stores its results with `set`. The
/// references `get` returns stay valid while other values are set
/// (node-based storage), so an op may keep reading an operand after storing
/// its first results.
class InterpreterEnv {
public:
  /// The tensor of `value`; the interpreter only runs an op once all of its
  /// operands have values.
  const Tensor &get(mlir::Value value) const {
    auto it = values.find(value);
    assert(it != values.end() && "operand has no value yet");
    return it->second;
  }
  /// The tensor of `value`, or nullptr if it has none (yet).
  const Tensor *find(mlir::Value value) const {
    auto it = values.find(value);
    return it == values.end() ? nullptr : &it->second;
  }
  bool has(mlir::Value value) const { return values.count(value); }
  void set(mlir::Value value, Tensor tensor) {
    values[value] = std::move(tensor);
  }
  void erase(mlir::Value value) {
    values.erase(value);
    shapes.erase(value);
  }

  /// The shape of result `result` of the op being interpreted, which the
  /// interpreter computed from the operands' tensors (the op's shape rule)
  /// before calling `interpret`. Only asked for results whose shape rule
  /// gives every dim; the op computes the others itself.
  const std::vector<int64_t> &resultShape(mlir::Value result) const {
    auto it = shapes.find(result);
    assert(it != shapes.end() && "no result shape for this value");
    return it->second;
  }
  bool hasResultShape(mlir::Value result) const {
    return shapes.count(result);
  }
  void setResultShape(mlir::Value result, std::vector<int64_t> shape) {
    shapes[result] = std::move(shape);
  }

  /// Runs the single block of a region with `args` bound to its arguments and
  /// returns the values its terminator yields; values of enclosing scopes
  /// stay visible inside. Set by the interpreter (Executor).
  using RegionRunner = std::function<mlir::FailureOr<std::vector<Tensor>>(
      mlir::Region &, llvm::ArrayRef<Tensor>)>;
  void setRegionRunner(RegionRunner runner) { regionRunner = std::move(runner); }
  /// Runs `region` (see RegionRunner); fails with an error on the region's
  /// parent op when no interpreter is attached (e.g. constant folding).
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
  std::unordered_map<mlir::Value, std::vector<int64_t>, ValueHash> shapes;
  RegionRunner regionRunner;
};

} // namespace strata

#endif // STRATA_INTERPRETER_INTERPRETERENV_H
