//===- ActivationShapes.h - shape functions of Activation ops ---*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/ActivationOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
// The other ops of that file keep their input's shape (inferUnary in
// ElementwiseShapes.h).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_ACTIVATIONSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_ACTIVATIONSHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

/// PRelu: the input's shape; `slope` must broadcast to it (each of its
/// trailing dims 1 or equal to the input's).
ShapeOr<Shape> inferPRelu(Ints input, Ints slope);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_ACTIVATIONSHAPES_H
