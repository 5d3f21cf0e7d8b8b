//===- OpKernelsPortable.cpp - elementwise/pooling/rowwise kernels, Portable
//build ===//

#include "OpKernelsIsa.h"

namespace strata::kernels::detail::opk_portable {
#include "OpKernelsImpl.inc"
} // namespace strata::kernels::detail::opk_portable
