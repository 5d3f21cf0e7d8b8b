//===- NpuTarget.cpp - the npu-sim back end's driver ----------------------===//
//
// Top -> HL -> HW, and the hook that makes each HL dispatch of the CPU back
// end's outlined model an npu-sim dispatch (include/strata/Target/Npu/
// NpuTarget.h).
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Npu/NpuTarget.h"
#include "strata/Pipelines/Optimize.h"
#include "strata/Target/Npu/NpuProgramIO.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace strata;

FailureOr<TensorMap>
npu::lowerTopToNpu(ModuleOp module, const TensorMap &weights,
                   const NpuConfig &config,
                   const conversion::HLToHWOptions &options,
                   std::vector<conversion::HLDecision> *decisions, bool segment,
                   bool fuseSegmentation) {
  PassManager pm(module.getContext());
  pm.addPass(conversion::createConvertTopToHLPass(config, decisions));
  pm.addPass(conversion::createHLCancelTransposes());
  if (segment) {
    // The seed's NPU walks inputs at stride 1: strided kernels read the
    // phases of their input (docs/npu.md, "Strided kernels: segmentation").
    conversion::HLSegmentStridedOptions segmentOptions;
    segmentOptions.fuse = fuseSegmentation;
    pm.addPass(conversion::createHLSegmentStrided(segmentOptions));
  }
  pm.addPass(conversion::createConvertHLToHWPass(config, options));
  return runTopPasses(module, weights, pm);
}

FailureOr<std::optional<cpu::ForeignDispatch>>
npu::npuForeignDispatch(func::FuncOp fn) {
  Operation *kernel = nullptr;
  for (Operation &op : fn.getBody().front())
    if (op.hasAttr("npu.program"))
      kernel = &op;
  if (!kernel)
    return std::optional<cpu::ForeignDispatch>();
  // The program binds the kernel's operands (for a multi-op dispatch, the
  // operands its ops read from outside, in order of first use), then its
  // result: they must be the dispatch's arguments in that order and its one
  // result.
  llvm::SetVector<Operation *> group;
  for (Operation &op : fn.getBody().front())
    if (op.hasAttr("npu.dispatch_group"))
      group.insert(&op);
  group.insert(kernel);
  llvm::SetVector<Value> bound;
  for (Operation *member : group)
    for (Value v : member->getOperands())
      if (!group.contains(v.getDefiningOp()))
        bound.insert(v);
  Operation *ret = fn.getBody().front().getTerminator();
  bool inOrder = bound.size() == fn.getNumArguments() &&
                 ret->getNumOperands() == 1 &&
                 ret->getOperand(0) == kernel->getResult(0);
  for (unsigned i = 0; inOrder && i < bound.size(); ++i)
    inOrder = bound[i] == fn.getArgument(i);
  if (!inOrder) {
    kernel->emitError("npu-sim: the dispatch of this kernel does not bind "
                      "its operands and result in the program's order");
    return failure();
  }
  auto ref = kernel->getAttrOfType<FlatSymbolRefAttr>("npu.program");
  auto program =
      SymbolTable::lookupNearestSymbolFrom<npuhw::ProgramOp>(fn, ref);
  if (!program) {
    kernel->emitError() << "npu-sim: no npuhw.program named " << ref;
    return failure();
  }
  FailureOr<std::vector<uint8_t>> bytes = npuhw::serializeProgram(program);
  if (failed(bytes))
    return failure();
  cpu::ForeignDispatch d;
  d.name = program.getSymName().str();
  d.device = "npu-sim";
  d.format = "strata-npu-program";
  d.code.assign(bytes->begin(), bytes->end());
  d.symbol = d.name;
  std::string ops;
  for (Operation *member : group)
    ops += (ops.empty() ? "" : " + ") + member->getName().getStringRef().str();
  d.note = ops + ": npu-sim program '" + d.name + "'";
  return std::optional<cpu::ForeignDispatch>(std::move(d));
}
