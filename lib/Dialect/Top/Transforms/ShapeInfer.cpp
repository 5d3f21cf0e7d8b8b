//===- ShapeInfer.cpp - fill in unknown result shapes ---------------------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace strata::top {
#define GEN_PASS_DEF_TOPSHAPEINFER
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata::top;

namespace {
/// True if `type` is a tensor whose shape is not fully known.
bool needsShape(Type type) {
  auto t = dyn_cast<TensorType>(type);
  return t && !t.hasStaticShape();
}

struct TopShapeInferPass
    : public strata::top::impl::TopShapeInferBase<TopShapeInferPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Ops are visited in order, so operands are inferred before their users.
    WalkResult walk = func.walk([&](ShapeInferenceOpInterface op) {
      Operation *raw = op.getOperation();
      if (llvm::none_of(raw->getResultTypes(), needsShape))
        return WalkResult::advance();
      for (Value operand : raw->getOperands())
        if (!isNone(operand) && !hasStaticShape(operand))
          return WalkResult::advance();
      if (failed(inferAndSetResultTypes(raw)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    // Keep the signature in step with what the function returns.
    if (func.getBody().empty())
      return;
    Operation *term = func.getBody().back().getTerminator();
    if (!term)
      return;
    auto type = FunctionType::get(&getContext(), func.getArgumentTypes(),
                                  term->getOperandTypes());
    func.setType(type);
  }
};
} // namespace
