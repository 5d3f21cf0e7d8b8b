//===- LinalgShapes.h - shape functions of the Linalg ops -------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/LinalgOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_LINALGSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_LINALGSHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

/// Det: `input` is [*, M, M]; the result is [*] (one determinant per
/// matrix).
ShapeOr<Shape> inferDet(Ints input);

/// LRN: the input's shape, which must have rank >= 3 (N x C x D1..).
ShapeOr<Shape> inferLRN(Ints input);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_LINALGSHAPES_H
