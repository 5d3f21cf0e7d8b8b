//===- Pipelines.cpp - Top optimization pipeline --------------------------===//

#include "strata/Dialect/Top/Transforms/Pipelines.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace strata::top {

void buildTopOptimizePipeline(OpPassManager &pm, StringRef layout) {
  // Known composites become fused ops first; every model-local function is
  // then inlined, so calls of fused composites end up as the fused op.
  pm.addPass(createTopFuseComposites());
  pm.addPass(createTopInlineFunctions());
  pm.addPass(createCanonicalizerPass());
  if (!layout.empty())
    pm.addNestedPass<func::FuncOp>(createTopConvertLayout({layout.str()}));
  pm.addNestedPass<func::FuncOp>(createTopSinkTransposes());
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

namespace {
struct TopOptimizeOptions : PassPipelineOptions<TopOptimizeOptions> {
  Option<std::string> layout{*this, "layout",
                             llvm::cl::desc("Convert layout-sensitive ops to "
                                            "nchw or nhwc (default: keep)")};
};
} // namespace

void registerTopOptimizePipeline() {
  PassPipelineRegistration<TopOptimizeOptions>(
      "top-optimize",
      "The default Top optimization pipeline (folding, fusion, CSE, DCE)",
      [](OpPassManager &pm, const TopOptimizeOptions &options) {
        buildTopOptimizePipeline(pm, options.layout);
      });
}

} // namespace strata::top
