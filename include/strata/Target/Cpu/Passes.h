//===- Passes.h - the CPU target's passes -----------------------*- C++ -*-===//

#ifndef STRATA_TARGET_CPU_PASSES_H
#define STRATA_TARGET_CPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace strata::cpu {

#define GEN_PASS_DECL
#include "strata/Target/Cpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Target/Cpu/Passes.h.inc"

/// The attribute marking an outlined dispatch function.
constexpr const char *kDispatchAttr = "strata.dispatch";
/// On a dispatch function: fuse its elementwise linalg ops
/// (strata-cpu-fuse-elementwise).
constexpr const char *kFuseElementwiseAttr = "strata.fuse_elementwise";

/// On a dispatch function split by strata-cpu-distribute-workgroups: its
/// workgroup count (an i64). Survives the lowering to the LLVM dialect.
constexpr const char *kWorkgroupCountAttr = "strata.workgroup_count";

/// On a dispatch function: the argument numbers (i64 array) of the
/// operands its result may be written over (strata-cpu-mark-in-place).
constexpr const char *kInPlaceOperandsAttr = "strata.in_place_operands";

/// On a dispatch function whose results' shapes are decided at run time:
/// per result, a static upper bound of its shape (an array of
/// DenseI64ArrayAttr; strata-cpu-outline-dispatches).
constexpr const char *kResultBoundsAttr = "strata.result_bounds";

/// On a dispatch function (a Loop with a run-time trip count) some of whose
/// results have a shape decided at run time: per such result an i64 array
/// (result number, number of the result holding its dims as an i64
/// `[rank]` tensor, the dims decided at run time...).
constexpr const char *kRuntimeShapeResultsAttr = "strata.runtime_shape_results";

/// The pipeline from dispatch functions of Top ops to the LLVM dialect:
/// convert-top-to-linalg, bufferization (results as out-parameters), loops,
/// LLVM with bare-pointer memrefs, and the dispatch ABI wrappers.
void buildCpuDispatchLoweringPipeline(mlir::OpPassManager &pm);

/// Adds to `context` what the lowering needs beyond the model dialects:
/// every upstream dialect with its interface models (bufferization, ...)
/// and the LLVM IR translations.
void prepareContextForCpuLowering(mlir::MLIRContext *context);

/// Registers the passes and the pipeline `strata-cpu-lower-dispatches`.
void registerCpuTargetPasses();

} // namespace strata::cpu

#endif // STRATA_TARGET_CPU_PASSES_H
