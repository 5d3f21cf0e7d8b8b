//===- PoolShapes.h - shape functions of the Pool ops ----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/PoolOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions. The window geometry is
// Conv's (ConvShapes.h).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_POOLSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_POOLSHAPES_H

#include "strata/Dialect/Top/Shapes/ConvShapes.h"

namespace strata::top::shapes {

/// MaxPool, AvgPool: `[N, C, out spatial..]` for input `[N, C, D..]`
/// (channels last when `channelsLast`): window `w` counted as
/// WindowCount::Pool, or WindowCount::PoolCeil with `ceilMode`.
ShapeOr<Shape> inferPool(Ints input, const WindowAttrs &w, bool ceilMode,
                         bool channelsLast);

/// GlobalAvgPool: `[N, C, 1, ..]` for input `[N, C, D..]` of rank >= 3.
ShapeOr<Shape> inferGlobalAvgPool(Ints input, bool channelsLast);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_POOLSHAPES_H
