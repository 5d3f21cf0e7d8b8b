//===- ShapeShapes.h - shape functions of the Shape ops ---------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/ShapeOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
// Many of these ops take their target shape, pads, repeats, ... either from
// an attribute or from a runtime operand (`shape_value`, ...). The helpers of
// the first section read such operands and check attribute lists; the Index,
// Select and DataDependent shape functions use them too.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_SHAPESHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_SHAPESHAPES_H

#include "strata/Support/ShapeFunction.h"
#include "strata/Support/Tensor.h"

#include <optional>
#include <string>

namespace strata::top::shapes {

//===----------------------------------------------------------------------===//
// Runtime operands and list attributes
//===----------------------------------------------------------------------===//

/// A runtime operand that the op has (`shape_value`, `k_value`, ...): its
/// shape, and during a run its elements. At compile time `tensor` is nullptr
/// and the dims the operand decides are kDynamicDim.
struct RuntimeValue {
  Shape shape;
  const Tensor *tensor = nullptr;

  /// The number of entries of a list operand (its type is 1-D of static
  /// length, which the op's adapter checks).
  int64_t length() const { return shape.empty() ? 0 : shape[0]; }
};

/// The element count of a static `shape`; the error reads "shape [..] has a negative
/// dim or overflows int64".
ShapeOr<int64_t> staticElementCount(Ints shape);

/// The one integer of runtime operand `name`; the error reads "operand
/// '<name>' must hold one integer, got shape [..]".
ShapeOr<int64_t> tensorScalarInt(const char *name, const Tensor &t);

//===----------------------------------------------------------------------===//
// Shape functions
//===----------------------------------------------------------------------===//

/// Reshape: `shape` (0 copies the input dim, one -1 is inferred), or the
/// values of the runtime `shapeValue` when the op has it (then `shape` must
/// be empty).
ShapeOr<Shape> inferReshape(Ints input, Ints shape,
                            const std::optional<RuntimeValue> &shapeValue);

/// Squeeze: the input without the dims listed by runtime `axesValue`, each
/// of which must have size 1.
ShapeOr<Shape> inferSqueeze(Ints input, const RuntimeValue &axesValue);

/// Unsqueeze: the input with a dim of size 1 inserted at every position of
/// the result listed by runtime `axesValue`.
ShapeOr<Shape> inferUnsqueeze(Ints input, const RuntimeValue &axesValue);

/// Checks that `order` is a permutation of 0 .. size-1 ("attribute 'order'
/// [..] is not a permutation of 0..<n>"); nullopt when it is.
std::optional<ShapeError> checkPermutation(Ints order);

/// Permute: the input dims in `order`.
ShapeOr<Shape> inferPermute(Ints input, Ints order);

/// Concat: the inputs (at least one) joined along `axis`; the other dims
/// must match.
ShapeOr<Shape> inferConcat(const Shapes &inputs, int64_t axis);

/// Checks Split's attributes: sizes from `split` or the runtime operand, not
/// both; with `split`, one size >= 0 per result. Nullopt when valid.
std::optional<ShapeError> checkSplitAttrs(Ints split, bool hasSplitValue,
                                          size_t numResults);

/// Split: `numResults` pieces of the input along `axis`, sized by `split` or
/// by the runtime `splitValue`; the sizes must sum to the dim.
ShapeOr<Shapes> inferSplit(Ints input, int64_t axis, Ints split,
                           size_t numResults,
                           const std::optional<RuntimeValue> &splitValue);

/// Checks Pad's `mode` ("constant", "reflect", "edge" or "wrap"); nullopt
/// when valid.
std::optional<ShapeError> checkPadMode(const std::string &mode);

/// Pad: every dim d grows by pads[d] in front and pads[d + rank] at the back
/// (negative pads crop); `pads` comes from the attribute or the runtime
/// `padsValue`.
ShapeOr<Shape> inferPad(Ints input, const std::string &mode, Ints pads,
                        const std::optional<RuntimeValue> &padsValue);

/// Tile: every dim times its entry of `repeats` (or of the runtime
/// `repeatsValue`).
ShapeOr<Shape> inferTile(Ints input, Ints repeats,
                         const std::optional<RuntimeValue> &repeatsValue);

/// Checks Expand's attributes: the shape from `shape` or the runtime
/// operand, not both; `shape` entries >= 0. Nullopt when valid.
std::optional<ShapeError> checkExpandAttrs(Ints shape, bool hasShapeValue);

/// Expand: the numpy broadcast of the input and `shape` (or the values of
/// the runtime `shapeValue`).
ShapeOr<Shape> inferExpand(Ints input, Ints shape,
                           const std::optional<RuntimeValue> &shapeValue);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_SHAPESHAPES_H
