//===- Vec4.h - four-float vectors for the packing code -------*- C++ -*-===//
//
// Internal to the kernel library: SSE-width vectors through the compiler's
// vector extensions, for code compiled for the x86-64 baseline (packing,
// layout changes) rather than per ISA.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_KERNELS_VEC4_H
#define STRATA_LIB_KERNELS_VEC4_H

#include <cstring>

namespace strata::kernels::detail {

typedef float V4 __attribute__((vector_size(16)));

inline V4 load4(const float *p) {
  V4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void store4(float *p, V4 v) { std::memcpy(p, &v, sizeof v); }

/// p[0], p[2], p[4], p[6].
inline V4 evens4(const float *p) {
  return __builtin_shufflevector(load4(p), load4(p + 4), 0, 2, 4, 6);
}

/// Transposes the 4 x 4 block whose rows are r0..r3, in place.
inline void transpose4(V4 &r0, V4 &r1, V4 &r2, V4 &r3) {
  V4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5);
  V4 t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
  V4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
  V4 t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
  r0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  r1 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  r2 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  r3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_VEC4_H
