//===- Optimize.cpp - running top-optimize on a Top model -----------------===//

#include "strata/Pipelines/Optimize.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/Pipelines.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;

namespace strata {

/// Runs `pm` on `module` with the weights' data attached; returns the
/// weights the result uses.
static FailureOr<TensorMap> runWithWeights(ModuleOp module,
                                           const TensorMap &weights,
                                           PassManager &pm) {
  if (failed(top::attachWeightValues(module, weights)))
    return failure();
  if (failed(pm.run(module)))
    return failure();
  TensorMap optimized;
  if (failed(top::detachWeightValues(module, optimized)))
    return failure();
  return optimized;
}

FailureOr<TensorMap> optimizeTopModule(ModuleOp module,
                                       const TensorMap &weights,
                                       StringRef layout) {
  PassManager pm(module.getContext());
  top::buildTopOptimizePipeline(pm, layout);
  return runWithWeights(module, weights, pm);
}

FailureOr<TensorMap> runTopPasses(ModuleOp module, const TensorMap &weights,
                                  PassManager &pm) {
  return runWithWeights(module, weights, pm);
}

/// Splits `pipeline` at the commas outside braces and parentheses.
static SmallVector<StringRef> splitPipeline(StringRef pipeline) {
  SmallVector<StringRef> elements;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= pipeline.size(); ++i) {
    char c = i < pipeline.size() ? pipeline[i] : ',';
    if (c == '{' || c == '(')
      ++depth;
    else if (c == '}' || c == ')')
      --depth;
    else if (c == ',' && depth == 0) {
      elements.push_back(pipeline.slice(start, i).trim());
      start = i + 1;
    }
  }
  return elements;
}

LogicalResult parseTopPipeline(StringRef pipeline, OpPassManager &pm,
                               llvm::raw_ostream &errorStream) {
  // MLIR's textual pipeline parser nests explicitly; like strata-opt's
  // flags, each element goes in through its registry entry, so that a
  // function pass nests under the module by itself.
  OpPassManager::Nesting saved = pm.getNesting();
  pm.setNesting(OpPassManager::Nesting::Implicit);
  llvm::scope_exit restore([&] { pm.setNesting(saved); });
  auto onError = [&](const Twine &msg) {
    errorStream << msg << "\n";
    return failure();
  };
  for (StringRef element : splitPipeline(pipeline)) {
    if (element.contains('(')) { // an explicitly nested pipeline
      if (failed(parsePassPipeline(element, pm, errorStream)))
        return failure();
      continue;
    }
    auto [name, rest] = element.split('{');
    StringRef options = rest.empty() ? rest : rest.drop_back();
    if (!rest.empty() && !rest.ends_with("}"))
      return onError("'" + element + "': options must end with '}'");
    const PassRegistryEntry *entry = PassPipelineInfo::lookup(name.trim());
    if (!entry)
      entry = PassInfo::lookup(name.trim());
    if (!entry)
      return onError("'" + name.trim() +
                     "' does not refer to a registered pass or pass pipeline");
    if (failed(entry->addToPipeline(pm, options, onError)))
      return failure();
  }
  return success();
}

FailureOr<TensorMap> runTopPipeline(ModuleOp module, const TensorMap &weights,
                                    StringRef pipeline) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parseTopPipeline(pipeline, pm, os)))
    return emitError(module.getLoc())
           << "pass pipeline '" << pipeline << "' does not parse: " << error;
  return runWithWeights(module, weights, pm);
}

LogicalResult writeOptimizedTopModel(ModuleOp module, const TensorMap &weights,
                                     const std::string &dir,
                                     const std::string &name,
                                     std::string &error) {
  return writeModelPair(module, weights, dir, name, name + ".mlir",
                        name + "_TOP_F32_weight.npz", error);
}

} // namespace strata
