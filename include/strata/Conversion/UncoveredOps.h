//===- UncoveredOps.h - report the ops no conversion pattern covers -*- C++
//-*-//
//
// A conversion pass checks before converting that each op it must convert
// has a pattern, and reports the others by name (one error per kind, at its
// first occurrence, with the count), so a model using such an op gets a
// clear error instead of the conversion framework's generic one.
// convert-top-to-linalg and convert-tosa-to-top share it.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_CONVERSION_UNCOVEREDOPS_H
#define STRATA_CONVERSION_UNCOVEREDOPS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace strata::conversion {

/// Walks `module` and reports every op that `needsPattern` selects and no
/// pattern of `patterns` has as its root: `describe(op)` streams the error's
/// text after the op's quoted name; " (N ops of this kind)" follows when
/// there are several. Returns failure if any op was reported.
inline mlir::LogicalResult reportUncoveredOps(
    mlir::ModuleOp module, mlir::RewritePatternSet &patterns,
    llvm::function_ref<bool(mlir::Operation *)> needsPattern,
    llvm::function_ref<void(mlir::InFlightDiagnostic &, mlir::Operation *)>
        describe) {
  llvm::DenseSet<mlir::OperationName> covered;
  for (const std::unique_ptr<mlir::RewritePattern> &p :
       patterns.getNativePatterns())
    if (std::optional<mlir::OperationName> root = p->getRootKind())
      covered.insert(*root);
  llvm::MapVector<mlir::OperationName, std::pair<mlir::Operation *, unsigned>>
      missing;
  module.walk([&](mlir::Operation *op) {
    if (!needsPattern(op) || covered.contains(op->getName()))
      return;
    auto &entry = missing[op->getName()];
    if (!entry.first)
      entry.first = op;
    ++entry.second;
  });
  for (auto &[name, entry] : missing) {
    mlir::InFlightDiagnostic d = entry.first->emitError()
                                 << "'" << name << "' ";
    describe(d, entry.first);
    if (entry.second > 1)
      d << " (" << entry.second << " ops of this kind)";
  }
  return mlir::success(missing.empty());
}

} // namespace strata::conversion

#endif // STRATA_CONVERSION_UNCOVEREDOPS_H
