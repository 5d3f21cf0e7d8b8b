//===- QuantShapes.h - shape functions of the Quant ops ---------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/QuantOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions. The ops keep their
// input's shape; what the shape decides is whether the per-axis quantization
// parameters and the per-channel requantization attributes fit it. The
// element types (quantized or not, storage, expressed type) are checked by
// the ops on their MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_QUANTSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_QUANTSHAPES_H

#include "strata/Support/ShapeFunction.h"

#include <string>

namespace strata::top::shapes {

/// A per-axis quantization (`!quant.uniform<i8:f32:axis, {...}>`): its
/// quantized dim and its number of scales.
struct QuantAxis {
  int64_t axis = 0;
  int64_t scales = 0;
};

/// Checks that a tensor of `shape` (side `what` of the op: "input" or
/// "result") has dim `q.axis` with `q.scales` entries; a dynamic dim passes.
std::optional<ShapeError> checkQuantAxis(const char *what, const QuantAxis &q,
                                         Ints shape);

/// Quant: the input's shape, which the result's per-axis quantization (if
/// any) must fit.
ShapeOr<Shape> inferQuant(Ints input, std::optional<QuantAxis> result);

/// Dequant: the input's shape, which its per-axis quantization (if any) must
/// fit.
ShapeOr<Shape> inferDequant(Ints input, std::optional<QuantAxis> inputAxis);

/// The attributes of Requant and the per-axis quantizations of its sides.
struct RequantAttrs {
  /// "MultiplierShift", "TFLite", "TFLiteHalfUp", "Float", "TosaSingleRound" or
  /// "TosaDoubleRound".
  std::string quantMode;
  /// One value, or one per channel (input dim `axis`, 1 when absent);
  /// absent for "Float".
  std::optional<Ints> multiplier, rshift;
  std::optional<int64_t> axis;
  std::optional<QuantAxis> input, result;
};

/// Checks Requant's quant_mode, axis, multiplier and rshift (their number
/// against input dim `axis` when `input`, the input's shape, is known; nullopt for an
/// unranked input).
std::optional<ShapeError> checkRequantAttrs(const RequantAttrs &attrs,
                                            std::optional<Ints> input);

/// Requant: the input's shape, after the checks of checkRequantAttrs and of
/// both sides' per-axis quantizations against it.
ShapeOr<Shape> inferRequant(Ints input, const RequantAttrs &attrs);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_QUANTSHAPES_H
