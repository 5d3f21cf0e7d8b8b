//===- DepthwisePortable.cpp - depthwise convolution, Portable build
//-------------===//

#include "Depthwise.h"

namespace strata::kernels::detail {
#define DEPTHWISE_FN depthwisePortable
#define DW_STRIP_FN dwStripPortable
#define DEINTERLEAVE_FN deinterleavePortable
#include "DepthwiseImpl.inc"
} // namespace strata::kernels::detail
