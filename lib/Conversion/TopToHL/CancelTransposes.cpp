//===- CancelTransposes.cpp - remove inverse hl.transpose pairs -----------===//
//
// hl-cancel-transposes (docs/npu.md): Top -> HL wraps an NCHW kernel whose
// neighbours are NHWC in a pair of transposes; adjacent pairs that undo
// each other vanish (TransposeOp::fold), and dead transposes with them.
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/TopToHL/Passes.h"

#include "mlir/IR/Builders.h"

namespace strata::conversion {
#define GEN_PASS_DEF_HLCANCELTRANSPOSES
#include "strata/Conversion/TopToHL/Passes.h.inc"
} // namespace strata::conversion

using namespace mlir;
using namespace strata::hl;

namespace {
struct HLCancelTransposesPass
    : public strata::conversion::impl::HLCancelTransposesBase<
          HLCancelTransposesPass> {
  void runOnOperation() override {
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<TransposeOp> transposes;
      getOperation().walk([&](TransposeOp t) { transposes.push_back(t); });
      for (TransposeOp t : transposes) {
        if (OpFoldResult r =
                t.fold(TransposeOp::FoldAdaptor(ArrayRef<Attribute>{}, t));
            r && isa<Value>(r)) {
          t.getOutput().replaceAllUsesWith(cast<Value>(r));
          changed = true;
        }
      }
      for (TransposeOp t : transposes)
        if (t->use_empty()) {
          t->erase();
          changed = true;
        }
      if (changed)
        continue;
    }
  }
};
} // namespace
