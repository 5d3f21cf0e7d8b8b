//===- DepthwiseAvx2.cpp - depthwise convolution, Avx2 build -------------===//

#include "Depthwise.h"

namespace strata::kernels::detail {
#define DEPTHWISE_FN depthwiseAvx2
#define DW_STRIP_FN dwStripAvx2
#define DEINTERLEAVE_FN deinterleaveAvx2
#include "DepthwiseImpl.inc"
} // namespace strata::kernels::detail
