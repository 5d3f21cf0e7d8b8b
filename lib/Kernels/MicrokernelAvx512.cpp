//===- MicrokernelAvx512.cpp - 12x32 f32 microkernel (AVX-512F) -----------===//
//
// 24 zmm accumulators (12 rows x 2 vectors of 16), 2 B vectors and one
// broadcast of A per step: 27 of the 32 registers. Zen 4 splits each zmm
// FMA into two 256-bit halves, so this runs at its 2 x 256-bit FMA peak
// while issuing half the instructions of the AVX2 kernel. Compiled with
// -mavx512f -mfma; called only when the CPU has AVX-512F.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"

#include <immintrin.h>

namespace strata::kernels::detail {

namespace {

constexpr int kMR = 12;

inline __m512 activateVec(__m512 v, const TileEpilogue &ep) {
  switch (ep.act) {
  case 1: // relu
    return _mm512_max_ps(v, _mm512_setzero_ps());
  case 2: // clip
    return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(ep.p0)),
                         _mm512_set1_ps(ep.p1));
  case 3: { // leaky relu
    __mmask16 neg = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ);
    return _mm512_mask_mul_ps(v, neg, v, _mm512_set1_ps(ep.p0));
  }
  case 6: { // hardswish
    __m512 g = _mm512_add_ps(_mm512_mul_ps(v, _mm512_set1_ps(1.0f / 6.0f)),
                             _mm512_set1_ps(0.5f));
    g = _mm512_min_ps(_mm512_max_ps(g, _mm512_setzero_ps()),
                      _mm512_set1_ps(1.0f));
    return _mm512_mul_ps(v, g);
  }
  case 7: { // hardsigmoid
    __m512 g = _mm512_add_ps(_mm512_mul_ps(v, _mm512_set1_ps(ep.p0)),
                             _mm512_set1_ps(ep.p1));
    return _mm512_min_ps(_mm512_max_ps(g, _mm512_setzero_ps()),
                         _mm512_set1_ps(1.0f));
  }
  default:
    return v;
  }
}

inline __mmask16 tailMask(int64_t n) {
  return n >= 16  ? __mmask16(0xffff)
         : n <= 0 ? __mmask16(0)
                  : __mmask16((1u << n) - 1);
}

/// One output vector: accumulate, epilogue, masked store.
__attribute__((always_inline)) inline void finish(__m512 v, float *c,
                                                  __mmask16 m, bool accumulate,
                                                  const TileEpilogue *ep,
                                                  int64_t row, int64_t col) {
  if (accumulate)
    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, c));
  if (ep) {
    if (ep->rowBias)
      v = _mm512_add_ps(v, _mm512_set1_ps(ep->rowBias[row]));
    if (ep->colBias)
      v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, ep->colBias + col));
    if (ep->residual)
      v = _mm512_add_ps(
          v, _mm512_maskz_loadu_ps(m, ep->residual + row * ep->ldr + col));
    v = activateVec(v, *ep);
  }
  _mm512_mask_storeu_ps(c, m, v);
}

/// One k step of a tile: row i's A value times the step's B vectors.
template <int NV, int ROWS>
inline void fmaRows(const float *ak, __m512 bv0, __m512 bv1, __m512 *acc0,
                    __m512 *acc1) {
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    __m512 av = _mm512_set1_ps(ak[i]);
    acc0[i] = _mm512_fmadd_ps(av, bv0, acc0[i]);
    if (NV == 2)
      acc1[i] = _mm512_fmadd_ps(av, bv1, acc1[i]);
  }
}

/// The tile's mr rows through the epilogue to C (m0, m1: the columns of
/// each vector).
/// Always inlined: as a call it took the 24 accumulators through the stack
/// (10% of a K = 64 layer's time).
template <int NV, int ROWS>
__attribute__((always_inline)) inline void
storeRows(const __m512 *acc0, const __m512 *acc1, float *c, int64_t ldc,
          int64_t mr, __mmask16 m0, __mmask16 m1, bool accumulate,
          const TileEpilogue *ep) {
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    if (i >= mr)
      break;
    float *ci = c + i * ldc;
    finish(acc0[i], ci, m0, accumulate, ep, i, 0);
    if (NV == 2 && m1)
      finish(acc1[i], ci + 16, m1, accumulate, ep, i, 16);
  }
}

