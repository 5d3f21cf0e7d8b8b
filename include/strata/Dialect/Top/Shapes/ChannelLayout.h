//===- ChannelLayout.h - NCHW / NHWC shapes for shape functions -*- C++ -*-===//
//
// Ops with a `layout` attribute (Conv, pools, norms, DepthToSpace, ...) check
// their shapes in channels-first order: their shape functions take
// `bool channelsLast` and turn shapes with these helpers (MLIR-free, like
// every shape function).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_CHANNELLAYOUT_H
#define STRATA_DIALECT_TOP_SHAPES_CHANNELLAYOUT_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

/// `[N, D1.., C]` as `[N, C, D1..]` when `channelsLast`, else unchanged (as
/// is a shape of rank < 2).
inline Shape toChannelsFirst(Ints shape, bool channelsLast) {
  Shape s = shape.vec();
  if (channelsLast && s.size() >= 2) {
    s.insert(s.begin() + 1, s.back());
    s.pop_back();
  }
  return s;
}

/// `[N, C, D1..]` as `[N, D1.., C]` when `channelsLast`, else unchanged.
inline Shape fromChannelsFirst(Ints shape, bool channelsLast) {
  Shape s = shape.vec();
  if (channelsLast && s.size() >= 2) {
    s.push_back(s[1]);
    s.erase(s.begin() + 1);
  }
  return s;
}

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_CHANNELLAYOUT_H
