//===- ElementwiseShapes.h - shape functions of the Elementwise ops -*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/ElementwiseOps.cpp;
// see strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_ELEMENTWISESHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_ELEMENTWISESHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

/// Add, Sub, Mul, Div, Max, Min, Pow, Compare: the numpy broadcast of both
/// operands.
ShapeOr<Shape> inferBinary(Ints lhs, Ints rhs);

/// Where: the broadcast of the condition and both branches.
ShapeOr<Shape> inferWhere(Ints cond, Ints x, Ints y);

/// Cast, Relu, Abs, Neg and every other unary elementwise op: the input's
/// shape.
ShapeOr<Shape> inferUnary(Ints input);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_ELEMENTWISESHAPES_H
