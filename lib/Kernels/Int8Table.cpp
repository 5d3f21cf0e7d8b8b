//===- Int8Table.cpp - int8 -> int8 table lookup --------------------------===//
//
// strata/Kernels/Int8Table.h. The VBMI path is compiled with a target
// attribute and taken only when the CPU has it and the active ISA
// (STRATA_CPU_ISA) is AVX-512.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Int8Table.h"

#include "strata/Kernels/Isa.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace strata::kernels {

void int8TablePortable(const int8_t *in, int8_t *out, int64_t n,
                       const int8_t *table) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = table[int(in[i]) + 128];
}

#if defined(__x86_64__)
namespace {

bool hasVbmi() {
  static const bool has = __builtin_cpu_supports("avx512vbmi") &&
                          __builtin_cpu_supports("avx512bw");
  return has;
}

/// table[x + 128] for 64 bytes: entries 0-127 (inputs -128..-1) are t0:t1,
/// 128-255 (inputs 0..127) t2:t3; bit 7 of x + 128 picks the half.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) inline __m512i
lookup64(__m512i x, __m512i t0, __m512i t1, __m512i t2, __m512i t3) {
  __m512i idx = _mm512_xor_si512(x, _mm512_set1_epi8(static_cast<char>(0x80)));
  __m512i lo = _mm512_permutex2var_epi8(t0, idx, t1);
  __m512i hi = _mm512_permutex2var_epi8(t2, idx, t3);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void
tableVbmi(const int8_t *in, int8_t *out, int64_t n, const int8_t *table) {
  __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  __m512i t2 = _mm512_loadu_si512(table + 128);
  __m512i t3 = _mm512_loadu_si512(table + 192);
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    _mm512_storeu_si512(out + i,
                        lookup64(_mm512_loadu_si512(in + i), t0, t1, t2, t3));
  if (i < n) {
    __mmask64 m = (uint64_t(1) << (n - i)) - 1; // n - i < 64
    _mm512_mask_storeu_epi8(
        out + i, m,
        lookup64(_mm512_maskz_loadu_epi8(m, in + i), t0, t1, t2, t3));
  }
}

} // namespace
#endif

void int8Table(const int8_t *in, int8_t *out, int64_t n, const int8_t *table) {
#if defined(__x86_64__)
  if (n >= 64 && activeIsa() == Isa::Avx512 && hasVbmi()) {
    tableVbmi(in, out, n, table);
    return;
  }
#endif
  int8TablePortable(in, out, n, table);
}

void int8TableChannelsPortable(const int8_t *in, int8_t *out, int64_t first,
                               int64_t last, int64_t channels, int64_t inner,
                               const int8_t *tables) {
  for (int64_t i = first; i < last; ++i)
    out[i] = tables[256 * ((i / inner) % channels) + int(in[i]) + 128];
}

void int8TableChannels(const int8_t *in, int8_t *out, int64_t first,
                       int64_t last, int64_t channels, int64_t inner,
                       const int8_t *tables) {
  if (inner < 64) {
    int8TableChannelsPortable(in, out, first, last, channels, inner, tables);
    return;
  }
  for (int64_t i = first; i < last;) {
    int64_t plane = i / inner;
    int64_t end = std::min(last, (plane + 1) * inner);
    int8Table(in + i, out + i, end - i, tables + 256 * (plane % channels));
    i = end;
  }
}

} // namespace strata::kernels
