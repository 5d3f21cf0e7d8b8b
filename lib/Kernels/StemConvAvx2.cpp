//===- StemConvAvx2.cpp - the direct stem convolution, Avx2 build -===//

#include "StemConv.h"

#include "Depthwise.h"
#include "Scratch.h"

namespace strata::kernels::detail {
#define STEM_FN stemConvAvx2
#define STEM_ISA Isa::Avx2
#define POINTWISE_FN pointwiseNarrowAvx2
#define STEM_BLOCK_FN stemBlockAvx2
#define STEM_DEPTHWISE_FN depthwiseAvx2
#define STEM_OCB 4
#define STEM_NV 1
#include "StemConvImpl.inc"
} // namespace strata::kernels::detail
