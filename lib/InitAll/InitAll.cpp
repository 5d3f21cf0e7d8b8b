//===- InitAll.cpp - register Strata's dialects and passes ----------------===//

#include "strata/InitAll.h"

#include "strata/Conversion/HLToHW/Passes.h"
#include "strata/Conversion/Passes.h"
#include "strata/Conversion/TopToHL/Passes.h"
#include "strata/Conversion/TosaToTop/Passes.h"
#include "strata/Dialect/HL/IR/HLOps.h"
#include "strata/Dialect/NpuHW/IR/NpuHW.h"
#include "strata/Dialect/Top/Transforms/Passes.h"
#include "strata/Dialect/Top/Transforms/Pipelines.h"
#include "strata/StrategyMLIR/Passes.h"
#include "strata/Target/Cpu/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace strata {

void registerAllDialects(mlir::DialectRegistry &registry) {
  registerModelDialects(registry);
  registry.insert<npuhw::NpuHWDialect>();
  registry.insert<hl::HLDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void registerAllPasses() {
  top::registerTopPasses();
  top::registerTopOptimizePipeline();
  strategy::registerStrategyPasses();
  conversion::registerConversionPasses();
  conversion::registerTosaToTopPasses();
  conversion::registerTopToHLPasses();
  conversion::registerHLToHWPasses();
  cpu::registerCpuTargetPasses();
  mlir::registerAllPasses();
}

} // namespace strata
