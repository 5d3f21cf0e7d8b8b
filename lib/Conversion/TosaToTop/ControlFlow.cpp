//===- ControlFlow.cpp - TOSA cond_if and while_loop to Top ---------------===//
//
// cond_if -> top.If: TOSA's branches take the input list as block arguments,
// Top's take none, so each branch block is merged into a new block with its
// arguments replaced by the inputs.
//
// while_loop -> top.Loop (ONNX Loop, no trip count): the condition graph is
// evaluated once before the loop on the inputs (the initial `cond`), and at
// the end of each body on the body's results (the yielded `cond`).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Conversion/TosaToTop/TosaToTop.h"

#include "mlir/IR/IRMapping.h"

namespace strata::conversion {

using namespace mlir;
using namespace tosa_to_top;

namespace {

struct Yield : OpConversionPattern<tosa::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tosa::YieldOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    OperationState state(op.getLoc(), "top.Yield");
    state.addOperands(a.getOperands());
    rewriter.create(state);
    rewriter.eraseOp(op);
    return success();
  }
};

struct If : OpConversionPattern<tosa::IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tosa::IfOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Region *graphs[2] = {&op.getThenGraph(), &op.getElseGraph()};
    for (Region *g : graphs)
      if (g->empty() || g->front().getNumArguments() != a.getInputList().size())
        return unsupported(op, g == graphs[0] ? "then_graph" : "else_graph",
                           "must take one argument per input (" +
                               Twine(a.getInputList().size()) + ")");
    OperationState state(op.getLoc(), "top.If");
    state.addOperands(a.getCondition());
    state.addTypes(op.getResultTypes());
    state.addRegion();
    state.addRegion();
    Operation *newOp = rewriter.create(state);
    for (unsigned i = 0; i < 2; ++i) {
      Block *block = rewriter.createBlock(&newOp->getRegion(i));
      rewriter.mergeBlocks(&graphs[i]->front(), block, a.getInputList());
    }
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

/// Clones the cond graph of `op` at the rewriter's insertion point with its
/// arguments bound to `args`; returns the value it yields.
Value cloneCond(tosa::WhileOp op, ValueRange args,
                ConversionPatternRewriter &rewriter) {
  Block &cond = op.getCondGraph().front();
  IRMapping map;
  map.map(cond.getArguments(), args);
  for (Operation &inner : cond.without_terminator())
    rewriter.clone(inner, map);
  return map.lookupOrDefault(cond.getTerminator()->getOperand(0));
}

struct While : OpConversionPattern<tosa::WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tosa::WhileOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    size_t n = a.getInputList().size();
    Region &condGraph = op.getCondGraph(), &bodyGraph = op.getBodyGraph();
    if (condGraph.empty() || condGraph.front().getNumArguments() != n ||
        condGraph.front().getTerminator()->getNumOperands() != 1)
      return unsupported(op, "cond_graph",
                         "must take one argument per input (" + Twine(n) +
                             ") and yield one boolean");
    if (bodyGraph.empty() || bodyGraph.front().getNumArguments() != n ||
        bodyGraph.front().getTerminator()->getNumOperands() != n)
      return unsupported(op, "body_graph",
                         "must take and yield one value per input (" +
                             Twine(n) + ")");
    Value initialCond = cloneCond(op, a.getInputList(), rewriter);
    Value none = makeTop(rewriter, loc, "None", rewriter.getNoneType(), {});
    OperationState state(loc, "top.Loop");
    state.addOperands({none, initialCond});
    state.addOperands(a.getInputList());
    state.addTypes(op.getResultTypes());
    state.addRegion();
    Operation *loop = rewriter.create(state);
    SmallVector<Type> argTypes{RankedTensorType::get({}, rewriter.getI64Type()),
                               RankedTensorType::get({}, rewriter.getI1Type())};
    SmallVector<Location> argLocs(2, loc);
    for (Value v : a.getInputList()) {
      argTypes.push_back(v.getType());
      argLocs.push_back(loc);
    }
    Block *block =
        rewriter.createBlock(&loop->getRegion(0), {}, argTypes, argLocs);
    Block &body = op.getBodyGraph().front();
    auto yield = cast<tosa::YieldOp>(body.getTerminator());
    rewriter.mergeBlocks(&body, block, block->getArguments().drop_front(2));
    rewriter.setInsertionPoint(yield);
    SmallVector<Value> next(yield.getOperands());
    Value cond = cloneCond(op, next, rewriter);
    OperationState y(loc, "top.Yield");
    y.addOperands(cond);
    y.addOperands(next);
    rewriter.create(y);
    rewriter.eraseOp(yield);
    rewriter.replaceOp(op, loop->getResults());
    return success();
  }
};

} // namespace

void populateTosaToTopControlFlowPatterns(RewritePatternSet &patterns) {
  patterns.add<Yield, If, While>(patterns.getContext());
}

} // namespace strata::conversion
