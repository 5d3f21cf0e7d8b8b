//===- Int8MicrokernelAvx2.cpp - 4x16 int8 microkernel (AVX2) -------------===//
//
// AVX2 without VNNI. `vpmaddubsw` would saturate its 16-bit pair sums, so
// both operands are widened to 16 bits instead: the even and odd bytes of
// each 4-byte K group split into two registers (sign- or zero-extended),
// and two `vpmaddwd` give k0*k0' + k2*k2' and k1*k1' + k3*k3' per column,
// exact (|u8 * s8| < 2^15, a pair sum < 2^17). 8 accumulators (4 rows x 2
// vectors of 8 columns), 4 widened B vectors, 2 widened A broadcasts.
// Compiled with -mavx2; called only when the CPU has AVX2.
//
//===----------------------------------------------------------------------===//

#include "Int8Microkernels.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include <immintrin.h>

#include <cstring>

namespace strata::kernels::detail {

#define STRATA_INT8_DEPTHWISE_ROWS
#include "Int8AddImpl.inc"
#include "Int8DepthwiseImpl.inc"
#include "Int8EpilogueImpl.inc"

namespace {

constexpr int kMR = 4;

/// The even and odd bytes of each 16-bit lane, extended to 16 bits.
template <bool Unsigned>
inline void widen(__m256i x, __m256i &even, __m256i &odd) {
  if (Unsigned) {
    even = _mm256_and_si256(x, _mm256_set1_epi16(0x00ff));
    odd = _mm256_srli_epi16(x, 8);
  } else {
    even = _mm256_srai_epi16(_mm256_slli_epi16(x, 8), 8);
    odd = _mm256_srai_epi16(x, 8);
  }
}

inline __m256i broadcast32(const uint8_t *p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

template <int ROWS, bool AUnsigned>
void kernel(int64_t groups, const uint8_t *a, const uint8_t *b, int32_t *c,
            int64_t ldc, int64_t mr, int64_t nr, bool accumulate) {
  __m256i acc0[ROWS], acc1[ROWS];
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    acc0[i] = _mm256_setzero_si256();
    acc1[i] = _mm256_setzero_si256();
  }
  for (int64_t g = 0; g < groups; ++g) {
    __m256i be0, bo0, be1, bo1;
    widen<!AUnsigned>(
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + g * 64)), be0,
        bo0);
    widen<!AUnsigned>(
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + g * 64 + 32)),
        be1, bo1);
    const uint8_t *ag = a + g * 4 * kPanelRows;
#pragma clang loop unroll(full)
    for (int i = 0; i < ROWS; ++i) {
      __m256i ae, ao;
      widen<AUnsigned>(broadcast32(ag + i * 4), ae, ao);
      acc0[i] = _mm256_add_epi32(acc0[i], _mm256_madd_epi16(ae, be0));
      acc0[i] = _mm256_add_epi32(acc0[i], _mm256_madd_epi16(ao, bo0));
      acc1[i] = _mm256_add_epi32(acc1[i], _mm256_madd_epi16(ae, be1));
      acc1[i] = _mm256_add_epi32(acc1[i], _mm256_madd_epi16(ao, bo1));
    }
  }
  alignas(32) int32_t tile[16];
  for (int i = 0; i < ROWS && i < mr; ++i) {
    _mm256_store_si256(reinterpret_cast<__m256i *>(tile), acc0[i]);
    _mm256_store_si256(reinterpret_cast<__m256i *>(tile + 8), acc1[i]);
    int32_t *ci = c + i * ldc;
    for (int64_t j = 0; j < nr; ++j)
      ci[j] =
          accumulate ? int32_t(uint32_t(ci[j]) + uint32_t(tile[j])) : tile[j];
  }
}

void microkernel(int64_t groups, const uint8_t *a, const uint8_t *b,
                 int64_t /*bPanelStride*/, int32_t *c, int64_t ldc, int64_t mr,
                 int64_t nr, bool accumulate, bool aUnsigned) {
  if (aUnsigned)
    return mr > 2 ? kernel<4, true>(groups, a, b, c, ldc, mr, nr, accumulate)
                  : kernel<2, true>(groups, a, b, c, ldc, mr, nr, accumulate);
  return mr > 2 ? kernel<4, false>(groups, a, b, c, ldc, mr, nr, accumulate)
                : kernel<2, false>(groups, a, b, c, ldc, mr, nr, accumulate);
}

} // namespace

