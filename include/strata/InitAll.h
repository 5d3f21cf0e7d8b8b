//===- InitAll.h - register Strata's dialects and passes --------*- C++ -*-===//

#ifndef STRATA_INITALL_H
#define STRATA_INITALL_H

#include "strata/Dialect/Top/IR/TopDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

namespace strata {

/// The dialects a model file may use: Top and the builtin ones it needs.
inline void registerModelDialects(mlir::DialectRegistry &registry) {
  registry.insert<top::TopDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect,
                  mlir::quant::QuantDialect>();
}

/// The model dialects and every upstream dialect with its interface models
/// and LLVM IR translation (the CPU target lowers through linalg,
/// bufferization, memref, scf and LLVM). Library StrataInitAll.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Strata's passes and pipelines and every upstream pass. Library
/// StrataInitAll.
void registerAllPasses();

} // namespace strata

#endif // STRATA_INITALL_H
