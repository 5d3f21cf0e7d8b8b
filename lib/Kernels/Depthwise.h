//===- Depthwise.h - the per-ISA depthwise builds ---------------*- C++ -*-===//

#ifndef STRATA_LIB_KERNELS_DEPTHWISE_H
#define STRATA_LIB_KERNELS_DEPTHWISE_H

#include "strata/Kernels/Conv.h"

namespace strata::kernels::detail {
/// Depthwise planes [begin, end) (conv2dDepthwise); input channel planes
/// `xPlane` floats apart (H * W when they are contiguous).
#define STRATA_DECLARE_DEPTHWISE(name)                                         \
  int name(const Conv2dShape &s, const float *x, int64_t xPlane,              \
           const float *filter, const Epilogue &e, float *y, int64_t begin,    \
           int64_t end);
STRATA_DECLARE_DEPTHWISE(depthwisePortable)
STRATA_DECLARE_DEPTHWISE(depthwiseAvx2)
STRATA_DECLARE_DEPTHWISE(depthwiseAvx512)
#undef STRATA_DECLARE_DEPTHWISE
} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_DEPTHWISE_H
