//===- Int8MicrokernelAvx512Vnni.cpp - 12x32 int8 microkernel (VNNI) ------===//
//
// 24 zmm accumulators (12 rows x 2 vectors of 16 columns), 2 B vectors and
// one 4-byte broadcast of A per step; each `vpdpbusd` does 64 u8 x s8
// multiply-adds into int32 (no saturation: the non-S form wraps, and the
// sums stay far below 2^31 for any K a model has). The tile epilogue
// requantizes 16 lanes at a time in 64-bit lanes: the exact product
// `vpmuldq`, |p| + 2^(s-1) shifted right by s (`vpsrlvq`), the sign put
// back, + zero point, clamped (`vpminsq`/`vpmaxsq`), narrowed with
// `vpmovdb`. Compiled with AVX-512 F/BW/DQ/VL/VNNI; called only when the
// CPU has them.
//
//===----------------------------------------------------------------------===//

#include "Int8Microkernels.h"

#include <algorithm>

#include <immintrin.h>

#include <cstring>

namespace strata::kernels::detail {

#include "Int8DepthwiseImpl.inc"

namespace {

constexpr int kMR = 12;

inline __mmask16 tailMask(int64_t n) {
  return n >= 16  ? __mmask16(0xffff)
         : n <= 0 ? __mmask16(0)
                  : __mmask16((1u << n) - 1);
}

inline __m512i broadcast32(const uint8_t *p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

template <int NV, int ROWS, bool AUnsigned>
void kernel(int64_t groups, const uint8_t *a, const uint8_t *b,
            int64_t bPanelStride, int32_t *c, int64_t ldc, int64_t mr,
            int64_t nr, bool accumulate) {
  __m512i acc0[ROWS], acc1[ROWS];
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    acc0[i] = _mm512_setzero_si512();
    acc1[i] = _mm512_setzero_si512();
  }
  const uint8_t *b1 = b + bPanelStride;
  for (int64_t g = 0; g < groups; ++g) {
    __m512i bv0 = _mm512_loadu_si512(b + g * 64);
    __m512i bv1 = NV == 2 ? _mm512_loadu_si512(b1 + g * 64) : bv0;
    const uint8_t *ag = a + g * 4 * kPanelRows;
#pragma clang loop unroll(full)
    for (int i = 0; i < ROWS; ++i) {
      __m512i av = broadcast32(ag + i * 4);
      if (AUnsigned) {
        acc0[i] = _mm512_dpbusd_epi32(acc0[i], av, bv0);
        if (NV == 2)
          acc1[i] = _mm512_dpbusd_epi32(acc1[i], av, bv1);
      } else {
        acc0[i] = _mm512_dpbusd_epi32(acc0[i], bv0, av);
        if (NV == 2)
          acc1[i] = _mm512_dpbusd_epi32(acc1[i], bv1, av);
      }
    }
  }
  __mmask16 m0 = tailMask(nr), m1 = tailMask(nr - 16);
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    if (i >= mr)
      break;
    int32_t *ci = c + i * ldc;
    __m512i v0 = acc0[i], v1 = acc1[i];
    if (accumulate) {
      v0 = _mm512_add_epi32(v0, _mm512_maskz_loadu_epi32(m0, ci));
      if (NV == 2)
        v1 = _mm512_add_epi32(v1, _mm512_maskz_loadu_epi32(m1, ci + 16));
    }
    _mm512_mask_storeu_epi32(ci, m0, v0);
    if (NV == 2 && m1)
      _mm512_mask_storeu_epi32(ci + 16, m1, v1);
  }
}

template <bool AUnsigned>
void microkernelT(int64_t groups, const uint8_t *a, const uint8_t *b,
                  int64_t bPanelStride, int32_t *c, int64_t ldc, int64_t mr,
                  int64_t nr, bool accumulate) {
  auto run = [&](auto fn) {
    fn(groups, a, b, bPanelStride, c, ldc, mr, nr, accumulate);
  };
  if (nr > 16)
    return mr > 8   ? run(kernel<2, 12, AUnsigned>)
           : mr > 4 ? run(kernel<2, 8, AUnsigned>)
                    : run(kernel<2, 4, AUnsigned>);
  return mr > 8   ? run(kernel<1, 12, AUnsigned>)
         : mr > 4 ? run(kernel<1, 8, AUnsigned>)
                  : run(kernel<1, 4, AUnsigned>);
}

void microkernel(int64_t groups, const uint8_t *a, const uint8_t *b,
                 int64_t bPanelStride, int32_t *c, int64_t ldc, int64_t mr,
                 int64_t nr, bool accumulate, bool aUnsigned) {
  if (aUnsigned)
    microkernelT<true>(groups, a, b, bPanelStride, c, ldc, mr, nr, accumulate);
  else
    microkernelT<false>(groups, a, b, bPanelStride, c, ldc, mr, nr, accumulate);
}

/// round_half_away_from_zero(v * m / 2^s) for 8 int64 lanes holding int32
/// values v and m; s in [0, 63].
inline __m512i roundingMulShift(__m512i v, __m512i m, __m512i s) {
  __m512i p = _mm512_mul_epi32(v, m);
  __mmask8 neg = _mm512_cmplt_epi64_mask(p, _mm512_setzero_si512());
  __m512i half =
      _mm512_srli_epi64(_mm512_sllv_epi64(_mm512_set1_epi64(1), s), 1);
  __m512i r = _mm512_srlv_epi64(_mm512_add_epi64(_mm512_abs_epi64(p), half), s);
  return _mm512_mask_sub_epi64(r, neg, _mm512_setzero_si512(), r);
}

/// The epilogue of 16 accumulators; m, s as 16 int32 lanes.
inline __m512i requant16(__m512i v, __m512i m, __m512i s, __m512i zp,
                         __m512i lo, __m512i hi) {
  __m512i vl = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
  __m512i vh = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
  __m512i ml = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(m));
  __m512i mh = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(m, 1));
  s = _mm512_max_epi32(_mm512_min_epi32(s, _mm512_set1_epi32(63)),
                       _mm512_setzero_si512()); // as int8EpilogueValue
  __m512i sl = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(s));
  __m512i sh = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(s, 1));
  __m512i rl = roundingMulShift(vl, ml, sl);
  __m512i rh = roundingMulShift(vh, mh, sh);
  rl = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(rl, zp), lo), hi);
  rh = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(rh, zp), lo), hi);
  __m256i yl = _mm512_cvtepi64_epi32(rl), yh = _mm512_cvtepi64_epi32(rh);
  return _mm512_inserti64x4(_mm512_castsi256_si512(yl), yh, 1);
}

