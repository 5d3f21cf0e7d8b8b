//===- TosaToTop.cpp - the convert-tosa-to-top pass and TOSA import -------===//
//
// Resolves TOSA variables for one run (reads become the value last written
// or the initial value), wraps each argument of every function in a
// top.Input, reports every TOSA
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
#include "strata/Conversion/UncoveredOps.h"
#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
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
  populateTosaToTopBlockScaledPatterns(patterns);
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

/// TOSA variables, for one run from their initial values (as TFLite's
/// resource variables): in each function, in program order, a
/// `variable_read` is the value last written by a `variable_write` of the
/// entry block, or the variable's `initial_value` (a `tosa.const`); the
/// writes and the `variable` declarations are then erased (the final values
/// are not outputs of the model). A write inside a `cond_if` / `while_loop`
/// body, or a read of a variable with no initial value and no earlier
/// write, is an error naming the op and the variable.
LogicalResult resolveVariables(ModuleOp module) {
  llvm::StringMap<tosa::VariableOp> vars;
  module.walk([&](tosa::VariableOp v) { vars[v.getSymName()] = v; });
  bool ok = true;
  auto fail = [&](Operation *op, StringRef var, const Twine &why) {
    op->emitError() << "'" << op->getName() << "' of variable @" << var << " "
                    << why;
    ok = false;
  };
  module.walk([&](func::FuncOp f) {
    if (f.isExternal())
      return;
    llvm::StringMap<Value> current;
    auto valueOf = [&](Operation *op, StringRef name,
                       Type type) -> std::optional<Value> {
      if (Value v = current.lookup(name))
        return v;
      auto it = vars.find(name);
      if (it == vars.end()) {
        fail(op, name, "is not declared by a tosa.variable");
        return std::nullopt;
      }
      auto init =
          dyn_cast_or_null<ElementsAttr>(it->second.getInitialValueAttr());
      if (!init || init.getType() != type) {
        fail(op, name,
             "is read before any write and has no initial_value of its type");
        return std::nullopt;
      }
      OpBuilder b = OpBuilder::atBlockBegin(&f.front());
      Value c = tosa::ConstOp::create(b, it->second.getLoc(), type, init);
      current[name] = c;
      return c;
    };
    for (Operation &top : llvm::make_early_inc_range(f.front())) {
      if (auto w = dyn_cast<tosa::VariableWriteOp>(top)) {
        current[w.getName()] = w.getInput1();
        w.erase();
        continue;
      }
      if (auto r = dyn_cast<tosa::VariableReadOp>(top)) {
        if (auto v = valueOf(r, r.getName(), r.getType())) {
          r.replaceAllUsesWith(*v);
          r.erase();
        }
        continue;
      }
      // Nested regions (cond_if, while_loop) read the value at the op.
      top.walk([&](Operation *op) {
        if (auto w = dyn_cast<tosa::VariableWriteOp>(op))
          fail(w, w.getName(),
               "is written inside a region: the value after it would depend "
               "on the branch or iteration taken, which a Top model does not "
               "keep");
        else if (auto r = dyn_cast<tosa::VariableReadOp>(op))
          if (auto v = valueOf(r, r.getName(), r.getType())) {
            r.replaceAllUsesWith(*v);
            r.erase();
          }
      });
    }
  });
  if (!ok)
    return failure();
  for (auto &entry : vars)
    entry.second.erase();
  return success();
}

/// Why the TOSA ops without a Top equivalent are refused (docs/tosa.md).
StringRef whyRefused(StringRef name) {
  if (name == "tosa.custom")
    return ": a custom op has no semantics Strata could know";
  return "";
}

struct ConvertTosaToTopPass : impl::ConvertTosaToTopBase<ConvertTosaToTopPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populateTosaToTopPatterns(patterns);
    if (failed(resolveVariables(module)) ||
        failed(tosa_to_top::checkCarriedSignatures(module)))
      return signalPassFailure();

    // Ops nothing converts: one error per kind (with the count).
    if (failed(reportUncoveredOps(
            module, patterns,
            [](Operation *op) {
              return !isa<ModuleOp, func::FuncOp, func::ReturnOp>(op) &&
                     !op->hasTrait<OpTrait::tosa::TosaShapeOperator>() &&
                     !isa<top::TopDialect>(op->getDialect());
            },
            [](InFlightDiagnostic &d, Operation *op) {
              d << (isa<tosa::TosaDialect>(op->getDialect())
                        ? "is not supported by convert-tosa-to-top"
                        : "is not a TOSA op; a TOSA model may hold only TOSA "
                          "and func ops")
                << whyRefused(op->getName().getStringRef());
            })))
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
