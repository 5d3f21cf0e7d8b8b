//===- PoolShapes.cpp - shape functions of the Pool ops ------------------===//

#include "strata/Dialect/Top/Shapes/PoolShapes.h"
#include "strata/Dialect/Top/Shapes/ChannelLayout.h"

namespace strata::top::shapes {

ShapeOr<Shape> inferPool(Ints input, const WindowAttrs &w, bool ceilMode,
                         bool channelsLast) {
  Shape in = toChannelsFirst(input, channelsLast);
  if (ShapeCheck c = checkWindowInputRank(in))
    return *c;
  if (ShapeCheck c = checkWindowAttrs(w, in.size() - 2))
    return *c;
  ShapeOr<Shape> spatial =
      windowOutputDims(Ints(in).slice(2), w,
                       ceilMode ? WindowCount::PoolCeil : WindowCount::Pool);
  if (!spatial)
    return spatial;
  Shape out{in[0], in[1]};
  out.insert(out.end(), spatial->begin(), spatial->end());
  return fromChannelsFirst(out, channelsLast);
}

ShapeOr<Shape> inferGlobalAvgPool(Ints input, bool channelsLast) {
  Shape in = toChannelsFirst(input, channelsLast);
  if (in.size() < 3)
    return ShapeError() << "input must have rank >= 3 (N, C, spatial...), "
                           "got shape "
                        << in;
  Shape out(in.size(), 1);
  out[0] = in[0];
  out[1] = in[1];
  return fromChannelsFirst(out, channelsLast);
}

} // namespace strata::top::shapes
