//===- StemConvAvx512.cpp - the direct stem convolution, Avx512 build -===//

#include "StemConv.h"

#include "Scratch.h"

namespace strata::kernels::detail {
#define STEM_FN stemConvAvx512
#define POINTWISE_FN pointwiseNarrowAvx512
#define STEM_OCB 16
#define STEM_NV 1
#include "StemConvImpl.inc"
} // namespace strata::kernels::detail
