//===- WinogradAvx2.cpp - Winograd transforms, Avx2 build ---------------===//

#include "WinogradTransforms.h"

#include "strata/Kernels/OpKernels.h"

#include <algorithm>
#include <immintrin.h>
#include <optional>

namespace strata::kernels::detail {
#define WINOGRAD_INPUT_FN winogradInputAvx2
#define WINOGRAD_ISA Isa::Avx2
#define WINOGRAD_OUTPUT_FN winogradOutputAvx2
#include "WinogradImpl.inc"
} // namespace strata::kernels::detail
