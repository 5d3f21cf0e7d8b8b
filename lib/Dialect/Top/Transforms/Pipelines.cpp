//===- Pipelines.cpp - Top optimization pipeline --------------------------===//

#include "strata/Dialect/Top/Transforms/Pipelines.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace strata::top {

void buildTopOptimizePipeline(OpPassManager &pm) {
  // Known composites become fused ops first; every model-local function is
  // then inlined, so calls of fused composites end up as the fused op.
  pm.addPass(createTopFuseComposites());
  pm.addPass(createTopInlineFunctions());
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
