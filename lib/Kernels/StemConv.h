//===- StemConv.h - the per-ISA direct stem convolution builds --*- C++ -*-===//

#ifndef STRATA_LIB_KERNELS_STEMCONV_H
#define STRATA_LIB_KERNELS_STEMCONV_H

#include "strata/Kernels/OpKernels.h"
#include "strata/Kernels/StemConv.h"

namespace strata::kernels::detail {
/// conv2dStem's units [begin, end) (the shape already checked).
#define STRATA_DECLARE_STEM_CONV(name)                                         \
  void name(const Conv2dShape &s, const float *x, const float *filter,         \
            const Epilogue &e, float *y, int64_t begin, int64_t end);
STRATA_DECLARE_STEM_CONV(stemConvPortable)
STRATA_DECLARE_STEM_CONV(stemConvAvx2)
STRATA_DECLARE_STEM_CONV(stemConvAvx512)
#undef STRATA_DECLARE_STEM_CONV
/// conv1x1Narrow's units [begin, end).
#define STRATA_DECLARE_POINTWISE_NARROW(name)                                  \
  void name(int64_t k, int64_t hw, int64_t o, const float *x,                  \
            const float *filter, const Epilogue &e, float *y, int64_t chunk,   \
            int64_t begin, int64_t end);
STRATA_DECLARE_POINTWISE_NARROW(pointwiseNarrowPortable)
STRATA_DECLARE_POINTWISE_NARROW(pointwiseNarrowAvx2)
STRATA_DECLARE_POINTWISE_NARROW(pointwiseNarrowAvx512)
#undef STRATA_DECLARE_POINTWISE_NARROW
/// stemBlock's units [begin, end); non-zero when a buffer cannot be had.
#define STRATA_DECLARE_STEM_BLOCK(name)                                        \
  int name(const StemBlockShape &s, const StemBlockWeights &wt,                \
           const float *x, float *y, int64_t stripRows, int64_t begin,         \
           int64_t end);
STRATA_DECLARE_STEM_BLOCK(stemBlockPortable)
STRATA_DECLARE_STEM_BLOCK(stemBlockAvx2)
STRATA_DECLARE_STEM_BLOCK(stemBlockAvx512)
#undef STRATA_DECLARE_STEM_BLOCK
} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_STEMCONV_H
