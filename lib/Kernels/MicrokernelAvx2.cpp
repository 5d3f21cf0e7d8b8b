//===- MicrokernelAvx2.cpp - 6x16 f32 microkernel (AVX2 + FMA) ------------===//
//
// 12 ymm accumulators (6 rows x 2 vectors of 8), 2 B vectors and one
// broadcast of A per step: 15 of the 16 registers. It reads half of a
// 12-row A panel (the caller offsets `a` by 0 or 6 rows). Compiled with
// -mavx2 -mfma; called only when the CPU has both.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"

#include <immintrin.h>

namespace strata::kernels::detail {

namespace {

constexpr int kMR = 6;
constexpr int kAStride = 12; // kPanelRows

inline __m256 activateVec(__m256 v, const TileEpilogue &ep) {
  switch (ep.act) {
  case 1:
    return _mm256_max_ps(v, _mm256_setzero_ps());
  case 2:
    return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(ep.p0)),
                         _mm256_set1_ps(ep.p1));
  case 3: {
    __m256 neg = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ);
    return _mm256_blendv_ps(v, _mm256_mul_ps(v, _mm256_set1_ps(ep.p0)), neg);
  }
  case 6: {
    __m256 g = _mm256_add_ps(_mm256_mul_ps(v, _mm256_set1_ps(1.0f / 6.0f)),
                             _mm256_set1_ps(0.5f));
    g = _mm256_min_ps(_mm256_max_ps(g, _mm256_setzero_ps()),
                      _mm256_set1_ps(1.0f));
    return _mm256_mul_ps(v, g);
  }
  case 7: {
    __m256 g = _mm256_add_ps(_mm256_mul_ps(v, _mm256_set1_ps(ep.p0)),
                             _mm256_set1_ps(ep.p1));
    return _mm256_min_ps(_mm256_max_ps(g, _mm256_setzero_ps()),
                         _mm256_set1_ps(1.0f));
  }
  default:
    return v;
  }
}

/// Lane mask of the first n of 8 lanes.
inline __m256i tailMask(int64_t n) {
  n = n < 0 ? 0 : n > 8 ? 8 : n;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

inline void finish(__m256 v, float *c, __m256i m, bool full, bool accumulate,
                   const TileEpilogue *ep, int64_t row, int64_t col) {
  auto load = [&](const float *p) {
    return full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m);
  };
  if (accumulate)
    v = _mm256_add_ps(v, load(c));
  if (ep) {
    if (ep->rowBias)
      v = _mm256_add_ps(v, _mm256_set1_ps(ep->rowBias[row]));
    if (ep->colBias)
      v = _mm256_add_ps(v, load(ep->colBias + col));
    if (ep->residual)
      v = _mm256_add_ps(v, load(ep->residual + row * ep->ldr + col));
    v = activateVec(v, *ep);
  }
  if (full)
    _mm256_storeu_ps(c, v);
  else
    _mm256_maskstore_ps(c, m, v);
}

void microkernel(int64_t kc, const float *a, const float *b, int64_t, float *c,
                 int64_t ldc, int64_t mr, int64_t nr, bool accumulate,
                 const TileEpilogue *ep, const TilePrefetch *) {
  __m256 acc0[kMR], acc1[kMR];
#pragma clang loop unroll(full)
  for (int i = 0; i < kMR; ++i) {
    acc0[i] = _mm256_setzero_ps();
    acc1[i] = _mm256_setzero_ps();
  }
  for (int64_t k = 0; k < kc; ++k) {
    __m256 bv0 = _mm256_loadu_ps(b + k * 16);
    __m256 bv1 = _mm256_loadu_ps(b + k * 16 + 8);
    const float *ak = a + k * kAStride;
#pragma clang loop unroll(full)
    for (int i = 0; i < kMR; ++i) {
      __m256 av = _mm256_broadcast_ss(ak + i);
      acc0[i] = _mm256_fmadd_ps(av, bv0, acc0[i]);
      acc1[i] = _mm256_fmadd_ps(av, bv1, acc1[i]);
    }
  }
  __m256i m0 = tailMask(nr), m1 = tailMask(nr - 8);
  bool full0 = nr >= 8, full1 = nr >= 16;
#pragma clang loop unroll(full)
  for (int i = 0; i < kMR; ++i) {
    if (i >= mr)
      break;
    float *ci = c + i * ldc;
    finish(acc0[i], ci, m0, full0, accumulate, ep, i, 0);
    if (nr > 8)
      finish(acc1[i], ci + 8, m1, full1, accumulate, ep, i, 8);
  }
}

} // namespace

MicrokernelInfo avx2Microkernel() { return {kMR, 16, microkernel}; }

} // namespace strata::kernels::detail
