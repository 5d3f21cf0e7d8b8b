//===- WinogradPortable.cpp - Winograd transforms, Portable build
//---------------===//

#include "WinogradTransforms.h"

#include "strata/Kernels/OpKernels.h"

#include <algorithm>
#include <optional>

namespace strata::kernels::detail {
#define WINOGRAD_INPUT_FN winogradInputPortable
#define WINOGRAD_ISA Isa::Portable
#define WINOGRAD_OUTPUT_FN winogradOutputPortable
#include "WinogradImpl.inc"
} // namespace strata::kernels::detail
