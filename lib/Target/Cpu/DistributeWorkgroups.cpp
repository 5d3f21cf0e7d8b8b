//===- DistributeWorkgroups.cpp - split a dispatch's root op over workgroups //
//
// The runtime runs a native dispatch as W workgroups, spread over its thread
// pool (docs/runtime.md). This pass decides W for each dispatch function on
// tensors and tiles the function's root linalg op into an scf.forall of W
// iterations along one parallel loop, fusing its producers into the tile;
// strata-cpu-map-workgroups later turns the forall into the workgroup's
// share of the iterations.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUDISTRIBUTEWORKGROUPS
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

/// The loop to split and its tile: `dim` of the root's loop nest, tiles of
/// `tile` iterations, `count` of them.
struct Split {
  unsigned dim = 0;
  int64_t tile = 0;
  int64_t count = 1;
};

/// The root of a dispatch: the linalg op computing its only result, when the
/// function is straight-line tensor code.
static linalg::LinalgOp findRoot(func::FuncOp fn) {
  if (fn.getNumResults() != 1 || fn.getBody().getBlocks().size() != 1)
    return nullptr;
  bool straightLine = true;
  fn.getBody().walk([&](Operation *op) {
    Dialect *d = op->getDialect();
    if (isa_and_nonnull<scf::SCFDialect>(d) || !isMemoryEffectFree(op) &&
                                                   !isa<linalg::LinalgOp>(op) &&
                                                   !isa<func::ReturnOp>(op))
      straightLine = false;
  });
  if (!straightLine)
    return nullptr;
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  auto root = ret.getOperand(0).getDefiningOp<linalg::LinalgOp>();
  if (!root || !root.hasPureTensorSemantics() || root->getNumResults() != 1 ||
      !isa<TilingInterface>(root.getOperation()))
    return nullptr;
  return root;
}

/// The split of `root`: among the parallel loops its result is indexed by,
/// the one whose extent has the largest divisor in [2, wanted] (the
/// outermost on ties). Nothing when the work is too small.
static std::optional<Split> chooseSplit(func::FuncOp fn, linalg::LinalgOp root,
                                        int64_t maxWorkgroups,
                                        int64_t minWorkPerGroup) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  // The work: the iterations of every linalg op in the function (the
  // producers are fused into the tiles).
  int64_t work = 0;
  bool dynamic = false;
  fn.walk([&](linalg::LinalgOp op) {
    int64_t iterations = 1;
    for (int64_t r : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(r))
        dynamic = true;
      else if (__builtin_mul_overflow(iterations, r, &iterations))
        iterations = std::numeric_limits<int64_t>::max() / 2;
    }
    work = std::min(work + iterations, std::numeric_limits<int64_t>::max() / 2);
  });
  if (dynamic)
    return std::nullopt;
  int64_t wanted =
      std::min(maxWorkgroups, work / std::max<int64_t>(minWorkPerGroup, 1));
  if (wanted < 2)
    return std::nullopt;
  AffineMap out = root.getIndexingMapMatchingResult(root->getResult(0));
  SmallVector<utils::IteratorType> iters = root.getIteratorTypesArray();
  std::optional<Split> best;
  for (unsigned d = 0; d < ranges.size(); ++d) {
    if (iters[d] != utils::IteratorType::parallel || !out.isFunctionOfDim(d) ||
        ranges[d] < 2)
      continue;
    // The result must be indexed by the loop itself, so that tiles write
    // disjoint slices.
    if (!llvm::any_of(out.getResults(), [&](AffineExpr e) {
          auto de = dyn_cast<AffineDimExpr>(e);
          return de && de.getPosition() == d;
        }))
      continue;
    int64_t count = 1;
    for (int64_t c = std::min(wanted, ranges[d]); c >= 2; --c)
      if (ranges[d] % c == 0) {
        count = c;
        break;
      }
    if (count >= 2 && (!best || count > best->count))
      best = Split{d, ranges[d] / count, count};
  }
  return best;
}

/// Whether `op`, left outside the forall, is cheap and writes nothing a
/// workgroup shares.
static bool allowedOutside(Operation *op) {
  return isa<arith::ConstantOp, tensor::EmptyOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp, scf::ForallOp, func::ReturnOp>(op);
}

/// Tiles the root of `fn` (a clone) by `split`; false when the result is
/// not safe to run as workgroups.
static bool distribute(func::FuncOp fn, const Split &split) {
  linalg::LinalgOp root = findRoot(fn);
  if (!root)
    return false;
  IRRewriter rewriter(fn.getContext());
  rewriter.setInsertionPoint(root);
  SmallVector<OpFoldResult> sizes(root.getNumLoops(), rewriter.getIndexAttr(0));
  sizes[split.dim] = rewriter.getIndexAttr(split.tile);
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(sizes).setLoopType(
      scf::SCFTilingOptions::LoopType::ForallOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(result) || result->loops.size() != 1)
    return false;
  for (OpResult r : root->getResults()) {
    Value repl = result->replacements.lookup(r);
    if (!repl)
      return false;
    rewriter.replaceAllUsesWith(r, repl);
  }
  // The producers now fused are dead unless something else reads them.
  (void)runRegionDCE(rewriter, fn.getBody());
  auto forall = dyn_cast<scf::ForallOp>(result->loops.front().getOperation());
  if (!forall || forall.getOutputs().size() != 1 ||
      !forall.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return false;
  for (Operation &op : fn.getBody().front())
    if (!allowedOutside(&op))
      return false;
  return true;
}

struct DistributeWorkgroupsPass
    : impl::CpuDistributeWorkgroupsBase<DistributeWorkgroupsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> fns;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(kDispatchAttr) && !fn.isExternal())
        fns.push_back(fn);
    MLIRContext *ctx = module.getContext();
    auto i64 = IntegerType::get(ctx, 64);
    for (func::FuncOp fn : fns) {
      linalg::LinalgOp root = findRoot(fn);
      if (!root)
        continue;
      std::optional<Split> split =
          chooseSplit(fn, root, maxWorkgroups, minWorkPerGroup);
      if (!split) {
        continue;
      }
      // Work on a copy: a split that turns out unsafe leaves `fn` as it
      // was.
      OpBuilder b(fn);
      auto copy = cast<func::FuncOp>(b.clone(*fn));
      if (!distribute(copy, *split)) {
        copy.erase();
        continue;
      }
      StringAttr name = fn.getSymNameAttr();
      fn.erase();
      copy.setSymNameAttr(name);
      if (failed(copy.insertArgument(0, i64, {}, copy.getLoc())) ||
          failed(copy.insertArgument(1, i64, {}, copy.getLoc())))
        return signalPassFailure();
      copy->setAttr(kWorkgroupCountAttr, IntegerAttr::get(i64, split->count));
    }
  }
};

} // namespace
} // namespace strata::cpu
