//===- StemConvPortable.cpp - the direct stem convolution, Portable build -===//

#include "StemConv.h"

#include "Depthwise.h"
#include "Scratch.h"

namespace strata::kernels::detail {
#define STEM_FN stemConvPortable
#define STEM_ISA Isa::Portable
#define POINTWISE_FN pointwiseNarrowPortable
#define STEM_BLOCK_FN stemBlockPortable
#define STEM_DEPTHWISE_FN depthwisePortable
#define STEM_OCB 2
#define STEM_NV 1
#include "StemConvImpl.inc"
} // namespace strata::kernels::detail
