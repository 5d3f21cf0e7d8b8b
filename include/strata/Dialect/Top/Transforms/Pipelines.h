//===- Pipelines.h - Top optimization pipeline ------------------*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_TRANSFORMS_PIPELINES_H
#define STRATA_DIALECT_TOP_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace strata::top {

/// The default Top optimization pipeline (`top-optimize`), run on a module
/// whose weights carry their data (see WeightValues.h): canonicalization,
/// constant folding, Pad / BatchNorm / scale / shift folding, activation
/// fusion, CSE and dead-code elimination. `layout` ("nchw" or "nhwc")
/// first converts layout-sensitive ops to that layout; empty keeps the
/// model's. Transposes are cancelled either way (top-sink-transposes).
void buildTopOptimizePipeline(mlir::OpPassManager &pm,
                              llvm::StringRef layout = "");

/// Registers `top-optimize` with the pass pipeline registry.
void registerTopOptimizePipeline();

} // namespace strata::top

#endif // STRATA_DIALECT_TOP_TRANSFORMS_PIPELINES_H
