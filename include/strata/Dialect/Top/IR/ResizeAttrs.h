//===- ResizeAttrs.h - top.Resize's attributes for its shape code -*- C++
//-*-===//
//
// The bridge from top.Resize to its MLIR-free shape and sampling functions
// (strata/Dialect/Top/Shapes/ResizeShapes.h), for the ops' own code and the
// code generator alike.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_IR_RESIZEATTRS_H
#define STRATA_DIALECT_TOP_IR_RESIZEATTRS_H

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/Shapes/ResizeShapes.h"

namespace strata::top {

/// `op`'s attributes as the shape and filter functions take them.
shapes::ResizeAttrs resizeAttrs(ResizeOp op);

} // namespace strata::top

#endif // STRATA_DIALECT_TOP_IR_RESIZEATTRS_H
