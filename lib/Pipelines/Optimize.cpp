//===- Optimize.cpp - running top-optimize on a Top model -----------------===//

#include "strata/Pipelines/Optimize.h"
#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/Pipelines.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace strata {

FailureOr<TensorMap> optimizeTopModule(ModuleOp module,
                                       const TensorMap &weights) {
  if (failed(top::attachWeightValues(module, weights)))
    return failure();
  PassManager pm(module.getContext());
  top::buildTopOptimizePipeline(pm);
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
  std::string weightFile = name + "_TOP_F32_weight.npz";
  Builder b(module.getContext());
  module->setAttr(top::kModelNameAttr, b.getStringAttr(name));
  module->setAttr(top::kWeightFileAttr, b.getStringAttr(weightFile));
  llvm::SmallString<256> npz(dir), mlir(dir);
  llvm::sys::path::append(npz, weightFile);
  llvm::sys::path::append(mlir, name + ".mlir");
  if (!writeNpz(std::string(npz), weights, error))
    return failure();
  if (failed(writeModuleFile(module, std::string(mlir), error))) {
    llvm::sys::fs::remove(npz);
    return failure();
  }
  return success();
}

} // namespace strata
