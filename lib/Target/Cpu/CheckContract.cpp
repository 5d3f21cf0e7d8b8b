//===- CheckContract.cpp - only legal ops remain after a lowering stage ---===//

#include "strata/Target/Cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUCHECKCONTRACT
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

struct CheckContractPass : impl::CpuCheckContractBase<CheckContractPass> {
  using CpuCheckContractBase::CpuCheckContractBase;

  void runOnOperation() override {
    std::function<bool(Operation *)> legal;
    if (stage == "linalg") {
      legal = [](Operation *op) {
        Dialect *d = op->getDialect();
        return isa<ModuleOp>(op) ||
               isa_and_nonnull<
                   linalg::LinalgDialect, tensor::TensorDialect,
                   arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                   bufferization::BufferizationDialect, func::FuncDialect>(d);
      };
    } else if (stage == "llvm") {
      legal = [](Operation *op) {
        return isa<ModuleOp>(op) ||
               isa_and_nonnull<LLVM::LLVMDialect>(op->getDialect());
      };
    } else {
      getOperation().emitError() << "strata-cpu-check-contract: stage '"
                                 << stage << "' must be 'linalg' or 'llvm'";
      return signalPassFailure();
    }
    bool failed = false;
    getOperation().walk([&](Operation *op) {
      if (legal(op))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' is left after the lowering to " << stage
                      << " (the code generator cannot lower it yet)";
      failed = true;
      return WalkResult::skip();
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
} // namespace strata::cpu
