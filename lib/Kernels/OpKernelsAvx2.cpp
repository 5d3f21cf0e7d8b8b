//===- OpKernelsAvx2.cpp - elementwise/pooling/rowwise kernels, Avx2 build ===//

#include "OpKernelsIsa.h"

namespace strata::kernels::detail::opk_avx2 {
#include "OpKernelsImpl.inc"
} // namespace strata::kernels::detail::opk_avx2
