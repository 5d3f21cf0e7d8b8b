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
  // QDQ models: integer Conv / MatMul before constant folding would turn
  // their int8 weights into float ones.
  pm.addNestedPass<func::FuncOp>(createTopFoldQdq());
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
  // registerPassPipeline rather than PassPipelineRegistration: an option
  // value the pipeline cannot take is refused when the pipeline is parsed,
  // naming the option, not later by the pass it reaches.
  registerPassPipeline(
      "top-optimize",
      "The default Top optimization pipeline (folding, fusion, CSE, DCE)",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TopOptimizeOptions options;
        if (failed(options.parseFromString(optionsStr)))
          return failure();
        std::string layout = options.layout;
        if (!layout.empty() && layout != "nchw" && layout != "nhwc")
          return errorHandler("top-optimize: option 'layout' = '" + layout +
                              "' must be 'nchw' or 'nhwc' (or absent: keep "
                              "the model's layout)");
        buildTopOptimizePipeline(pm, layout);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(TopOptimizeOptions());
      });
}

} // namespace strata::top
