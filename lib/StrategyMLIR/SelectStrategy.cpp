//===- SelectStrategy.cpp - record each Top op's implementation -----------===//

#include "strata/Strategy/CpuStrategies.h"
#include "strata/Strategy/Select.h"
#include "strata/StrategyMLIR/Passes.h"
#include "strata/StrategyMLIR/TuningLogReader.h"
#include "strata/StrategyMLIR/WorkloadFromOp.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

namespace strata::strategy {

#define GEN_PASS_DEF_TOPSELECTSTRATEGY
#include "strata/StrategyMLIR/Passes.h.inc"

namespace {

/// Ops that define data or end a region rather than compute: never
/// dispatched, so no implementation is chosen for them.
bool isDispatched(mlir::Operation *op) {
  if (!op->getDialect() || op->getDialect()->getNamespace() != "top")
    return false;
  if (op->hasTrait<mlir::OpTrait::IsTerminator>())
    return false;
  llvm::StringRef name = op->getName().getStringRef();
  return name != "top.Weight" && name != "top.None" && name != "top.Input";
}

mlir::DictionaryAttr scheduleAttr(mlir::Builder &b, const ScheduleParams &s) {
  llvm::SmallVector<mlir::NamedAttribute> entries;
  for (const auto &[name, value] : s)
    entries.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
  return b.getDictionaryAttr(entries);
}

/// Writes the selection onto `op` (see Passes.td).
void recordSelection(mlir::Operation *op, const Selection &sel) {
  mlir::Builder b(op->getContext());
  if (sel.decided()) {
    const GuardAlternative &alt = sel.alternatives.front();
    op->setAttr("strata.impl", b.getStringAttr(alt.implementation));
    if (!alt.schedule.empty())
      op->setAttr("strata.schedule", scheduleAttr(b, alt.schedule));
    if (sel.record)
      op->setAttr("strata.tuning_line", b.getI64IntegerAttr(sel.record->line));
    return;
  }
  llvm::SmallVector<mlir::Attribute> chain;
  for (const GuardAlternative &alt : sel.alternatives) {
    llvm::SmallVector<mlir::NamedAttribute> entries = {
        b.getNamedAttr("impl", b.getStringAttr(alt.implementation))};
    if (!alt.schedule.empty())
      entries.push_back(
          b.getNamedAttr("schedule", scheduleAttr(b, alt.schedule)));
    if (!alt.when.empty()) {
      llvm::SmallVector<mlir::Attribute> clauses;
      for (const Clause &c : alt.when)
        clauses.push_back(b.getStringAttr(c.str()));
      entries.push_back(b.getNamedAttr("when", b.getArrayAttr(clauses)));
    }
    chain.push_back(b.getDictionaryAttr(entries));
  }
  op->setAttr("strata.impl", b.getArrayAttr(chain));
}

struct TopSelectStrategyPass
    : public impl::TopSelectStrategyBase<TopSelectStrategyPass> {
  using TopSelectStrategyBase::TopSelectStrategyBase;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    std::optional<TuningLog> log;
    if (!tuningLog.empty()) {
      ShapeOr<TuningLog> read = readTuningLog(tuningLog);
      if (!read) {
        module.emitError(read.error());
        return signalPassFailure();
      }
      log = std::move(*read);
    }
    SelectOptions options;
    options.target = target;
    options.machine = machine.empty() ? hostMachine() : std::string(machine);
    options.log = log ? &*log : nullptr;
    const StrategyRegistry &registry = builtinRegistry();

    mlir::WalkResult walk = module.walk([&](mlir::Operation *op) {
      if (!isDispatched(op))
        return mlir::WalkResult::advance();
      ShapeOr<Workload> w = workloadFromOp(op);
      if (!w) {
        op->emitOpError(w.error());
        return mlir::WalkResult::interrupt();
      }
      if (explain)
        llvm::outs() << strategy::explain(registry, *w, options) << "\n";
      ShapeOr<Selection> sel = select(registry, *w, options);
      if (!sel) {
        op->emitOpError(sel.error());
        return mlir::WalkResult::interrupt();
      }
      recordSelection(op, *sel);
      return mlir::WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace strata::strategy
