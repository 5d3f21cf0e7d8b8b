//===- CancelTransposes.cpp - remove the transposes HL ops do not need ----===//
//
// hl-cancel-transposes (docs/npu.md): Top -> HL wraps an NHWC convolution
// in a pair of transposes (its kernel is NCHW). Between two HL ops the pair
// cancels at once (TransposeOp::fold); across the CPU ops between them
// (residual adds, casts: layout-agnostic) the transposes are moved by
// Top's own transpose sinking (top-sink-transposes, on top.Permute) and
// cancel there. What is left is reported by `strata compile --report`.
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/TopToHL/Passes.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"

namespace strata::conversion {
#define GEN_PASS_DEF_HLCANCELTRANSPOSES
#include "strata/Conversion/TopToHL/Passes.h.inc"
} // namespace strata::conversion

using namespace mlir;
using namespace strata;
using namespace strata::hl;

namespace {

/// Removes inverse pairs and identities among hl.transpose ops; true if
/// anything changed.
bool foldTransposes(ModuleOp module) {
  bool any = false, changed = true;
  while (changed) {
    changed = false;
    SmallVector<TransposeOp> transposes;
    module.walk([&](TransposeOp t) { transposes.push_back(t); });
    for (TransposeOp t : transposes)
      if (OpFoldResult r =
              t.fold(TransposeOp::FoldAdaptor(ArrayRef<Attribute>{}, t));
          r && isa<Value>(r) && !t->use_empty()) {
        t.getOutput().replaceAllUsesWith(cast<Value>(r));
        changed = true;
      }
    for (TransposeOp t : transposes)
      if (t->use_empty()) {
        t->erase();
        changed = true;
      }
    any |= changed;
  }
  return any;
}

struct HLCancelTransposesPass
    : public conversion::impl::HLCancelTransposesBase<HLCancelTransposesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    foldTransposes(module);
    // Hand the remaining transposes to Top's sinking as top.Permute ...
    SmallVector<TransposeOp> transposes;
    module.walk([&](TransposeOp t) { transposes.push_back(t); });
    if (transposes.empty())
      return;
    for (TransposeOp t : transposes) {
      OpBuilder b(t);
      auto p = top::PermuteOp::create(b, t.getLoc(), t.getType(), t.getInput(),
                                      t.getPermAttr());
      t.getOutput().replaceAllUsesWith(p.getOutput());
      t->erase();
    }
    OpPassManager pm(func::FuncOp::getOperationName());
    pm.addPass(top::createTopSinkTransposes());
    for (func::FuncOp f : module.getOps<func::FuncOp>())
      if (failed(runPipeline(pm, f)))
        return signalPassFailure();
    // ... and take back, as NPU transposes, the ones in the NPU's formats.
    SmallVector<top::PermuteOp> permutes;
    module.walk([&](top::PermuteOp p) {
      if (formatOf(p.getOutput().getType()) != Format::Other)
        permutes.push_back(p);
    });
    for (top::PermuteOp p : permutes) {
      OpBuilder b(p);
      auto t = TransposeOp::create(b, p.getLoc(), p.getOutput().getType(),
                                   p.getInput(), p.getOrderAttr());
      p.getOutput().replaceAllUsesWith(t.getOutput());
      p->erase();
    }
    foldTransposes(module);
  }
};

} // namespace
