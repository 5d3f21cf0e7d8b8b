//===- InlineFunctions.cpp - inline every func.call -----------------------===//

#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

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

/// The functions with a body that `fn` calls, once per call, in order.
SmallVector<func::FuncOp> inlinableCallees(func::FuncOp fn,
                                           SymbolTable &symbols) {
  SmallVector<func::FuncOp> callees;
  fn.walk([&](func::CallOp call) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (callee && !callee.isExternal())
      callees.push_back(callee);
  });
  return callees;
}

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// The ops of each function's body once every call in it is inlined
/// (saturating), computed bottom-up over the call graph without recursion;
/// nullopt when the call graph has a cycle (the depth limit reports it).
std::optional<llvm::DenseMap<Operation *, uint64_t>>
inlinedSizes(ModuleOp module, SymbolTable &symbols) {
  llvm::DenseMap<Operation *, uint64_t> sizes;
  llvm::DenseSet<Operation *> onPath;
  for (auto root : module.getOps<func::FuncOp>()) {
    if (root.isExternal() || sizes.count(root))
      continue;
    // (function, its callees pushed already)
    SmallVector<std::pair<func::FuncOp, bool>> stack = {{root, false}};
    while (!stack.empty()) {
      auto [fn, expanded] = stack.back();
      if (sizes.count(fn)) {
        stack.pop_back();
        continue;
      }
      SmallVector<func::FuncOp> callees = inlinableCallees(fn, symbols);
      if (!expanded) {
        onPath.insert(fn);
        stack.back().second = true;
        for (func::FuncOp callee : callees) {
          if (onPath.contains(callee))
            return std::nullopt;
          if (!sizes.count(callee))
            stack.push_back({callee, false});
        }
        continue;
      }
      uint64_t size = 0;
      fn.getBody().walk([&](Operation *) { ++size; });
      size -= 1 + callees.size(); // the terminator; calls become bodies
      for (func::FuncOp callee : callees)
        size = saturatingAdd(size, sizes.lookup(callee));
      sizes[fn] = size;
      onPath.erase(fn);
      stack.pop_back();
    }
  }
  return sizes;
}

struct TopInlineFunctionsPass
    : public strata::top::impl::TopInlineFunctionsBase<TopInlineFunctionsPass> {
  using TopInlineFunctionsBase::TopInlineFunctionsBase;

  /// Fails with an error, before anything is copied, when inlining would
  /// create more than `max-ops` ops: each call is replaced by its callee's
  /// fully inlined body (a function calling another twice, 30 deep, would
  /// otherwise build 2^29 ops). The error is on the call that crosses the
  /// limit, in module order.
  LogicalResult checkGrowth(ModuleOp module, SymbolTable &symbols) {
    std::optional<llvm::DenseMap<Operation *, uint64_t>> sizes =
        inlinedSizes(module, symbols);
    if (!sizes)
      return success();
    uint64_t limit = static_cast<uint64_t>(std::max<int64_t>(maxOps, 0));
    uint64_t created = 0;
    for (auto fn : module.getOps<func::FuncOp>()) {
      WalkResult r = fn.walk([&](func::CallOp call) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal())
          return WalkResult::advance();
        created = saturatingAdd(created, sizes->lookup(callee));
        if (created <= limit)
          return WalkResult::advance();
        call.emitOpError()
            << "calls '" << call.getCallee()
            << "': inlining would create more than " << limit
            << " ops (the inline growth limit; raise it with "
               "top-inline-functions{max-ops=N})";
        return WalkResult::interrupt();
      });
      if (r.wasInterrupted())
        return failure();
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    if (failed(checkGrowth(module, symbols)))
      return signalPassFailure();
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