/// NV vectors of 16 columns, ROWS rows (12; 8, 4 or 1 for the last rows of
/// an M that is not a multiple of 12, e.g. 64 = 5 x 12 + 4, or the 49 pixels
/// of a 7x7 output in the transposed form = 4 x 12 + 1). B's row k starts
/// `rowStride` floats after row k - 1 and its second vector `second` floats
/// after its first: 16 and the panel stride for packed panels, B's leading
/// dimension and 16 for a B read in place. MASKED loads only the nr
/// columns of B (in place, the columns past nr may be past the buffer).
/// With PREFETCH, each step also prefetches step k of `pf` into L2 (the next
/// micro-panel of a weight read from memory about once).
template <int NV, int ROWS, bool MASKED, bool PREFETCH>
void kernel(int64_t kc, const float *a, const float *b, int64_t rowStride,
            int64_t second, float *c, int64_t ldc, int64_t mr, int64_t nr,
            bool accumulate, const TileEpilogue *ep, const TilePrefetch *pf) {
  __m512 acc0[ROWS], acc1[ROWS];
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    acc0[i] = _mm512_setzero_ps();
    acc1[i] = _mm512_setzero_ps();
  }
  __mmask16 m0 = tailMask(nr), m1 = tailMask(nr - 16);
  const float *bk = b, *pk = PREFETCH ? pf->p : nullptr;
  int64_t pfStride = PREFETCH ? pf->stride : 0,
          pfSecond = PREFETCH ? pf->second : 0;
  int64_t k = 0;
  if constexpr (ROWS == 1) {
    // One row has only NV accumulation chains, each waiting on the FMA
    // latency: odd steps go to a second set, added at the end.
    __m512 odd0 = _mm512_setzero_ps(), odd1 = _mm512_setzero_ps();
    for (; k + 2 <= kc; k += 2, bk += 2 * rowStride) {
      if (PREFETCH) {
        for (int64_t j = 0; j < 2; ++j, pk += pfStride) {
          _mm_prefetch(reinterpret_cast<const char *>(pk), _MM_HINT_T1);
          _mm_prefetch(reinterpret_cast<const char *>(pk + pfSecond),
                       _MM_HINT_T1);
        }
      }
      const float *bn = bk + rowStride;
      __m512 av = _mm512_set1_ps(a[k * kMR]);
      __m512 an = _mm512_set1_ps(a[(k + 1) * kMR]);
      acc0[0] = _mm512_fmadd_ps(
          av, MASKED ? _mm512_maskz_loadu_ps(m0, bk) : _mm512_loadu_ps(bk),
          acc0[0]);
      odd0 = _mm512_fmadd_ps(
          an, MASKED ? _mm512_maskz_loadu_ps(m0, bn) : _mm512_loadu_ps(bn),
          odd0);
      if (NV == 2) {
        acc1[0] =
            _mm512_fmadd_ps(av,
                            MASKED ? _mm512_maskz_loadu_ps(m1, bk + second)
                                   : _mm512_loadu_ps(bk + second),
                            acc1[0]);
        odd1 = _mm512_fmadd_ps(an,
                               MASKED ? _mm512_maskz_loadu_ps(m1, bn + second)
                                      : _mm512_loadu_ps(bn + second),
                               odd1);
      }
    }
    acc0[0] = _mm512_add_ps(acc0[0], odd0);
    acc1[0] = _mm512_add_ps(acc1[0], odd1);
  }
  for (; k < kc; ++k, bk += rowStride) {
    if (PREFETCH) {
      _mm_prefetch(reinterpret_cast<const char *>(pk), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char *>(pk + pfSecond), _MM_HINT_T1);
      pk += pfStride;
    }
    __m512 bv0 = MASKED ? _mm512_maskz_loadu_ps(m0, bk) : _mm512_loadu_ps(bk);
    __m512 bv1 = NV == 1  ? bv0
                 : MASKED ? _mm512_maskz_loadu_ps(m1, bk + second)
                          : _mm512_loadu_ps(bk + second);
    const float *ak = a + k * kMR;
    fmaRows<NV, ROWS>(ak, bv0, bv1, acc0, acc1);
  }
  storeRows<NV, ROWS>(acc0, acc1, c, ldc, mr, m0, m1, accumulate, ep);
}

