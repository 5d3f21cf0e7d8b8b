//===- InlineFunctions.cpp - inline every func.call -----------------------===//

#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace strata::top {
#define GEN_PASS_DEF_TOPINLINEFUNCTIONS
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;

namespace {
/// Calls nested deeper than this are taken for recursion.
constexpr unsigned kMaxInlineDepth = 64;

/// Replaces `call` by a copy of `callee`'s single block.
void inlineCall(func::CallOp call, func::FuncOp callee) {
  OpBuilder builder(call);
  IRMapping mapping;
  Block &body = callee.getBody().front();
  mapping.map(body.getArguments(), call.getOperands());
  for (Operation &op : body.without_terminator())
    builder.clone(op, mapping);
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [result, value] : llvm::zip(call.getResults(), ret.getOperands()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(value));
  call.erase();
}

struct TopInlineFunctionsPass
    : public strata::top::impl::TopInlineFunctionsBase<TopInlineFunctionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Each round inlines the calls present at its start; calls that came in
    // with an inlined body are inlined by the next round.
    for (unsigned depth = 0;; ++depth) {
      SmallVector<func::CallOp> calls;
      module.walk([&](func::CallOp call) { calls.push_back(call); });
      // Calls inside functions that are themselves about to be erased still
      // count; only calls with a body to inline matter.
      llvm::erase_if(calls, [&](func::CallOp call) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        return !callee || callee.isExternal();
      });
      if (calls.empty())
        break;
      if (depth == kMaxInlineDepth) {
        calls.front().emitOpError()
            << "is part of a call chain deeper than " << kMaxInlineDepth
            << " (recursion?); it cannot be inlined";
        return signalPassFailure();
      }
      for (func::CallOp call : calls) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee.getBody().hasOneBlock()) {
          call.emitOpError() << "calls '" << call.getCallee()
                             << "', whose body has more than one block";
          return signalPassFailure();
        }
        inlineCall(call, callee);
      }
    }
    // Private functions are now unused.
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (fn.isPrivate() && SymbolTable::symbolKnownUseEmpty(fn, module))
        fn.erase();
  }
};
} // namespace
