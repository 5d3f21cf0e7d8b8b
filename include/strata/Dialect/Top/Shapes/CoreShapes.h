//===- CoreShapes.h - shape functions of the Core ops -----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/CoreOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions. Input keeps its
// operand's shape (inferUnary in ElementwiseShapes.h).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_CORESHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_CORESHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

/// Weight: the shape it is declared with (its type), which must have a
/// countable number of elements.
ShapeOr<Shape> inferWeight(Ints declared);

/// None: no tensor; an empty shape.
ShapeOr<Shape> inferNone();

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_CORESHAPES_H
