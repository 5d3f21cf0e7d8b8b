//===- Optimize.h - running top-optimize on a Top model ---------*- C++ -*-===//

#ifndef STRATA_PIPELINES_OPTIMIZE_H
#define STRATA_PIPELINES_OPTIMIZE_H

#include "strata/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"

namespace strata {

/// Runs the default Top optimization pipeline (`top-optimize`) on `module` in
/// place. `weights` are the module's weights (its weight file); the result is
/// the weight set of the optimized module: exactly the weights it still
/// uses, old and new. Errors are emitted on the module's context.
/// `layout` ("nchw" / "nhwc") converts layout-sensitive ops to that layout
/// first; empty keeps the model's.
mlir::FailureOr<TensorMap> optimizeTopModule(mlir::ModuleOp module,
                                             const TensorMap &weights,
                                             llvm::StringRef layout = "");

/// Writes an optimized Top model as the pair `DIR/<name>.mlir` and
/// `DIR/<name>_TOP_F32_weight.npz` (the `_origin` pair keeps the imported
/// form). Both appear whole or not at all.
mlir::LogicalResult writeOptimizedTopModel(mlir::ModuleOp module,
                                           const TensorMap &weights,
                                           const std::string &dir,
                                           const std::string &name,
                                           std::string &error);

} // namespace strata

#endif // STRATA_PIPELINES_OPTIMIZE_H
