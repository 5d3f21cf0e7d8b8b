//===- MathShapes.h - shape functions of the Math ops -----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/MathOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
// Sin .. Atanh and BitwiseNot keep their input's shape (inferUnary), Fmod,
// BitwiseAnd/Or/Xor and BitShift broadcast their operands (inferBinary): both
// in ElementwiseShapes.h, so this family needs no functions of its own.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_MATHSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_MATHSHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_MATHSHAPES_H
