//===- MapWorkgroups.cpp - a split dispatch's forall onto its workgroup ---===//
//
// After bufferization, the scf.forall of strata-cpu-distribute-workgroups
// writes disjoint slices of the result buffer. Workgroup `wg` of `wgc` (the
// function's first two arguments) runs iterations wg, wg + wgc, ... of it.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUMAPWORKGROUPS
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

struct MapWorkgroupsPass : impl::CpuMapWorkgroupsBase<MapWorkgroupsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kWorkgroupCountAttr) || fn.isExternal())
        continue;
      if (fn.getNumArguments() < 2 ||
          !fn.getArgument(0).getType().isInteger(64) ||
          !fn.getArgument(1).getType().isInteger(64)) {
        fn.emitError() << "a function split into workgroups must take the "
                          "workgroup id and count (i64) first";
        return signalPassFailure();
      }
      SmallVector<scf::ForallOp> foralls(
          fn.getBody().front().getOps<scf::ForallOp>());
      for (scf::ForallOp forall : foralls) {
        if (forall.getRank() != 1 || forall.getNumResults() != 0) {
          forall.emitError() << "a workgroup forall must have one loop and "
                                "no results after bufferization";
          return signalPassFailure();
        }
        IRRewriter b(forall);
        Location loc = forall.getLoc();
        auto toIndex = [&](Value v) {
          return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
        };
        Value wg = toIndex(fn.getArgument(0));
        Value wgc = toIndex(fn.getArgument(1));
        Value lb = getValueOrCreateConstantIndexOp(
            b, loc, forall.getMixedLowerBound()[0]);
        Value ub = getValueOrCreateConstantIndexOp(
            b, loc, forall.getMixedUpperBound()[0]);
        Value step =
            getValueOrCreateConstantIndexOp(b, loc, forall.getMixedStep()[0]);
        Value first = arith::AddIOp::create(
            b, loc, lb, arith::MulIOp::create(b, loc, wg, step));
        Value stride = arith::MulIOp::create(b, loc, wgc, step);
        auto loop = scf::ForOp::create(b, loc, first, ub, stride);
        Block *body = loop.getBody();
        b.eraseOp(forall.getTerminator());
        b.eraseOp(body->getTerminator());
        b.inlineBlockBefore(forall.getBody(), body, body->end(),
                            {loop.getInductionVar()});
        b.setInsertionPointToEnd(body);
        scf::YieldOp::create(b, loc);
        b.eraseOp(forall);
      }
    }
  }
};

} // namespace
} // namespace strata::cpu
