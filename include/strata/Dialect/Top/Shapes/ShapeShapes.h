//===- ShapeShapes.h - shape functions of the Shape ops ----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/ShapeOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_SHAPESHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_SHAPESHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_SHAPESHAPES_H
