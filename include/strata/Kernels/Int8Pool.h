//===- Int8Pool.h - max pooling of int8 / uint8 planes ----------*- C++ -*-===//
//
// The `maxpool2d_nchw_i8` / `maxpool2d_nchw_u8` runtime kernels' arithmetic:
// a quantized MaxPool keeps its input's scale and zero point
// (docs/quantization.md, "Integer Add and pools"), so its result is the max
// of the stored 8-bit values, exactly what the interpreter computes.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_INT8POOL_H
#define STRATA_KERNELS_INT8POOL_H

#include "strata/Kernels/OpKernels.h"

#include <cstdint>
#include <string>

namespace strata::kernels {

/// "" when `s` suits int8MaxPool2d: checkPool2dShape's conditions, dilation
/// 1, and pads below the window (every window holds an input element: an
/// all-padding window has no 8-bit max).
std::string checkInt8MaxPool2dShape(const Pool2dShape &s);

/// y = the max over each window of the 8-bit input (int8 or, with
/// `isUnsigned`, uint8), planes [begin, end) of N*C; padding never wins.
/// `y` must not overlap `x`.
void int8MaxPool2d(const Pool2dShape &s, bool isUnsigned, const uint8_t *x,
                   uint8_t *y, int64_t begin, int64_t end);

} // namespace strata::kernels

#endif // STRATA_KERNELS_INT8POOL_H
