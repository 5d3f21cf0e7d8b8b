//===- NpuTarget.cpp - the npu-sim back end's driver ----------------------===//
//
// Top -> HL -> HW, and the hook that makes each HL dispatch of the CPU back
// end's outlined model an npu-sim dispatch (include/strata/Target/Npu/
// NpuTarget.h).
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Npu/NpuTarget.h"
#include "strata/Pipelines/Optimize.h"
#include "strata/NpuSim/NpuProgram.h"
#include "strata/Target/Npu/NpuProgramIO.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallBitVector.h"
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
    pm.addPass(conversion::createHLSegmentStrided(segmentOptions, config));
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
  // The program binds the values its kernel reads, then its result: the
  // kernel's operands, or for a multi-op dispatch (a convolution and its
  // residual add) the values its ops read from outside, in order of first
  // use. The dispatch binds each value once, in its own order: program
  // binding i is argument argOf[i] (hl.add(x, x) reads one argument twice),
  // every argument read.
  llvm::SetVector<Operation *> group;
  for (Operation &op : fn.getBody().front())
    if (op.hasAttr("npu.dispatch_group"))
      group.insert(&op);
  group.insert(kernel);
  SmallVector<Value> programOperands;
  if (group.size() == 1) {
    llvm::append_range(programOperands, kernel->getOperands());
  } else {
    llvm::SetVector<Value> outside;
    for (Operation *member : group)
      for (Value v : member->getOperands())
        if (!group.contains(v.getDefiningOp()))
          outside.insert(v);
    llvm::append_range(programOperands, outside);
  }
  Operation *ret = fn.getBody().front().getTerminator();
  SmallVector<unsigned> argOf;
  bool bound = ret->getNumOperands() == 1 &&
               ret->getOperand(0) == kernel->getResult(0);
  llvm::SmallBitVector used(fn.getNumArguments());
  for (Value operand : programOperands) {
    auto arg = dyn_cast<BlockArgument>(operand);
    bound = bound && arg && arg.getOwner() == &fn.getBody().front();
    if (!bound)
      break;
    argOf.push_back(arg.getArgNumber());
    used.set(arg.getArgNumber());
  }
  if (!bound || !used.all()) {
    kernel->emitError("npu-sim: the dispatch of this kernel does not bind "
                      "exactly its operands and result");
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
  bool identity = argOf.size() == fn.getNumArguments();
  for (unsigned i = 0; identity && i < argOf.size(); ++i)
    identity = argOf[i] == i;
  if (!identity) {
    // Rebind: binding i of the program becomes the dispatch's argOf[i]
    // (one binding per argument), the result the last.
    npusim::Program p;
    if (std::optional<std::string> e =
            npusim::decodeProgram(bytes->data(), bytes->size(), p)) {
      kernel->emitError() << "npu-sim: " << *e;
      return failure();
    }
    unsigned args = fn.getNumArguments(), outs = argOf.size();
    if (p.bindings.size() != outs + 1) {
      kernel->emitError() << "npu-sim: program " << ref << " has "
                          << p.bindings.size() << " bindings, the kernel "
                          << outs + 1 << " operands and results";
      return failure();
    }
    std::vector<npusim::Binding> bindings(args + 1);
    for (unsigned i = 0; i < outs; ++i)
      bindings[argOf[i]] = p.bindings[i];
    bindings[args] = p.bindings[outs];
    p.bindings = std::move(bindings);
    for (npusim::Segment &segment : p.segments)
      for (npusim::Task &task : segment.tasks)
        if (task.kind == npusim::TaskKind::DmaLoad ||
            task.kind == npusim::TaskKind::DmaStore)
          task.dma.binding =
              task.dma.binding == outs ? args : argOf[task.dma.binding];
    *bytes = npusim::encodeProgram(p);
  }
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
