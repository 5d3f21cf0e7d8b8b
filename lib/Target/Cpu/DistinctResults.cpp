//===- DistinctResults.cpp - a dispatch returns distinct new tensors ------===//
//
// buffer-results-to-out-params gives each result of a dispatch function its
// own out-parameter; a function that returns one value twice, or returns one
// of its arguments, breaks that assumption (upstream crashes on the first).
// After convert-top-to-linalg, each such returned value is replaced by a
// fresh copy (tensor.empty + linalg.copy), so every result is a new tensor.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/DenseSet.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUDISTINCTRESULTS
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

struct DistinctResultsPass : impl::CpuDistinctResultsBase<DistinctResultsPass> {
  void runOnOperation() override {
    // The operands' buffers are the caller's (inputs, read-only mapped
    // constants, other dispatches' results): bufferization must copy before
    // writing into one, even when a fold made a loop's init an operand.
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (isa<TensorType>(fn.getArgument(i).getType()))
          fn.setArgAttr(i, "bufferization.writable",
                        BoolAttr::get(fn.getContext(), false));
    }
    getOperation().walk([](func::ReturnOp ret) {
      llvm::DenseSet<Value> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        bool fresh = seen.insert(v).second && !isa<BlockArgument>(v);
        if (fresh || !type)
          continue;
        Location loc = ret.getLoc();
        Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                             type.getElementType());
        operand.set(linalg::CopyOp::create(b, loc, v, init).getResult(0));
      }
    });
  }
};

} // namespace
} // namespace strata::cpu
