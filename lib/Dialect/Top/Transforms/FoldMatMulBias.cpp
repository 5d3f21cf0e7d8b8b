//===- FoldMatMulBias.cpp - constant Add after MatMul into its bias -------===//
//
// matmul(x, W, b0) + b  ==  matmul(x, W, b0 + b)  when b is constant along
// every dim but the last and adding it does not broadcast the result.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>

namespace strata::top {
#define GEN_PASS_DEF_TOPFOLDMATMULBIAS
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace {
/// The MatMul producing `v` if `v` has no other user, the MatMul computes
/// in floating point and applies no epilogue.
MatMulOp foldableMatMul(Value v) {
  auto mm = v.getDefiningOp<MatMulOp>();
  if (!mm || !v.hasOneUse() || mm.getDoRelu() || mm.getActivation())
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(mm.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 1 ||
      !isa<FloatType>(type.getElementType()))
    return nullptr;
  return mm;
}

/// True if `bias` (a static shape) adds one value per last result dim (or
/// a single value) to `mm`'s result without broadcasting it: every dim but
/// the last is 1 and the rank does not exceed the result's.
bool isLastDimBias(MatMulOp mm, Value bias) {
  auto type = dyn_cast<RankedTensorType>(bias.getType());
  auto out = cast<RankedTensorType>(mm.getType());
  if (!type || !type.hasStaticShape() || type.getRank() > out.getRank() ||
      type.getElementType() != out.getElementType())
    return false;
  ArrayRef<int64_t> shape = type.getShape();
  for (size_t i = 0; i + 1 < shape.size(); ++i)
    if (shape[i] != 1)
      return false;
  if (type.getNumElements() == 1)
    return true;
  // A 1-d `right` makes the last result dim M (not N): only scalars then.
  auto right = dyn_cast<RankedTensorType>(mm.getRight().getType());
  return right && right.getRank() >= 2 &&
         shape.back() == out.getShape().back();
}

struct FoldAddIntoMatMulBias : OpRewritePattern<AddOp> {
  FoldAddIntoMatMulBias(MLIRContext *ctx, WeightNamer &namer)
      : OpRewritePattern<AddOp>(ctx), namer(namer) {}

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    if (add.getDoRelu())
      return rewriter.notifyMatchFailure(add, "applies relu");
    for (auto [mmSide, other] : {std::pair(add.getLhs(), add.getRhs()),
                                 std::pair(add.getRhs(), add.getLhs())}) {
      MatMulOp mm = foldableMatMul(mmSide);
      if (!mm || add.getType() != mm.getType() || !isLastDimBias(mm, other))
        continue;
      std::optional<Tensor> b = constantValue(other);
      if (!b)
        continue;
      Value bias = other;
      if (!isNone(mm.getBias())) {
        std::optional<Tensor> b0 = constantValue(mm.getBias());
        if (!b0)
          continue;
        bias = sumBiases(rewriter, mm, *b0, *b);
      } else if (Operation *def = other.getDefiningOp();
                 def->getBlock() == mm->getBlock() &&
                 mm->isBeforeInBlock(def)) {
        rewriter.moveOpBefore(def, mm); // a weight has no operands
      }
      rewriter.modifyOpInPlace(mm, [&] {
        mm.getBiasMutable().assign(bias);
        mm->setLoc(add.getLoc());
      });
      rewriter.replaceOp(add, mm.getResult());
      return success();
    }
    return rewriter.notifyMatchFailure(
        add, "no single-use MatMul plus a constant last-dim bias");
  }

  /// A new weight `b0 + b` of shape [N] (both broadcast to N values),
  /// created before `mm`.
  Value sumBiases(PatternRewriter &rewriter, MatMulOp mm, const Tensor &b0,
                  const Tensor &b) const {
    auto out = cast<RankedTensorType>(mm.getType());
    int64_t n = std::max(b0.numElements(), b.numElements());
    Tensor sum(*dtypeOf(out.getElementType()), {n});
    for (int64_t i = 0; i < n; ++i)
      sum.setFromDouble(i, b0.getAsDouble(b0.numElements() == 1 ? 0 : i) +
                               b.getAsDouble(b.numElements() == 1 ? 0 : i));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(mm);
    auto type = RankedTensorType::get({n}, out.getElementType());
    return createWeight(rewriter, mm.getLoc(), namer, "matmul_bias", sum,
                        type);
  }

  WeightNamer &namer;
};

struct TopFoldMatMulBiasPass
    : public strata::top::impl::TopFoldMatMulBiasBase<TopFoldMatMulBiasPass> {
  void runOnOperation() override {
    WeightNamer namer(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAddIntoMatMulBias>(&getContext(), namer);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
