//===- FoldPad.cpp - an explicit Pad into the window op that reads it -----===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace strata::top {
#define GEN_PASS_DEF_TOPFOLDPAD
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata::top;

namespace {
/// The spatial pads (begins then ends, `r` each) of a constant Pad of
/// `padValue` whose only user is the window op and which leaves batch and
/// channel dims alone; nullopt when it cannot be folded.
std::optional<SmallVector<int64_t>> spatialPads(PadOp pad, double padValue) {
  if (!pad || !pad.getOutput().hasOneUse() || pad.getMode() != PadMode::Constant)
    return std::nullopt;
  double value = pad.getValue().convertToDouble();
  if (!(value == padValue))
    return std::nullopt;
  ArrayRef<int64_t> pads = pad.getPads();
  int64_t rank = static_cast<int64_t>(pads.size()) / 2;
  if (rank < 3)
    return std::nullopt;
  if (pads[0] != 0 || pads[1] != 0 || pads[rank] != 0 || pads[rank + 1] != 0)
    return std::nullopt;
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return std::nullopt;
  int64_t r = rank - 2;
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < r; ++i)
    out.push_back(pads[2 + i]);
  for (int64_t i = 0; i < r; ++i)
    out.push_back(pads[rank + 2 + i]);
  return out;
}

/// The value a convolution's own padding holds: its input zero point (the
/// padding contributes nothing after the zero point is subtracted), 0 without
/// one; nullopt when the zero point differs per channel, since a Pad writes
/// one value into every channel.
std::optional<double> uniformInputZeroPoint(ConvOp conv) {
  std::optional<ArrayRef<int64_t>> zp = conv.getInputZp();
  if (!zp || zp->empty())
    return 0.0;
  if (llvm::any_of(*zp, [&](int64_t z) { return z != zp->front(); }))
    return std::nullopt;
  return static_cast<double>(zp->front());
}

/// Adds `extra` to the window op's pads and makes it read the Pad's input.
template <typename OpTy>
void foldInto(PatternRewriter &rewriter, OpTy op, PadOp pad,
              ArrayRef<int64_t> extra) {
  SmallVector<int64_t> pads = op.getPadsOrDefault();
  for (auto [p, e] : llvm::zip(pads, extra))
    p += e;
  rewriter.modifyOpInPlace(op, [&] {
    op.setPadsAttr(rewriter.getDenseI64ArrayAttr(pads));
    op.getInputMutable().assign(pad.getInput());
  });
  rewriter.eraseOp(pad);
}

template <typename OpTy>
struct FoldPadInto : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto pad = op.getInput().template getDefiningOp<PadOp>();
    if (op.getLayout() != Layout::NCHW) // spatialPads assumes N, C, spatial..
      return rewriter.notifyMatchFailure(op, "layout is not NCHW");
    double padValue = 0.0;
    if constexpr (std::is_same_v<OpTy, MaxPoolOp>)
      padValue = -INFINITY;
    if constexpr (std::is_same_v<OpTy, ConvOp>) {
      std::optional<double> zp = uniformInputZeroPoint(op);
      if (!zp)
        return rewriter.notifyMatchFailure(op, "input_zp differs per channel");
      padValue = *zp;
    }
    if constexpr (std::is_same_v<OpTy, AvgPoolOp>)
      if (!op.getCountIncludePad())
        return rewriter.notifyMatchFailure(op, "padding is not counted");
    std::optional<SmallVector<int64_t>> extra = spatialPads(pad, padValue);
    if (!extra || extra->size() != op.getPadsOrDefault().size())
      return rewriter.notifyMatchFailure(op, "input is not a foldable pad");
    foldInto(rewriter, op, pad, *extra);
    return success();
  }
};

struct TopFoldPadPass
    : public strata::top::impl::TopFoldPadBase<TopFoldPadPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldPadInto<ConvOp>, FoldPadInto<MaxPoolOp>,
                 FoldPadInto<AvgPoolOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
