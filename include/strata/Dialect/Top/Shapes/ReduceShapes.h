//===- ReduceShapes.h - shape functions of the Reduce ops ----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/ReduceOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_REDUCESHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_REDUCESHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_REDUCESHAPES_H
