//===- Optimize.cpp - running top-optimize on a Top model -----------------===//

#include "strata/Pipelines/Optimize.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/Pipelines.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace strata {

FailureOr<TensorMap> optimizeTopModule(ModuleOp module,
                                       const TensorMap &weights,
                                       StringRef layout) {
  if (failed(top::attachWeightValues(module, weights)))
    return failure();
  PassManager pm(module.getContext());
  top::buildTopOptimizePipeline(pm, layout);
  if (failed(pm.run(module)))
    return failure();
  TensorMap optimized;
  if (failed(top::detachWeightValues(module, optimized)))
    return failure();
  return optimized;
}

LogicalResult writeOptimizedTopModel(ModuleOp module, const TensorMap &weights,
                                     const std::string &dir,
                                     const std::string &name,
                                     std::string &error) {
  return writeModelPair(module, weights, dir, name, name + ".mlir",
                        name + "_TOP_F32_weight.npz", error);
}

} // namespace strata
