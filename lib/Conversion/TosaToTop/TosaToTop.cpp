//===- TosaToTop.cpp - the convert-tosa-to-top pass and TOSA import -------===//
//
// Wraps each argument of every function in a top.Input, reports every TOSA
// op no pattern covers (and ops of other dialects) by name, then applies all
// families' patterns as one partial conversion. Shape constants
// (tosa.const_shape) are read by the patterns and erased; constants become
// top.Weight ops carrying their data, named after their location and made
// unique.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Conversion/TosaToTop/Passes.h"
#include "strata/Conversion/TosaToTop/TosaToTop.h"
#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

namespace strata::conversion {

#define GEN_PASS_DEF_CONVERTTOSATOTOP
#include "strata/Conversion/TosaToTop/Passes.h.inc"

using namespace mlir;

void populateTosaToTopPatterns(RewritePatternSet &patterns) {
  populateTosaToTopElementwisePatterns(patterns);
  populateTosaToTopLinearPatterns(patterns);
  populateTosaToTopReductionPatterns(patterns);
  populateTosaToTopDataMovementPatterns(patterns);
  populateTosaToTopQuantPatterns(patterns);
  populateTosaToTopSignalPatterns(patterns);
  populateTosaToTopControlFlowPatterns(patterns);
}

bool isTosaModule(ModuleOp module) {
  bool found = false;
  module.walk([&](Operation *op) {
    if (isa<tosa::TosaDialect>(op->getDialect())) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

namespace {

/// A weight's name from its location: the innermost name of a NameLoc
/// (TFLite's converter names tensors so), else "tosa_const".
std::string weightBase(Location loc) {
  if (auto n = dyn_cast<NameLoc>(loc))
    return n.getName().str();
  if (auto f = dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (auto n = dyn_cast<NameLoc>(l))
        return n.getName().str();
  return "tosa_const";
}

struct ConvertTosaToTopPass : impl::ConvertTosaToTopBase<ConvertTosaToTopPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populateTosaToTopPatterns(patterns);

    // Ops nothing converts: one error per kind (with the count).
    llvm::DenseSet<OperationName> covered;
    for (const std::unique_ptr<RewritePattern> &p :
         patterns.getNativePatterns())
      if (std::optional<OperationName> root = p->getRootKind())
        covered.insert(*root);
    llvm::MapVector<OperationName, std::pair<Operation *, unsigned>> missing;
    module.walk([&](Operation *op) {
      if (isa<ModuleOp, func::FuncOp, func::ReturnOp>(op) ||
          op->hasTrait<OpTrait::tosa::TosaShapeOperator>() ||
          isa<top::TopDialect>(op->getDialect()) ||
          covered.contains(op->getName()))
        return;
      auto &entry = missing[op->getName()];
      if (!entry.first)
        entry.first = op;
      ++entry.second;
    });
    for (auto &[name, entry] : missing) {
      InFlightDiagnostic d =
          entry.first->emitError()
          << "'" << name << "' "
          << (isa<tosa::TosaDialect>(entry.first->getDialect())
                  ? "is not supported by convert-tosa-to-top"
                  : "is not a TOSA op; a TOSA model may hold only TOSA and "
                    "func ops");
      if (entry.second > 1)
        d << " (" << entry.second << " ops of this kind)";
    }
    if (!missing.empty())
      return signalPassFailure();

    // Graph inputs.
    module.walk([&](func::FuncOp f) {
      if (f.isExternal())
        return;
      Block &entry = f.front();
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      for (BlockArgument arg : entry.getArguments()) {
        Value in =
            tosa_to_top::makeTop(b, arg.getLoc(), "Input", arg.getType(), arg);
        arg.replaceAllUsesExcept(in, in.getDefiningOp());
      }
    });

    ConversionTarget target(*ctx);
    target.addLegalDialect<top::TopDialect, func::FuncDialect>();
    // Shape ops are read as constants by the ops using them (evaluated
    // where they compute a shape), then erased.
    target.addDynamicallyLegalDialect<tosa::TosaDialect>([](Operation *op) {
      return op->hasTrait<OpTrait::tosa::TosaShapeOperator>();
    });
    // A pattern that refuses an op reports why (naming the field); the
    // framework's "failed to legalize" for the same op would only repeat it.
    llvm::DenseSet<Location> refused;
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (StringRef(d.str()).starts_with("failed to legalize operation") &&
          refused.contains(d.getLocation()))
        return success();
      refused.insert(d.getLocation());
      return failure();
    });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Shape ops are read by the patterns; unused weights and nones (zero
    // points, multipliers) go. Walked in reverse, so an op comes after its
    // users and goes once they have all gone.
    llvm::SmallPtrSet<Operation *, 16> dead;
    module.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      if ((op->hasTrait<OpTrait::tosa::TosaShapeOperator>() ||
           isa<top::WeightOp, top::NoneOp>(op)) &&
          llvm::all_of(op->getUsers(),
                       [&](Operation *user) { return dead.contains(user); }))
        dead.insert(op);
    });
    for (Operation *op : dead)
      op->dropAllUses();
    for (Operation *op : dead)
      op->erase();
    bool leftover = false;
    module.walk([&](Operation *op) {
      if (!op->hasTrait<OpTrait::tosa::TosaShapeOperator>())
        return;
      op->emitError() << "'" << op->getName()
                      << "' is used by an op that is not converted";
      leftover = true;
    });
    if (leftover)
      return signalPassFailure();

    llvm::StringSet<> used;
    module.walk([&](top::WeightOp w) {
      std::string base = weightBase(w.getLoc());
      std::string name = base;
      for (unsigned i = 1; used.contains(name); ++i)
        name = base + "_" + std::to_string(i);
      used.insert(name);
      w.setName(name);
    });
  }
};

} // namespace

FailureOr<ImportedTosaModel> importTosaModule(OwningOpRef<ModuleOp> module) {
  PassManager pm(module->getContext());
  pm.addPass(createConvertTosaToTop());
  if (failed(pm.run(*module)))
    return failure();
  ImportedTosaModel out;
  if (failed(top::detachWeightValues(*module, out.weights)))
    return failure();
  out.module = std::move(module);
  return out;
}

FailureOr<ImportedTosaModel> importTosaFile(const std::string &path,
                                            MLIRContext &context) {
  DialectRegistry registry;
  registry.insert<tosa::TosaDialect, func::FuncDialect>();
  context.appendDialectRegistry(registry);
  context.loadDialect<tosa::TosaDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseModuleFile(path, context);
  if (!module)
    return failure();
  if (!isTosaModule(*module)) {
    emitError(module->getLoc())
        << "'" << path
        << "' holds no TOSA op: strata import reads TOSA models (.mlir, "
           ".mlirbc) and ONNX models; a Top model needs no import";
    return failure();
  }
  return importTosaModule(std::move(module));
}

} // namespace strata::conversion