namespace {

/// As the AVX-512 depthwise (Int8MicrokernelAvx512Vnni.cpp): the 32-bit
/// lane of output column ox holds the inputs of taps kx and kx + 1 (for
/// stride 2 straight from the padded plane, for stride 1 from a pair plane),
/// so one `vpmaddwd` with the weights (w[kx], w[kx + 1]) does both; 8
/// output columns of four rows at a time. Dilation 1, stride 1 or 2.
template <int SW>
void depthwisePairsAvx2(const Conv2dShape &s, const int16_t *pad, int64_t pw,
                        const int8_t *w, int32_t *acc) {
  int32_t pairW[64];
  int64_t pairsPerRow = tapPairWeights(s, w, pairW);
  __m256i wv[64];
  for (int64_t t = 0; t < s.kh * pairsPerRow; ++t)
    wv[t] = _mm256_set1_epi32(pairW[t]);
  const int32_t *pairs = SW == 1 ? pairPlaneOf(s, pad, pw) : nullptr;
  auto rows = [&](auto rowsTag, int64_t oy0) {
    constexpr int ROWS = decltype(rowsTag)::value;
    for (int64_t ox = 0; ox < s.ow; ox += 8) {
      __m256i a[ROWS];
      for (int r = 0; r < ROWS; ++r)
        a[r] = _mm256_setzero_si256();
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t q = 0; q < pairsPerRow; ++q) {
          __m256i wq = wv[ky * pairsPerRow + q];
          for (int r = 0; r < ROWS; ++r) {
            int64_t rowAt = ((oy0 + r) * s.sh + ky * s.dh) * pw;
            const void *src =
                SW == 1
                    ? static_cast<const void *>(pairs + rowAt + ox + 2 * q)
                    : static_cast<const void *>(pad + rowAt + 2 * ox + 2 * q);
            __m256i v =
                _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src));
            a[r] = _mm256_add_epi32(a[r], _mm256_madd_epi16(v, wq));
          }
        }
      int64_t left = s.ow - ox;
      for (int r = 0; r < ROWS; ++r) {
        int32_t *dst = acc + (oy0 + r) * s.ow + ox;
        if (left >= 8) {
          _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst), a[r]);
        } else {
          alignas(32) int32_t tmp[8];
          _mm256_store_si256(reinterpret_cast<__m256i *>(tmp), a[r]);
          for (int64_t i = 0; i < left; ++i)
            dst[i] = tmp[i];
        }
      }
    }
  };
  int64_t oy = 0;
  for (; oy + 4 <= s.oh; oy += 4)
    rows(std::integral_constant<int, 4>(), oy);
  for (; oy < s.oh; ++oy)
    rows(std::integral_constant<int, 1>(), oy);
}

void depthwisePlane(const Conv2dShape &s, const void *x, bool isUnsigned,
                    int32_t zp, const int8_t *w, int32_t *acc) {
  int64_t pw;
  int16_t *pad = paddedPlaneOf(s, x, isUnsigned, zp, pw);
  bool fits = s.kh * ((s.kw + 1) / 2) <= 64 && s.dw == 1;
  if (fits && s.sw == 1)
    depthwisePairsAvx2<1>(s, pad, pw, w, acc);
  else if (fits && s.sw == 2)
    depthwisePairsAvx2<2>(s, pad, pw, w, acc);
  else if (s.sw == 1)
    depthwiseRows<1>(s, pad, pw, w, acc);
  else if (s.sw == 2)
    depthwiseRows<2>(s, pad, pw, w, acc);
  else
    depthwiseRows<0>(s, pad, pw, w, acc);
}

} // namespace

Int8MicrokernelInfo int8Avx2Microkernel() {
  return {kMR,     16,     microkernel, genericTileEpilogue, depthwisePlane,
          nullptr, addLoop};
}

} // namespace strata::kernels::detail
