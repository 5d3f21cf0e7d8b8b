//===- WinogradAvx512.cpp - Winograd transforms, Avx512 build
//---------------===//

#include "WinogradTransforms.h"

#include "strata/Kernels/OpKernels.h"

#include <algorithm>
#include <immintrin.h>
#include <optional>

namespace strata::kernels::detail {
#define WINOGRAD_INPUT_FN winogradInputAvx512
#define WINOGRAD_ISA Isa::Avx512
#define WINOGRAD_OUTPUT_FN winogradOutputAvx512
#include "WinogradImpl.inc"
} // namespace strata::kernels::detail
