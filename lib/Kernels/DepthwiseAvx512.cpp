//===- DepthwiseAvx512.cpp - depthwise convolution, Avx512 build
//-------------===//

#include "Depthwise.h"

#include <immintrin.h>
#include <type_traits>

namespace strata::kernels::detail {
#define DEPTHWISE_FN depthwiseAvx512
#define DEPTHWISE_FOUR_ROWS 1
#define DEPTHWISE_MASKED_LOADS 1
#define DW_STRIP_FN dwStripAvx512
#define DEINTERLEAVE_FN deinterleaveAvx512
#include "DepthwiseImpl.inc"
} // namespace strata::kernels::detail
