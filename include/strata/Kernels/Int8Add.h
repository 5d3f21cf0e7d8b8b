//===- Int8Add.h - the integer Add of two int8 tensors ----------*- C++ -*-===//
//
// The int8 Add as top-quantize writes it (docs/quantization.md, "Integer
// Add and pools"): each input rescaled to a common int32 scale by its own
// MultiplierShift requantization, the int32 sum (wrapping, as top.Add),
// an optional relu, then the MultiplierShift requantization to the 8-bit
// output:
//
//   ra = R(qa - zpa, ma, sa);  rb = R(qb - zpb, mb, sb)   (int32 results)
//   v  = wrap32(ra + rb);  v = relu ? max(v, 0) : v
//   y  = clamp(R(v, m, s) + zp, qmin, qmax)
//
// R being strata::intq::requantMultiplierShift (the interpreter's
// top.Requant), so the kernel equals `strata run-ref` bit for bit. Same
// shapes, no broadcasting.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_INT8ADD_H
#define STRATA_KERNELS_INT8ADD_H

#include "strata/Kernels/Int8Gemm.h"

#include <cstdint>

namespace strata::kernels {

struct Int8AddParams {
  /// One input: int8 or uint8 values, its zero point (inside its type)
  /// and the requantization to the common int32 scale.
  struct Input {
    bool isUnsigned = false;
    int32_t zp = 0;
    int32_t multiplier = 0, shift = 0; ///< shift in [0, 63]
  } a, b;
  bool relu = false;
  Int8Output out = Int8Output::Int8; ///< Int8 or UInt8
  int32_t multiplier = 0, shift = 0; ///< shift in [0, 63]
  int32_t zp = 0, qmin = -128, qmax = 127;
};

/// The definition of one output (intq; what the kernel reproduces).
int32_t int8AddValue(const Int8AddParams &p, int32_t qa, int32_t qb);

/// y[i] for i in [begin, end). `y` may be `a` or `b` (in place).
void int8Add(const Int8AddParams &p, const void *a, const void *b, void *y,
             int64_t begin, int64_t end,
             Int8Path path = int8PathFor(activeIsa()));

} // namespace strata::kernels

#endif // STRATA_KERNELS_INT8ADD_H