void tileEpilogue(const int32_t *acc, int64_t ldacc, int64_t rows, int64_t cols,
                  int64_t row0, int64_t col0, const Int8Epilogue &e, void *out,
                  int64_t ldo) {
  __m512i zp = _mm512_set1_epi64(e.zp), lo = _mm512_set1_epi64(e.qmin),
          hi = _mm512_set1_epi64(e.qmax);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; j += 16) {
      __mmask16 mask = tailMask(cols - j);
      __m512i v = _mm512_maskz_loadu_epi32(mask, acc + i * ldacc + j);
      __m512i corr, m, s;
      if (e.perRow) {
        int64_t ch = row0 + i;
        corr = _mm512_set1_epi32(e.corr ? e.corr[ch] : 0);
        if (e.out != Int8Output::Int32) {
          m = _mm512_set1_epi32(e.multiplier[ch]);
          s = _mm512_set1_epi32(e.shift[ch]);
        }
      } else {
        int64_t ch = col0 + j;
        corr = e.corr ? _mm512_maskz_loadu_epi32(mask, e.corr + ch)
                      : _mm512_setzero_si512();
        if (e.out != Int8Output::Int32) {
          m = _mm512_maskz_loadu_epi32(mask, e.multiplier + ch);
          s = _mm512_maskz_loadu_epi32(mask, e.shift + ch);
        }
      }
      v = _mm512_add_epi32(v, corr);
      if (e.relu)
        v = _mm512_max_epi32(v, _mm512_setzero_si512());
      switch (e.out) {
      case Int8Output::Int32:
        _mm512_mask_storeu_epi32(static_cast<int32_t *>(out) + i * ldo + j,
                                 mask, v);
        break;
      case Int8Output::Int8:
      case Int8Output::UInt8:
        _mm_mask_storeu_epi8(
            static_cast<uint8_t *>(out) + i * ldo + j, mask,
            _mm512_cvtepi32_epi8(requant16(v, m, s, zp, lo, hi)));
        break;
      }
    }
  }
}

} // namespace

Int8MicrokernelInfo int8Avx512VnniMicrokernel() {
  return {kMR, 32, microkernel, tileEpilogue, depthwisePlane};
}

} // namespace strata::kernels::detail
