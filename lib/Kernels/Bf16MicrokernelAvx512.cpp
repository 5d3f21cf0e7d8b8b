//===- Bf16MicrokernelAvx512.cpp - 12x32 bf16 microkernel (vdpbf16ps) -----===//
//
// 24 zmm f32 accumulators (12 rows x 2 vectors of 16 columns); per K group
// of 2, two B vectors and one 32-bit broadcast of A (a row's two bf16), and
// 24 `vdpbf16ps`. Compiled with AVX-512 F/BW/VL/BF16; called only when the
// CPU has them.
//
//===----------------------------------------------------------------------===//

#include "Bf16Microkernels.h"

#include "strata/Kernels/Gemm.h"

#include "Avx512Tiles.h"

#include <immintrin.h>

#include <cstring>

namespace strata::kernels::detail {

namespace {

constexpr int kMR = 12;

template <int NV, int ROWS>
void kernel(int64_t groups, const uint16_t *a, const uint16_t *b,
            int64_t bPanelStride, float *c, int64_t ldc, int64_t mr, int64_t nr,
            bool accumulate) {
  __m512 acc0[ROWS], acc1[ROWS];
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    acc0[i] = _mm512_setzero_ps();
    acc1[i] = _mm512_setzero_ps();
  }
  const uint16_t *b1 = b + bPanelStride;
  for (int64_t g = 0; g < groups; ++g) {
    __m512bh bv0 = (__m512bh)_mm512_loadu_si512(b + g * 2 * kPanelCols);
    __m512bh bv1 =
        NV == 2 ? (__m512bh)_mm512_loadu_si512(b1 + g * 2 * kPanelCols) : bv0;
    const uint16_t *ag = a + g * 2 * kPanelRows;
#pragma clang loop unroll(full)
    for (int i = 0; i < ROWS; ++i) {
      int32_t pair;
      std::memcpy(&pair, ag + i * 2, 4);
      __m512bh av = (__m512bh)_mm512_set1_epi32(pair);
      acc0[i] = _mm512_dpbf16_ps(acc0[i], av, bv0);
      if (NV == 2)
        acc1[i] = _mm512_dpbf16_ps(acc1[i], av, bv1);
    }
  }
  __mmask16 m0 = tailMask(nr), m1 = tailMask(nr - 16);
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    if (i >= mr)
      break;
    float *ci = c + i * ldc;
    __m512 v0 = acc0[i], v1 = acc1[i];
    if (accumulate) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, ci));
      if (NV == 2)
        v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, ci + 16));
    }
    _mm512_mask_storeu_ps(ci, m0, v0);
    if (NV == 2 && m1)
      _mm512_mask_storeu_ps(ci + 16, m1, v1);
  }
}

void microkernel(int64_t groups, const uint16_t *a, const uint16_t *b,
                 int64_t bPanelStride, float *c, int64_t ldc, int64_t mr,
                 int64_t nr, bool accumulate) {
  withTileShape(mr, nr, [&](auto nv, auto rows) {
    kernel<decltype(nv)::value, decltype(rows)::value>(
        groups, a, b, bPanelStride, c, ldc, mr, nr, accumulate);
  });
}

} // namespace

Bf16MicrokernelInfo bf16Avx512Microkernel() { return {kMR, 32, microkernel}; }

} // namespace strata::kernels::detail
