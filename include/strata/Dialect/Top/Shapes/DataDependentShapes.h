//===- DataDependentShapes.h - shape functions of the DataDependent ops ----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/DataDependentOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_DATADEPENDENTSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_DATADEPENDENTSHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_DATADEPENDENTSHAPES_H
