//===- NpuHWDialect.cpp - the npuhw dialect, its attributes and verifier --===//

#include "strata/Dialect/NpuHW/IR/NpuHW.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace strata;
using namespace strata::npuhw;

#include "strata/Dialect/NpuHW/IR/NpuHWDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "strata/Dialect/NpuHW/IR/NpuHWAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "strata/Dialect/NpuHW/IR/NpuHWOps.cpp.inc"

void NpuHWDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "strata/Dialect/NpuHW/IR/NpuHWAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/NpuHW/IR/NpuHWOps.cpp.inc"
      >();
}

/// Every task is checked against the program's configuration and bindings
/// by the simulator's own verifier, so what verifies here runs there.
LogicalResult ProgramOp::verifyRegions() {
  llvm::Expected<npu::NpuConfig> config = configFromAttr(getConfig());
  if (!config)
    return emitOpError() << llvm::toString(config.takeError());
  if (std::optional<std::string> err = npu::validateNpuConfig(*config))
    return emitOpError() << *err;
  npusim::Program program;
  for (Attribute a : getBindings()) {
    auto b = cast<BindingAttr>(a);
    if (b.getSize() < 0)
      return emitOpError() << "binding '" << b.getName() << "' has size "
                           << b.getSize() << ", expected >= 0";
    program.bindings.push_back({b.getName().str(),
                                static_cast<uint64_t>(b.getSize()),
                                b.getWritable()});
  }
  int64_t index = 0;
  std::vector<Operation *> ops; // by task index
  for (Operation &seg : getBody().front()) {
    auto segment = dyn_cast<SegmentOp>(seg);
    if (!segment)
      return seg.emitOpError() << "is not a segment: a program holds "
                                  "npuhw.segment ops only";
    npusim::Segment &tasks = program.segments.emplace_back();
    for (Operation &op : segment.getBody().front()) {
      npusim::Task &task = tasks.tasks.emplace_back();
      if (std::optional<std::string> err = toNpuTask(&op, task))
        return op.emitOpError() << "task " << index << ": " << *err;
      if (std::optional<std::string> err =
              npusim::verifyTask(task, *config, program.bindings, index))
        return op.emitOpError() << *err;
      ops.push_back(&op);
      ++index;
    }
  }
  if (std::optional<npusim::Race> race = npusim::findRace(program))
    return ops[race->index]->emitOpError() << race->message;
  return success();
}
