//===- OpKernelsAvx512.cpp - elementwise/pooling/rowwise kernels, Avx512 build
//===//

#include "OpKernelsIsa.h"

namespace strata::kernels::detail::opk_avx512 {
#include "OpKernelsImpl.inc"
} // namespace strata::kernels::detail::opk_avx512
