//===- InvResExpandAvx512.cpp - the fused block's expansion tiles ---------===//
//
// The inverted-residual block's expansion (a 1x1 convolution with K = C =
// 16-32) as one loop over its 12 x 32 tiles, the activation chosen once:
// through the GEMM, each tile of 16-32 K steps paid the driver's per-tile
// work, the microkernel's call chain and an epilogue testing its options per
// vector. The same register tile and the same sums, in the same order, as
// the GEMM's AVX-512 microkernel: the results are identical. Compiled with
// -mavx512f -mfma; called only when the CPU has AVX-512F.
//
//===----------------------------------------------------------------------===//

#include "Depthwise.h"

#include <immintrin.h>

namespace strata::kernels::detail {

namespace {

constexpr int64_t kRows = 12; ///< the packed A's panel rows

inline __mmask16 lanes(int64_t n) {
  return n >= 16  ? __mmask16(0xffff)
         : n <= 0 ? __mmask16(0)
                  : __mmask16((1u << n) - 1);
}

/// One 12 x 32 tile (the columns past `m0`/`m1` masked off): k steps of
/// one B row times 12 A values, then bias and activation (ACT: 0 none,
/// 1 relu, 2 clip to [lo, hi]) as the GEMM's epilogue applies them.
template <int ACT, bool BIAS, bool FULL>
inline void tile(int64_t k, const float *a, const float *b, int64_t ldb,
                 const float *bias, __m512 lo, __m512 hi, float *c, int64_t ldc,
                 __mmask16 m0, __mmask16 m1) {
  __m512 acc0[kRows], acc1[kRows];
#pragma clang loop unroll(full)
  for (int i = 0; i < kRows; ++i)
    acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk, b += ldb, a += kRows) {
    __m512 b0 = FULL ? _mm512_loadu_ps(b) : _mm512_maskz_loadu_ps(m0, b);
    __m512 b1 =
        FULL ? _mm512_loadu_ps(b + 16) : _mm512_maskz_loadu_ps(m1, b + 16);
#pragma clang loop unroll(full)
    for (int i = 0; i < kRows; ++i) {
      __m512 av = _mm512_set1_ps(a[i]);
      acc0[i] = _mm512_fmadd_ps(av, b0, acc0[i]);
      acc1[i] = _mm512_fmadd_ps(av, b1, acc1[i]);
    }
  }
  auto finish = [&](__m512 v, __m512 bv) {
    if (BIAS)
      v = _mm512_add_ps(v, bv);
    if (ACT == 1)
      v = _mm512_max_ps(v, _mm512_setzero_ps());
    if (ACT == 2)
      v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    return v;
  };
#pragma clang loop unroll(full)
  for (int i = 0; i < kRows; ++i) {
    __m512 bv = BIAS ? _mm512_set1_ps(bias[i]) : _mm512_setzero_ps();
    float *ci = c + i * ldc;
    if (FULL) {
      _mm512_storeu_ps(ci, finish(acc0[i], bv));
      _mm512_storeu_ps(ci + 16, finish(acc1[i], bv));
    } else {
      _mm512_mask_storeu_ps(ci, m0, finish(acc0[i], bv));
      _mm512_mask_storeu_ps(ci + 16, m1, finish(acc1[i], bv));
    }
  }
}

template <int ACT, bool BIAS>
void tiles(int64_t m, int64_t n, int64_t k, const float *a, const float *b,
           int64_t ldb, const float *bias, __m512 lo, __m512 hi, float *c,
           int64_t ldc) {
  for (int64_t j = 0; j < n; j += 32) {
    int64_t nr = n - j < 32 ? n - j : 32;
    __mmask16 m0 = lanes(nr), m1 = lanes(nr - 16);
    for (int64_t i = 0; i < m; i += kRows) {
      const float *ap = a + i * k; // panel i / 12: 12 x k floats
      const float *bi = BIAS ? bias + i : nullptr;
      if (nr == 32)
        tile<ACT, BIAS, true>(k, ap, b + j, ldb, bi, lo, hi, c + i * ldc + j,
                              ldc, m0, m1);
      else
        tile<ACT, BIAS, false>(k, ap, b + j, ldb, bi, lo, hi, c + i * ldc + j,
                               ldc, m0, m1);
    }
  }
}

} // namespace

bool expandTilesAvx512(int64_t m, int64_t n, int64_t k, const float *a,
                       const float *b, int64_t ldb, const float *bias,
                       const Epilogue &e, float *c, int64_t ldc) {
  // One K block of the GEMM (its sums in the same order), whole panels, and
  // an A that stays in L1 across a column tile's row panels (the GEMM
  // blocks a larger one).
  if (m % kRows != 0 || k < 1 || k > kExpandTilesMaxK ||
      m * k > kExpandTilesMaxAFloats)
    return false;
  int act = e.act == Activation::None   ? 0
            : e.act == Activation::Relu ? 1
            : e.act == Activation::Clip ? 2
                                        : -1;
  if (act < 0)
    return false;
  __m512 lo = _mm512_set1_ps(e.p0), hi = _mm512_set1_ps(e.p1);
  auto run = [&](auto fn) { fn(m, n, k, a, b, ldb, bias, lo, hi, c, ldc); };
  if (bias)
    act == 0   ? run(tiles<0, true>)
    : act == 1 ? run(tiles<1, true>)
               : run(tiles<2, true>);
  else
    act == 0   ? run(tiles<0, false>)
    : act == 1 ? run(tiles<1, false>)
               : run(tiles<2, false>);
  return true;
}

} // namespace strata::kernels::detail
