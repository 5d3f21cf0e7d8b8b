//===- Optimize.h - running top-optimize on a Top model ---------*- C++ -*-===//

#ifndef STRATA_PIPELINES_OPTIMIZE_H
#define STRATA_PIPELINES_OPTIMIZE_H

#include "strata/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

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

/// Adds the passes of `pipeline` (see runTopPipeline) to `pm`; on an unknown
/// pass or bad options prints why to `errorStream` and fails.
mlir::LogicalResult parseTopPipeline(llvm::StringRef pipeline,
                                     mlir::OpPassManager &pm,
                                     llvm::raw_ostream &errorStream);

/// Runs the textual pass pipeline `pipeline` (strata-opt's pass names and
/// options, comma-separated: "top-fold-batchnorm",
/// "top-fuse-idioms,canonicalize", "top-optimize{layout=nhwc}") on `module`
/// in place, with the weights' data attached as for optimizeTopModule, and
/// returns the weight set the result uses. Passes anchored on functions nest
/// implicitly. The passes must be registered (strata::registerAllPasses);
/// a pipeline that does not parse is reported on `module`.
mlir::FailureOr<TensorMap> runTopPipeline(mlir::ModuleOp module,
                                          const TensorMap &weights,
                                          llvm::StringRef pipeline);

/// Runs `pm` on `module` with the weights' data attached as for
/// optimizeTopModule; returns the weight set the result uses.
mlir::FailureOr<TensorMap> runTopPasses(mlir::ModuleOp module,
                                        const TensorMap &weights,
                                        mlir::PassManager &pm);

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
