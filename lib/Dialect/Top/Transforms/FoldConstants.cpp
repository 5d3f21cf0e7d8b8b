//===- FoldConstants.cpp - evaluate ops whose operands are constants ------===//
//
// Runs each op whose tensor operands are all weights with data through its
// reference semantics and replaces it by weights holding the results, so one
// implementation (the interpreter's) defines what folding computes.
//
//===----------------------------------------------------------------------===//

#include "strata/Interpreter/Executor.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

namespace strata::top {
#define GEN_PASS_DEF_TOPFOLDCONSTANTS
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace {
/// Folding must never inflate the weight file by much: results under this
/// size always fold, larger ones only up to twice their operands' size.
constexpr int64_t kAlwaysFoldBytes = 64 << 10;

/// A name for the weights replacing `op`: its tensor name if it has one.
std::string foldedName(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  return "folded_" + op->getName().stripDialect().lower();
}

struct TopFoldConstantsPass
    : public strata::top::impl::TopFoldConstantsBase<TopFoldConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    WeightNamer namer(module);
    SmallVector<Operation *> candidates;
    module.walk([&](InterpretableOpInterface op) {
      if (!isa<WeightOp, InputOp, NoneOp>(op) &&
          op->getNumRegions() == 0 && op->getNumOperands() > 0)
        candidates.push_back(op);
    });
    for (Operation *op : candidates)
      tryFold(op, namer);
  }

  void tryFold(Operation *op, WeightNamer &namer) {
    InterpreterEnv env;
    int64_t operandBytes = 0;
    for (Value operand : op->getOperands()) {
      if (isNone(operand))
        continue;
      std::optional<Tensor> t = constantValue(operand);
      if (!t)
        return;
      operandBytes += static_cast<int64_t>(t->byteSize());
      env.set(operand, *t);
    }
    int64_t resultBytes = 0;
    for (Value r : op->getResults()) {
      if (isa<NoneType>(r.getType()))
        continue;
      auto type = dyn_cast<RankedTensorType>(r.getType());
      std::optional<DType> dtype =
          type ? dtypeOf(type.getElementType()) : std::nullopt;
      if (!type || !type.hasStaticShape() || !dtype)
        return;
      std::vector<int64_t> shape(type.getShape().begin(),
                                 type.getShape().end());
      std::optional<int64_t> n = checkedNumElements(shape);
      if (!n)
        return;
      resultBytes += *n * static_cast<int64_t>(dtypeSize(*dtype));
    }
    if (resultBytes > maxBytes ||
        (resultBytes > kAlwaysFoldBytes && resultBytes > 2 * operandBytes))
      return;

    // An op that fails on these constants fails the same way at run time;
    // folding leaves it in place and says nothing here.
    bool failedToRun = false;
    {
      ScopedDiagnosticHandler quiet(op->getContext(), [&](Diagnostic &) {
        failedToRun = true;
        return success();
      });
      if (failed(interpretOp(op, env)))
        failedToRun = true;
    }
    if (failedToRun)
      return;

    for (Value r : op->getResults())
      if (!isa<NoneType>(r.getType()) &&
          (!env.has(r) || llvm::ArrayRef<int64_t>(env.get(r).shape()) !=
                              cast<RankedTensorType>(r.getType()).getShape()))
        return;

    OpBuilder builder(op);
    std::string base = foldedName(op);
    for (Value r : op->getResults()) {
      if (isa<NoneType>(r.getType()))
        continue;
      auto type = cast<RankedTensorType>(r.getType());
      const Tensor &t = env.get(r);
      WeightOp w = createWeight(builder, op->getLoc(), namer, base, t, type);
      r.replaceAllUsesWith(w.getOutput());
    }
    if (op->use_empty())
      op->erase();
  }
};
} // namespace
