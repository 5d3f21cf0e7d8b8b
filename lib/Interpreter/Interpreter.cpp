//===- Interpreter.cpp - reference interpreter for Top IR -----------------===//

#include "strata/Interpreter/Interpreter.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"

#include "strata/Interfaces/HostTypes.h"
#include "strata/Interpreter/Executor.h"

using namespace mlir;

namespace strata {

std::string inputName(func::FuncOp func, unsigned i) {
  if (auto name = func.getArgAttrOfType<StringAttr>(i, "top.name"))
    return name.str();
  return "input" + std::to_string(i);
}

std::string outputName(func::FuncOp func, unsigned i) {
  if (auto name = func.getResultAttrOfType<StringAttr>(i, "top.name"))
    return name.str();
  return "output" + std::to_string(i);
}

FailureOr<func::FuncOp> findEntryFunction(ModuleOp module) {
  func::FuncOp entry, onlyPublic;
  int publicCount = 0;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.getName() == "main")
      entry = f;
    if (f.isPublic() && !f.isExternal()) {
      onlyPublic = f;
      ++publicCount;
    }
  }
  if (entry)
    return entry;
  if (publicCount == 1)
    return onlyPublic;
  return module.emitError("no entry function: expected @main or exactly one "
                          "public function");
}

FailureOr<TensorMap> interpretModule(ModuleOp module, const TensorMap &inputs,
                                     const TensorMap &weights,
                                     const InterpreterOptions &options) {
  auto entry = findEntryFunction(module);
  if (failed(entry))
    return failure();
  func::FuncOp func = *entry;
  if (func.getBody().getBlocks().size() != 1)
    return func.emitError("the entry function must have a single block");

  // Inputs, by name.
  std::vector<Tensor> args;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    std::string name = inputName(func, i);
    const Tensor *t = inputs.find(name);
    if (!t)
      return emitError(func.getLoc()) << "missing input '" << name << "'";
    if (failed(checkTensorFitsType(func.getLoc(), "input '" + name + "'", *t,
                                   arg.getType())))
      return failure();
    args.push_back(*t);
  }
  for (const auto &[name, t] : inputs) {
    bool known = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      known |= inputName(func, i) == name;
    if (!known)
      return emitError(func.getLoc())
             << "unknown input '" << name
             << "' (the function has no such argument)";
  }

  TensorMap result;
  InterpreterEnv env;
  Executor executor(env, options.dumpAll ? &result : nullptr);
  // Weights, in every function (called functions and regions included).
  WalkResult loaded = module.walk([&](top::WeightOp w) {
    if (auto value = w.getValueAttr()) {
      FailureOr<Tensor> inline_ = top::tensorFromElements(value, w.getLoc());
      if (failed(inline_))
        return WalkResult::interrupt();
      executor.bindConstant(w.getOutput(), *inline_);
      return WalkResult::advance();
    }
    const Tensor *t = weights.find(w.getName().str());
    if (!t) {
      top::emitMissingWeight(w, weights);
      return WalkResult::interrupt();
    }
    if (failed(checkTensorFitsType(w.getLoc(),
                                   "weight '" + w.getName().str() + "'", *t,
                                   w.getType())))
      return WalkResult::interrupt();
    executor.bindConstant(w.getOutput(), *t);
    return WalkResult::advance();
  });
  if (loaded.wasInterrupted())
    return failure();

  auto outputs = executor.runFunction(func.getBody(), args);
  if (failed(outputs))
    return failure();
  for (auto [i, t] : llvm::enumerate(*outputs))
    result.set(outputName(func, i), std::move(t));
  return result;
}

} // namespace strata
