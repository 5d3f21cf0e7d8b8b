//===- EmitDispatchABI.cpp - the runtime's native-dispatch entry points ---===//
//
// After lowering, a dispatch function takes one bare pointer per bound
// buffer (its operands, then its results as out-parameters). The runtime
// calls every native dispatch as
//   int fn(void *const *bindings, const int64_t *params,
//          int64_t workgroup_id, int64_t workgroup_count)
// (docs/runtime.md); this pass writes that wrapper for each.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUEMITDISPATCHABI
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

struct EmitDispatchABIPass : impl::CpuEmitDispatchABIBase<EmitDispatchABIPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto i32 = IntegerType::get(ctx, 32);
    SmallVector<LLVM::LLVMFuncOp> dispatches;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn.getName().starts_with("dispatch_") && !fn.isExternal())
        dispatches.push_back(fn);
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    for (LLVM::LLVMFuncOp fn : dispatches) {
      LLVM::LLVMFunctionType type = fn.getFunctionType();
      // A dispatch split into workgroups takes the workgroup id and count
      // (i64) before its buffers.
      unsigned leading = fn->hasAttr(kWorkgroupCountAttr) ? 2 : 0;
      ArrayRef<Type> params = type.getParams();
      if (!isa<LLVM::LLVMVoidType>(type.getReturnType()) ||
          params.size() < leading ||
          llvm::any_of(params.take_front(leading),
                       [&](Type t) { return t != i64; }) ||
          llvm::any_of(params.drop_front(leading),
                       [&](Type t) { return t != ptr; })) {
        fn.emitError() << "dispatch function '" << fn.getName()
                       << "' must take only pointers (after the workgroup id "
                          "and count when split) and return nothing after "
                          "lowering, not "
                       << type;
        return signalPassFailure();
      }
      fn.setLinkage(LLVM::Linkage::Internal);
      Location loc = fn.getLoc();
      auto wrapper = LLVM::LLVMFuncOp::create(
          b, loc, ("strata_" + fn.getName()).str(),
          LLVM::LLVMFunctionType::get(i32, {ptr, ptr, i64, i64}));
      Block *entry = wrapper.addEntryBlock(b);
      OpBuilder wb = OpBuilder::atBlockBegin(entry);
      Value bindings = entry->getArgument(0);
      SmallVector<Value> args;
      if (leading)
        args.append({entry->getArgument(2), entry->getArgument(3)});
      for (unsigned i = 0; i + leading < type.getNumParams(); ++i) {
        Value slot = LLVM::GEPOp::create(wb, loc, ptr, ptr, bindings,
                                         ArrayRef<LLVM::GEPArg>{int32_t(i)});
        args.push_back(LLVM::LoadOp::create(wb, loc, ptr, slot));
      }
      LLVM::CallOp::create(wb, loc, fn, args);
      Value zero =
          LLVM::ConstantOp::create(wb, loc, i32, wb.getI32IntegerAttr(0));
      LLVM::ReturnOp::create(wb, loc, zero);
    }
  }
};

} // namespace
} // namespace strata::cpu