/// At most 8 columns (the last 4 of a 196-pixel output): one 256-bit vector
/// per row. Zen 4 runs two 256-bit FMAs per cycle but one 512-bit one, so
/// this costs half of a 16-column tile. The accumulators are widened to 512
/// bits for the epilogue and the masked store.
template <int ROWS, bool MASKED, bool PREFETCH>
void kernelHalf(int64_t kc, const float *a, const float *b, int64_t rowStride,
                int64_t, float *c, int64_t ldc, int64_t mr, int64_t nr,
                bool accumulate, const TileEpilogue *ep,
                const TilePrefetch *pf) {
  __m256 acc[ROWS];
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i)
    acc[i] = _mm256_setzero_ps();
  __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(nr)),
                                     _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const float *bk = b, *pk = PREFETCH ? pf->p : nullptr;
  int64_t pfStride = PREFETCH ? pf->stride : 0;
  for (int64_t k = 0; k < kc; ++k, bk += rowStride) {
    if (PREFETCH) {
      _mm_prefetch(reinterpret_cast<const char *>(pk), _MM_HINT_T1);
      pk += pfStride;
    }
    __m256 bv = MASKED ? _mm256_maskload_ps(bk, lanes) : _mm256_loadu_ps(bk);
    const float *ak = a + k * kMR;
#pragma clang loop unroll(full)
    for (int i = 0; i < ROWS; ++i)
      acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(ak[i]), bv, acc[i]);
  }
  __mmask16 m0 = tailMask(nr);
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    if (i >= mr)
      break;
    finish(_mm512_zextps256_ps512(acc[i]), c + i * ldc, m0, accumulate, ep, i,
           0);
  }
}

/// The implicit-GEMM tile: B's row k of panel q from panels[q] at off[k];
/// SPLIT when a panel crosses an output row or has fewer than 16 columns
/// (two masked loads per vector). With PREFETCH, step k also prefetches
/// step k of `pf` into L2 (the next A micro-panel, as `kernel` does).
template <int NV, int ROWS, bool SPLIT, bool PREFETCH>
void kernelGather(int64_t kc, const float *a, const GatherPanel *panels,
                  const int64_t *off, float *c, int64_t ldc, int64_t mr,
                  int64_t nr, bool accumulate, const TileEpilogue *ep,
                  const TilePrefetch *pf) {
  __m512 acc0[ROWS], acc1[ROWS];
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    acc0[i] = _mm512_setzero_ps();
    acc1[i] = _mm512_setzero_ps();
  }
  const GatherPanel p0 = panels[0], p1 = NV == 2 ? panels[1] : panels[0];
  __mmask16 lo0 = __mmask16(p0.loLanes), hi0 = __mmask16(p0.hiLanes);
  __mmask16 lo1 = __mmask16(p1.loLanes), hi1 = __mmask16(p1.hiLanes);
  auto load = [](const GatherPanel &p, __mmask16 lo, __mmask16 hi, int64_t o) {
    if (!SPLIT)
      return _mm512_loadu_ps(p.lo + o);
    return _mm512_mask_loadu_ps(_mm512_maskz_loadu_ps(lo, p.lo + o), hi,
                                p.hi + o);
  };
  const float *pk = PREFETCH ? pf->p : nullptr;
  int64_t pfStride = PREFETCH ? pf->stride : 0,
          pfSecond = PREFETCH ? pf->second : 0;
  for (int64_t k = 0; k < kc; ++k) {
    if (PREFETCH) {
      _mm_prefetch(reinterpret_cast<const char *>(pk), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char *>(pk + pfSecond), _MM_HINT_T1);
      pk += pfStride;
    }
    int64_t o = off[k];
    __m512 bv0 = load(p0, lo0, hi0, o);
    __m512 bv1 = NV == 2 ? load(p1, lo1, hi1, o) : bv0;
    const float *ak = a + k * kMR;
    fmaRows<NV, ROWS>(ak, bv0, bv1, acc0, acc1);
  }
  __mmask16 m0 = tailMask(nr), m1 = tailMask(nr - 16);
  storeRows<NV, ROWS>(acc0, acc1, c, ldc, mr, m0, m1, accumulate, ep);
}

