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
#include <vector>

#include <immintrin.h>

#include <cstring>

namespace strata::kernels::detail {

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

Int8MicrokernelInfo int8Avx2Microkernel() {
  return {kMR, 16, microkernel, genericTileEpilogue, depthwisePlane};
}

} // namespace strata::kernels::detail
