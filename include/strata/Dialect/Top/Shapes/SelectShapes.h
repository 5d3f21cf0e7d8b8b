//===- SelectShapes.h - shape functions of the Select ops ----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/SelectOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_SELECTSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_SELECTSHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_SELECTSHAPES_H
