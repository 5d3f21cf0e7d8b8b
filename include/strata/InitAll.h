//===- InitAll.h - register Strata's dialects and passes --------*- C++ -*-===//

#ifndef STRATA_INITALL_H
#define STRATA_INITALL_H

#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/Transforms/Passes.h"
#include "strata/Dialect/Top/Transforms/Pipelines.h"
#include "strata/StrategyMLIR/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace strata {

/// Strata's dialects and the upstream ones its IR uses.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<top::TopDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect,
                  mlir::quant::QuantDialect>();
}

/// Strata's passes and MLIR's generic transforms (canonicalize, cse, ...).
inline void registerAllPasses() {
  top::registerTopPasses();
  top::registerTopOptimizePipeline();
  strategy::registerStrategyPasses();
  mlir::registerTransformsPasses();
}

} // namespace strata

#endif // STRATA_INITALL_H