template <bool SPLIT, bool PREFETCH>
void dispatchGather(int64_t kc, const float *a, const GatherPanel *panels,
                    const int64_t *off, float *c, int64_t ldc, int64_t mr,
                    int64_t nr, bool accumulate, const TileEpilogue *ep,
                    const TilePrefetch *pf) {
  auto run = [&](auto fn) {
    fn(kc, a, panels, off, c, ldc, mr, nr, accumulate, ep, pf);
  };
  if (nr > 16)
    return mr > 8   ? run(kernelGather<2, 12, SPLIT, PREFETCH>)
           : mr > 4 ? run(kernelGather<2, 8, SPLIT, PREFETCH>)
                    : run(kernelGather<2, 4, SPLIT, PREFETCH>);
  return mr > 8   ? run(kernelGather<1, 12, SPLIT, PREFETCH>)
         : mr > 4 ? run(kernelGather<1, 8, SPLIT, PREFETCH>)
                  : run(kernelGather<1, 4, SPLIT, PREFETCH>);
}

template <bool SPLIT>
void dispatchGatherPrefetch(int64_t kc, const float *a,
                            const GatherPanel *panels, const int64_t *off,
                            float *c, int64_t ldc, int64_t mr, int64_t nr,
                            bool accumulate, const TileEpilogue *ep,
                            const TilePrefetch *pf) {
  if (pf)
    return dispatchGather<SPLIT, true>(kc, a, panels, off, c, ldc, mr, nr,
                                       accumulate, ep, pf);
  dispatchGather<SPLIT, false>(kc, a, panels, off, c, ldc, mr, nr, accumulate,
                               ep, pf);
}

void microkernelGather(int64_t kc, const float *a, const GatherPanel *panels,
                       const int64_t *off, float *c, int64_t ldc, int64_t mr,
                       int64_t nr, bool accumulate, const TileEpilogue *ep,
                       const TilePrefetch *pf) {
  bool split =
      panels[0].loLanes != 0xffff || (nr > 16 && panels[1].loLanes != 0xffff);
  if (split)
    return dispatchGatherPrefetch<true>(kc, a, panels, off, c, ldc, mr, nr,
                                        accumulate, ep, pf);
  dispatchGatherPrefetch<false>(kc, a, panels, off, c, ldc, mr, nr, accumulate,
                                ep, pf);
}

