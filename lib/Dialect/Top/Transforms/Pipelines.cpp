//===- Pipelines.cpp - Top optimization pipeline --------------------------===//

#include "strata/Dialect/Top/Transforms/Pipelines.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace strata::top {

void buildTopOptimizePipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTopFoldConstants());
  pm.addNestedPass<func::FuncOp>(createTopFoldPad());
  pm.addPass(createTopFoldBatchNorm());
  pm.addNestedPass<func::FuncOp>(createTopFuseActivation());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}

void registerTopOptimizePipeline() {
  PassPipelineRegistration<>(
      "top-optimize",
      "The default Top optimization pipeline (folding, fusion, CSE, DCE)",
      buildTopOptimizePipeline);
}

} // namespace strata::top
