//===- TopToLinalg.h - Top to linalg/tensor/arith/math ----------*- C++ -*-===//
//
// The patterns of convert-top-to-linalg, one populate function per family of
// ops (one source file each in lib/Conversion/TopToLinalg), and the type
// converter they share.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_CONVERSION_TOPTOLINALG_TOPTOLINALG_H
#define STRATA_CONVERSION_TOPTOLINALG_TOPTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata::conversion {

/// On a `top.Loop` whose scan outputs' trip count is decided at run time
/// (set by the CPU outliner): the rows B (i64) of its scan output buffers,
/// declared `[B, slice...]`. The lowering stops after B + 1 iterations at
/// most and writes no row past B (docs/codegen-control-flow.md).
constexpr const char *kScanBoundAttr = "strata.scan_bound";

/// Converts Top's tensor types to the ones the lowering computes in: integer
/// elements become signless (`ui8` -> `i8`, `si32` -> `i32`); floats, `i1`,
/// `index` and `none` stay. Quantized element types (`!quant.uniform`) become
/// their signless storage integer (the Top-side type keeps the parameters and
/// the signedness).
class TopTypeConverter : public mlir::TypeConverter {
public:
  TopTypeConverter();
};

/// Binary and unary arithmetic, activations, comparisons, Where, Cast,
/// bitwise ops (lib/Conversion/TopToLinalg/Elementwise.cpp).
void populateTopToLinalgElementwisePatterns(const TopTypeConverter &converter,
                                            mlir::RewritePatternSet &patterns);

/// MatMul, Conv, Deconv, pools (Linear.cpp).
void populateTopToLinalgLinearPatterns(const TopTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);

/// Reduce, ArgMax, Softmax, LogSoftmax, the norms, Cumulative
/// (Reduction.cpp).
void populateTopToLinalgReductionPatterns(const TopTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);

/// Reshape, Permute, Concat, Split, Slice, Pad, Gather*, Scatter*, Tile,
/// Expand, Squeeze, Unsqueeze, DepthToSpace, SpaceToDepth, Resize, ...
/// (DataMovement.cpp).
void populateTopToLinalgDataMovementPatterns(const TopTypeConverter &converter,
                                             mlir::RewritePatternSet &patterns);

/// Gather, GatherElements, GatherND, ScatterElements, ScatterND, Trilu,
/// OneHot, ReverseSequence: the ops that read indices from tensors
/// (DataMovementIndexed.cpp).
void populateTopToLinalgIndexedPatterns(const TopTypeConverter &converter,
                                        mlir::RewritePatternSet &patterns);

/// If, Loop, Scan and their top.Yield to scf (ControlFlow.cpp).
void populateTopToLinalgControlFlowPatterns(const TopTypeConverter &converter,
                                            mlir::RewritePatternSet &patterns);

/// LSTM, GRU, RNN to an scf.for over time (Recurrent.cpp).
void populateTopToLinalgRecurrentPatterns(const TopTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);

/// Quant, Dequant, Requant (Quant.cpp).
void populateTopToLinalgQuantPatterns(const TopTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);

/// Attention, LinearAttention (Attention.cpp, LinearAttention.cpp).
void populateTopToLinalgAttentionPatterns(const TopTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);

/// GridSample, AffineGrid, Col2Im, RoiAlign (Geometry.cpp).
void populateTopToLinalgGeometryPatterns(const TopTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);

/// Det, Window, MelWeightMatrix, DFT, STFT, BitCast (Signal.cpp).
void populateTopToLinalgSignalPatterns(const TopTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);

/// All of the above.
void populateTopToLinalgPatterns(const TopTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);

} // namespace strata::conversion

#endif // STRATA_CONVERSION_TOPTOLINALG_TOPTOLINALG_H
