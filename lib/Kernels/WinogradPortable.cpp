//===- WinogradPortable.cpp - Winograd transforms, Portable build
//---------------===//

#include "WinogradTransforms.h"

#include <algorithm>

namespace strata::kernels::detail {
#define WINOGRAD_INPUT_FN winogradInputPortable
#define WINOGRAD_OUTPUT_FN winogradOutputPortable
#include "WinogradImpl.inc"
} // namespace strata::kernels::detail
