//===- FuseActivation.cpp - relu and clip(0, m) into their producer -------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace strata::top {
#define GEN_PASS_DEF_TOPFUSEACTIVATION
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata::top;

namespace {
/// The producer of `v` if it is an op with a relu epilogue that `v` alone
/// uses, that applies no relu yet and computes in floating point.
Operation *fusableProducer(Value v, Type activationType) {
  Operation *op = v.getDefiningOp();
  if (!op || !isa<ConvOp, DeconvOp, MatMulOp, MaxPoolOp, AvgPoolOp>(op))
    return nullptr;
  if (!v.hasOneUse() || v.getType() != activationType)
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return nullptr;
  auto doRelu = op->getAttrOfType<BoolAttr>("do_relu");
  if (doRelu && doRelu.getValue())
    return nullptr;
  return op;
}

/// Moves the activation into `producer`: it takes the activation's place
/// and name (location), so the fused result keeps the tensor name.
void fuse(PatternRewriter &rewriter, Operation *activation,
          Operation *producer, double limit) {
  rewriter.modifyOpInPlace(producer, [&] {
    producer->setAttr("do_relu", rewriter.getBoolAttr(true));
    producer->setAttr("relu_limit", rewriter.getF64FloatAttr(limit));
    producer->setLoc(activation->getLoc());
  });
  rewriter.replaceOp(activation, producer->getResults());
}

struct FuseRelu : OpRewritePattern<ReluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReluOp relu,
                                PatternRewriter &rewriter) const override {
    Operation *producer = fusableProducer(relu.getInput(), relu.getType());
    if (!producer)
      return rewriter.notifyMatchFailure(relu, "no fusable producer");
    fuse(rewriter, relu, producer, -1.0);
    return success();
  }
};

struct FuseClip : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClipOp clip,
                                PatternRewriter &rewriter) const override {
    double lo = clip.getMin().convertToDouble();
    double hi = clip.getMax().convertToDouble();
    if (lo != 0.0 || !(hi > 0.0))
      return rewriter.notifyMatchFailure(clip, "not a clip(0, m > 0)");
    Operation *producer = fusableProducer(clip.getInput(), clip.getType());
    if (!producer)
      return rewriter.notifyMatchFailure(clip, "no fusable producer");
    fuse(rewriter, clip, producer, std::isinf(hi) ? -1.0 : hi);
    return success();
  }
};

struct TopFuseActivationPass
    : public strata::top::impl::TopFuseActivationBase<TopFuseActivationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseRelu, FuseClip>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
