//===- FinishImport.h - the last step every model importer shares -*- C++ -*-//
//
// After an importer (ONNX, TFLite) has built its Top function, the same
// steps finish the module: ops nobody uses go, the module gets the model
// name and weight-file attributes, it is verified, and the data of the
// weights still used is kept. Header-only: both importer libraries link the
// Top dialect.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_FRONTEND_FINISHIMPORT_H
#define STRATA_FRONTEND_FINISHIMPORT_H

#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace strata::frontend {

/// Erases the unused pure ops of `body` (in reverse order, so chains go in
/// one sweep; graph inputs and the terminator stay), names the model `name`
/// (attributes top.name and top.weight_file =
/// "<name>_TOP_F32_all_weight.npz") and verifies `module`. Returns the data
/// of the top.Weight ops left, from `weights`, or failure if the module does
/// not verify.
inline mlir::FailureOr<TensorMap> finishImportedModule(mlir::ModuleOp module,
                                                       mlir::Block &body,
                                                       const TensorMap &weights,
                                                       llvm::StringRef name) {
  for (mlir::Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (!op.hasTrait<mlir::OpTrait::IsTerminator>() &&
        !mlir::isa<top::InputOp>(op) && op.use_empty() && mlir::isPure(&op))
      op.erase();
  TensorMap used;
  module.walk([&](top::WeightOp w) {
    if (const Tensor *t = weights.find(w.getName().str()))
      used.set(w.getName().str(), *t);
  });
  mlir::Builder builder(module.getContext());
  module->setAttr(top::kModelNameAttr, builder.getStringAttr(name));
  module->setAttr(top::kWeightFileAttr,
                  builder.getStringAttr(name + "_TOP_F32_all_weight.npz"));
  if (mlir::failed(mlir::verify(module)))
    return mlir::failure();
  return used;
}

} // namespace strata::frontend

#endif // STRATA_FRONTEND_FINISHIMPORT_H
