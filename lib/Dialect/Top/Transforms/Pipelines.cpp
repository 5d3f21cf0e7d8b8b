//===- Pipelines.cpp - Top optimization pipeline --------------------------===//

#include "strata/Dialect/Top/Transforms/Pipelines.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace strata::top {

void buildTopOptimizePipeline(OpPassManager &pm) {
  // Model-local functions (composites) are inlined first; composite fusion,
  // when it lands, runs before this so known composites become fused ops.
  pm.addPass(createTopInlineFunctions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTopFoldConstants());
  pm.addNestedPass<func::FuncOp>(createTopFoldPad());
  pm.addPass(createTopFoldBatchNorm());
  pm.addPass(createTopFoldMatMulBias());
  // Idioms before activation fusion: a recognized SiLU / GELU can then
  // become a Conv / MatMul epilogue.
  pm.addNestedPass<func::FuncOp>(createTopFuseIdioms());
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
