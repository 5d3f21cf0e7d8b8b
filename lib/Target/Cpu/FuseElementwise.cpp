//===- FuseElementwise.cpp - one loop for an outlined int8 chain ----------===//
//
// The outliner makes an int8 Add (Requant, Requant, i32 Add, Requant) or
// GlobalAvgPool chain one dispatch and marks it; here its elementwise
// linalg.generic ops fuse into their consumers, so the Add is one loop from
// the int8 inputs to the int8 output instead of three int32 intermediates.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUFUSEELEMENTWISE
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

struct FuseElementwisePass : impl::CpuFuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kFuseElementwiseAttr))
        continue;
      RewritePatternSet patterns(&getContext());
      linalg::populateElementwiseOpsFusionPatterns(
          patterns, [](OpOperand *) { return true; });
      if (failed(applyPatternsGreedily(fn, std::move(patterns))))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace strata::cpu
