//===- TypeShapes.h - shape functions of the Type ops -----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/TypeOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
// BitCast keeps its input's shape (inferUnary in ElementwiseShapes.h), so
// this family needs no functions of its own.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_TYPESHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_TYPESHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_TYPESHAPES_H
