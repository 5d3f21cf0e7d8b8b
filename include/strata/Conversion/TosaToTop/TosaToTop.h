//===- TosaToTop.h - TOSA to Top --------------------------------*- C++ -*-===//
//
// The patterns of convert-tosa-to-top, one populate function per family of
// ops (one source file each in lib/Conversion/TosaToTop), and the importer
// entry point `strata import model.mlir` uses.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_CONVERSION_TOSATOTOP_TOSATOTOP_H
#define STRATA_CONVERSION_TOSATOTOP_TOSATOTOP_H

#include "strata/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace strata::conversion {

/// Add, sub, mul, min/max, pow, comparisons, logical and bitwise ops, shifts,
/// the unary math ops, clamp, select, negate, cast (Elementwise.cpp).
void populateTosaToTopElementwisePatterns(mlir::RewritePatternSet &patterns);
/// conv2d, conv3d, depthwise_conv2d, transpose_conv2d, matmul, avg_pool2d,
/// max_pool2d (Linear.cpp).
void populateTosaToTopLinearPatterns(mlir::RewritePatternSet &patterns);
/// The reductions and argmax (Reduction.cpp).
void populateTosaToTopReductionPatterns(mlir::RewritePatternSet &patterns);
/// const, identity, reshape, slice, pad, concat, transpose, tile, reverse,
/// gather, scatter, resize (DataMovement.cpp).
void populateTosaToTopDataMovementPatterns(mlir::RewritePatternSet &patterns);
/// rescale and table (Quant.cpp).
void populateTosaToTopQuantPatterns(mlir::RewritePatternSet &patterns);
/// fft2d and rfft2d (Signal.cpp).
void populateTosaToTopSignalPatterns(mlir::RewritePatternSet &patterns);
/// cond_if and while_loop (ControlFlow.cpp).
void populateTosaToTopControlFlowPatterns(mlir::RewritePatternSet &patterns);
/// cast_from_block_scaled, cast_to_block_scaled, matmul_t_block_scaled and
/// f6 constants (BlockScaled.cpp).
void populateTosaToTopBlockScaledPatterns(mlir::RewritePatternSet &patterns);

/// Every family's patterns.
void populateTosaToTopPatterns(mlir::RewritePatternSet &patterns);

/// True if `module` holds a TOSA op (it is a TOSA model, not a Top model).
bool isTosaModule(mlir::ModuleOp module);

/// A TOSA model converted to Top: the module (top.Weight ops without
/// values) and the weights' data by name.
struct ImportedTosaModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  TensorMap weights;
};

/// Converts a parsed TOSA module in place (convert-tosa-to-top, then the
/// weights' data moved out into the result's map). Errors are diagnostics
/// on the module's context.
mlir::FailureOr<ImportedTosaModel>
importTosaModule(mlir::OwningOpRef<mlir::ModuleOp> module);

/// Reads a TOSA model (.mlir text or MLIR bytecode) with parseModuleFile's
/// checks, registering the TOSA dialect on `context`, and converts it
/// (importTosaModule). A module without TOSA ops is an error.
mlir::FailureOr<ImportedTosaModel> importTosaFile(const std::string &path,
                                                  mlir::MLIRContext &context);

} // namespace strata::conversion

#endif // STRATA_CONVERSION_TOSATOTOP_TOSATOTOP_H
