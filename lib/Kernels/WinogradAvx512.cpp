//===- WinogradAvx512.cpp - Winograd transforms, Avx512 build
//---------------===//

#include "WinogradTransforms.h"

#include <algorithm>
#include <immintrin.h>

namespace strata::kernels::detail {
#define WINOGRAD_INPUT_FN winogradInputAvx512
#define WINOGRAD_OUTPUT_FN winogradOutputAvx512
#include "WinogradImpl.inc"
} // namespace strata::kernels::detail