/// The tile's kernel: by its vectors of columns and its rows.
template <bool MASKED, bool PREFETCH>
void dispatch(int64_t kc, const float *a, const float *b, int64_t rowStride,
              int64_t second, float *c, int64_t ldc, int64_t mr, int64_t nr,
              bool accumulate, const TileEpilogue *ep, const TilePrefetch *pf) {
  auto run = [&](auto fn) {
    fn(kc, a, b, rowStride, second, c, ldc, mr, nr, accumulate, ep, pf);
  };
  if (nr > 16 && nr <= 24) {
    // 17 to 24 columns (a Winograd block of 17 or 25 tiles): 16 in one
    // vector, the rest in a 256-bit one, 3/4 of a two-vector tile's FMA
    // work. Each column's sums are the same, in the same order.
    if (mr > 8)
      kernel<1, 12, MASKED, PREFETCH>(kc, a, b, rowStride, second, c, ldc, mr,
                                      16, accumulate, ep, pf);
    else if (mr > 4)
      kernel<1, 8, MASKED, PREFETCH>(kc, a, b, rowStride, second, c, ldc, mr,
                                     16, accumulate, ep, pf);
    else
      kernel<1, 4, MASKED, PREFETCH>(kc, a, b, rowStride, second, c, ldc, mr,
                                     16, accumulate, ep, pf);
    TileEpilogue rest;
    if (ep) {
      rest = *ep;
      if (rest.colBias)
        rest.colBias += 16;
      if (rest.residual)
        rest.residual += 16;
    }
    const TileEpilogue *rp = ep ? &rest : nullptr;
    const float *b1 = b + second;
    if (mr > 8)
      return kernelHalf<12, MASKED, false>(kc, a, b1, rowStride, 0, c + 16, ldc,
                                           mr, nr - 16, accumulate, rp,
                                           nullptr);
    if (mr > 4)
      return kernelHalf<8, MASKED, false>(kc, a, b1, rowStride, 0, c + 16, ldc,
                                          mr, nr - 16, accumulate, rp, nullptr);
    return kernelHalf<4, MASKED, false>(kc, a, b1, rowStride, 0, c + 16, ldc,
                                        mr, nr - 16, accumulate, rp, nullptr);
  }
  if (nr > 16)
    return mr > 8   ? run(kernel<2, 12, MASKED, PREFETCH>)
           : mr > 4 ? run(kernel<2, 8, MASKED, PREFETCH>)
           : mr > 1 ? run(kernel<2, 4, MASKED, PREFETCH>)
                    : run(kernel<2, 1, MASKED, PREFETCH>);
  if (nr <= 8)
    return mr > 8   ? run(kernelHalf<12, MASKED, PREFETCH>)
           : mr > 4 ? run(kernelHalf<8, MASKED, PREFETCH>)
                    : run(kernelHalf<4, MASKED, PREFETCH>);
  return mr > 8   ? run(kernel<1, 12, MASKED, PREFETCH>)
         : mr > 4 ? run(kernel<1, 8, MASKED, PREFETCH>)
         : mr > 1 ? run(kernel<1, 4, MASKED, PREFETCH>)
                  : run(kernel<1, 1, MASKED, PREFETCH>);
}

/// The tile's kernel with or without a prefetch stream.
template <bool MASKED>
void dispatchPrefetch(int64_t kc, const float *a, const float *b,
                      int64_t rowStride, int64_t second, float *c, int64_t ldc,
                      int64_t mr, int64_t nr, bool accumulate,
                      const TileEpilogue *ep, const TilePrefetch *pf) {
  if (pf)
    return dispatch<MASKED, true>(kc, a, b, rowStride, second, c, ldc, mr, nr,
                                  accumulate, ep, pf);
  dispatch<MASKED, false>(kc, a, b, rowStride, second, c, ldc, mr, nr,
                          accumulate, ep, pf);
}

void microkernel(int64_t kc, const float *a, const float *b,
                 int64_t bPanelStride, float *c, int64_t ldc, int64_t mr,
                 int64_t nr, bool accumulate, const TileEpilogue *ep,
                 const TilePrefetch *pf) {
  dispatchPrefetch<false>(kc, a, b, 16, bPanelStride, c, ldc, mr, nr,
                          accumulate, ep, pf);
}

/// B read in place: row k of the tile at b + k * ldb, its nr columns.
void microkernelDirect(int64_t kc, const float *a, const float *b, int64_t ldb,
                       float *c, int64_t ldc, int64_t mr, int64_t nr,
                       bool accumulate, const TileEpilogue *ep,
                       const TilePrefetch *pf) {
  if (nr == 32)
    return dispatchPrefetch<false>(kc, a, b, ldb, 16, c, ldc, mr, nr,
                                   accumulate, ep, pf);
  dispatchPrefetch<true>(kc, a, b, ldb, 16, c, ldc, mr, nr, accumulate, ep, pf);
}

} // namespace

MicrokernelInfo avx512Microkernel() {
  return {kMR, 32, microkernel, microkernelDirect, microkernelGather};
}

} // namespace strata::kernels::detail
