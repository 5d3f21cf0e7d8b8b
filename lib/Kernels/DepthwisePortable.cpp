//===- DepthwisePortable.cpp - depthwise convolution, Portable build
//-------------===//

#include "Depthwise.h"

namespace strata::kernels::detail {
#define DEPTHWISE_FN depthwisePortable
#include "DepthwiseImpl.inc"
} // namespace strata::kernels::detail
