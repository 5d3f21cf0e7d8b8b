//===- FuseActivation.cpp - activations into their producer's epilogue ----===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace strata::top {
#define GEN_PASS_DEF_TOPFUSEACTIVATION
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata::top;

namespace {
/// The producer of `v` if it is an op with an epilogue that `v` alone uses,
/// that applies no activation yet and computes in floating point. Pooling
/// ops take relu only (`reluOnly`), Conv, Deconv and MatMul any activation.
Operation *fusableProducer(Value v, Type activationType, bool reluOnly) {
  Operation *op = v.getDefiningOp();
  if (!op || !isa<ConvOp, DeconvOp, MatMulOp, MaxPoolOp, AvgPoolOp>(op))
    return nullptr;
  if (!reluOnly && !isa<ConvOp, DeconvOp, MatMulOp>(op))
    return nullptr;
  if (!v.hasOneUse() || v.getType() != activationType)
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return nullptr;
  auto doRelu = op->getAttrOfType<BoolAttr>("do_relu");
  if ((doRelu && doRelu.getValue()) || op->hasAttr("activation"))
    return nullptr;
  return op;
}

/// Moves the activation into `producer` by setting `attrs` on it: it takes
/// the activation's place and name (location), so the fused result keeps
/// the tensor name.
void fuse(PatternRewriter &rewriter, Operation *activation,
          Operation *producer, ArrayRef<NamedAttribute> attrs) {
  rewriter.modifyOpInPlace(producer, [&] {
    for (NamedAttribute attr : attrs)
      producer->setAttr(attr.getName(), attr.getValue());
    producer->setLoc(activation->getLoc());
  });
  rewriter.replaceOp(activation, producer->getResults());
}

/// relu (`limit` < 0) or relu with a cap into any producer.
LogicalResult fuseRelu(PatternRewriter &rewriter, Operation *activation,
                       double limit) {
  Operation *producer = fusableProducer(
      activation->getOperand(0), activation->getResult(0).getType(), true);
  if (!producer)
    return rewriter.notifyMatchFailure(activation, "no fusable producer");
  fuse(rewriter, activation, producer,
       {rewriter.getNamedAttr("do_relu", rewriter.getBoolAttr(true)),
        rewriter.getNamedAttr("relu_limit", rewriter.getF64FloatAttr(limit))});
  return success();
}

/// Epilogue activation `act` with `params` into a Conv, Deconv or MatMul.
LogicalResult fuseActivation(PatternRewriter &rewriter, Operation *activation,
                             EpilogueActivation act,
                             ArrayRef<double> params) {
  Operation *producer = fusableProducer(
      activation->getOperand(0), activation->getResult(0).getType(), false);
  if (!producer)
    return rewriter.notifyMatchFailure(activation, "no fusable producer");
  SmallVector<NamedAttribute> attrs = {
      rewriter.getNamedAttr(
          "activation", EpilogueActivationAttr::get(rewriter.getContext(), act))};
  if (!params.empty())
    attrs.push_back(rewriter.getNamedAttr(
        "activation_params", rewriter.getDenseF64ArrayAttr(params)));
  fuse(rewriter, activation, producer, attrs);
  return success();
}

/// A float Add, Sub or Mul that `v` alone uses and that applies no relu
/// yet (their `do_relu` is a relu without cap).
Operation *fusableBinary(Value v, Type reluType) {
  Operation *op = v.getDefiningOp();
  if (!op || !isa<AddOp, SubOp, MulOp>(op) || !v.hasOneUse() ||
      v.getType() != reluType)
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !isa<FloatType>(type.getElementType()) ||
      op->getAttrOfType<BoolAttr>("do_relu").getValue())
    return nullptr;
  return op;
}

struct FuseRelu : OpRewritePattern<ReluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReluOp relu,
                                PatternRewriter &rewriter) const override {
    if (Operation *binary = fusableBinary(relu.getInput(), relu.getType())) {
      fuse(rewriter, relu, binary,
           {rewriter.getNamedAttr("do_relu", rewriter.getBoolAttr(true))});
      return success();
    }
    return fuseRelu(rewriter, relu, -1.0);
  }
};

/// clip(0, m > 0) is a relu with a cap (any producer); other clips are the
/// "clip" epilogue.
struct FuseClip : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClipOp clip,
                                PatternRewriter &rewriter) const override {
    double lo = clip.getMin().convertToDouble();
    double hi = clip.getMax().convertToDouble();
    if (lo == 0.0 && hi > 0.0 &&
        succeeded(fuseRelu(rewriter, clip, std::isinf(hi) ? -1.0 : hi)))
      return success();
    return fuseActivation(rewriter, clip, EpilogueActivation::Clip, {lo, hi});
  }
};

/// An activation without attributes as the epilogue `act`.
template <typename OpTy>
struct FuseSimple : OpRewritePattern<OpTy> {
  FuseSimple(MLIRContext *ctx, EpilogueActivation act)
      : OpRewritePattern<OpTy>(ctx), act(act) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    return fuseActivation(rewriter, op, act, {});
  }
  EpilogueActivation act;
};

struct FuseGelu : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluOp gelu,
                                PatternRewriter &rewriter) const override {
    return fuseActivation(rewriter, gelu,
                          gelu.getApproximate() == GeluApproximation::Tanh
                              ? EpilogueActivation::GeluTanh
                              : EpilogueActivation::Gelu,
                          {});
  }
};

struct FuseHardSigmoid : OpRewritePattern<HardSigmoidOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HardSigmoidOp op,
                                PatternRewriter &rewriter) const override {
    return fuseActivation(rewriter, op, EpilogueActivation::HardSigmoid,
                          {op.getAlpha().convertToDouble(),
                           op.getBeta().convertToDouble()});
  }
};

struct FuseLeakyRelu : OpRewritePattern<LeakyReluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LeakyReluOp op,
                                PatternRewriter &rewriter) const override {
    return fuseActivation(rewriter, op, EpilogueActivation::LeakyRelu,
                          {op.getAlpha().convertToDouble()});
  }
};

struct TopFuseActivationPass
    : public strata::top::impl::TopFuseActivationBase<TopFuseActivationPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<FuseRelu, FuseClip, FuseGelu, FuseHardSigmoid, FuseLeakyRelu>(
        ctx);
    patterns.add<FuseSimple<SigmoidOp>>(ctx, EpilogueActivation::Sigmoid);
    patterns.add<FuseSimple<SiLUOp>>(ctx, EpilogueActivation::SiLU);
    patterns.add<FuseSimple<HardSwishOp>>(ctx, EpilogueActivation::HardSwish);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
