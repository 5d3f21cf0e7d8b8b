//===- Table16.cpp - int16 -> int8 interpolated table lookup --------------===//
//
// strata/Kernels/Table16.h. The vector paths are compiled with target
// attributes and taken by the active ISA (STRATA_CPU_ISA). The int32
// input's requantization stays scalar (exact 64-bit products, one plane's
// multiplier at a time) into a small int16 block the lookup then reads.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Table16.h"

#include "strata/Kernels/Isa.h"
#include "strata/Support/IntegerTable16.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace strata::kernels {

namespace {

/// The int16 value of input element i.
inline int16_t inputAt(const void *in, int64_t i, const Table16Args &a) {
  if (!a.int32Input)
    return static_cast<const int16_t *>(in)[i];
  int64_t c = (i / a.inner) % a.channels;
  return static_cast<int16_t>(intq::requantMultiplierShift(
      static_cast<const int32_t *>(in)[i], a.multiplier[c], a.shift[c],
      a.zeroPoint, -32768, 32767));
}

} // namespace

void table16Portable(const void *in, int8_t *out, int64_t first, int64_t last,
                     const Table16Args &a) {
  for (int64_t i = first; i < last; ++i)
    out[i] = intq::table16Lookup(a.table, inputAt(in, i, a), a.qmin, a.qmax);
}

#if defined(__x86_64__)
namespace {

/// 16 lookups of int16 values held in int32 lanes: the gather at byte
/// offset 2 * index reads entry index (low half) and index + 1 (high
/// half); then TOSA's interpolation, the rounding shift by 14 (ties away
/// from zero: floor((v + 2^13 - (v < 0)) / 2^14)) and the clamp.
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline __m128i
lookup16Avx512(__m512i x, const int16_t *table, __m512i qmin, __m512i qmax) {
  __m512i u = _mm512_add_epi32(x, _mm512_set1_epi32(32768));
  __m512i index = _mm512_srli_epi32(u, 7);
  __m512i fraction = _mm512_and_si512(u, _mm512_set1_epi32(127));
  __m512i g = _mm512_i32gather_epi32(index, table, 2);
  __m512i base = _mm512_srai_epi32(_mm512_slli_epi32(g, 16), 16);
  __m512i next = _mm512_srai_epi32(g, 16);
  __m512i v = _mm512_add_epi32(
      _mm512_slli_epi32(base, 7),
      _mm512_mullo_epi32(_mm512_sub_epi32(next, base), fraction));
  __m512i bias = _mm512_add_epi32(_mm512_set1_epi32(1 << 13),
                                  _mm512_srai_epi32(v, 31)); // -1 if v < 0
  __m512i y = _mm512_srai_epi32(_mm512_add_epi32(v, bias), 14);
  y = _mm512_min_epi32(_mm512_max_epi32(y, qmin), qmax);
  return _mm512_cvtepi32_epi8(y);
}

__attribute__((target("avx512f,avx512bw,avx512vl"))) void
table16Avx512(const int16_t *in, int8_t *out, int64_t n, const int16_t *table,
              int64_t qmin, int64_t qmax) {
  __m512i lo = _mm512_set1_epi32(int32_t(qmin)),
          hi = _mm512_set1_epi32(int32_t(qmax));
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(out + i),
        lookup16Avx512(_mm512_cvtepi16_epi32(_mm256_loadu_si256(
                           reinterpret_cast<const __m256i *>(in + i))),
                       table, lo, hi));
  if (i < n) {
    __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    __m128i r = lookup16Avx512(
        _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, in + i)), table, lo,
        hi);
    _mm_mask_storeu_epi8(out + i, m, r);
  }
}

/// intq::requantMultiplierShift of 8 int32 values (sign-extended in 64-bit
/// lanes) to int16 with one multiplier and shift: the exact 64-bit product
/// (|x * m| < 2^62), its magnitude plus half shifted right (ties away from
/// zero), the sign restored, clamped to [-32768 - zp, 32767 - zp].
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline __m512i
requant8Avx512(__m512i x64, __m512i m, __m512i half, __m128i shift, __m512i lo,
               __m512i hi) {
  __m512i p = _mm512_mul_epi32(x64, m);
  __m512i r =
      _mm512_srl_epi64(_mm512_add_epi64(_mm512_abs_epi64(p), half), shift);
  __mmask8 negative = _mm512_cmplt_epi64_mask(p, _mm512_setzero_si512());
  r = _mm512_mask_sub_epi64(r, negative, _mm512_setzero_si512(), r);
  return _mm512_min_epi64(_mm512_max_epi64(r, lo), hi);
}

/// int32 accumulators of one channel plane requantized to int16 (multiplier
/// m, shift s, zero point zp) and looked up, 16 at a time.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
requantTable16Avx512(const int32_t *in, int8_t *out, int64_t n, int64_t m,
                     int64_t s, int64_t zp, const int16_t *table, int64_t qmin,
                     int64_t qmax) {
  __m512i mv = _mm512_set1_epi64(m);
  __m512i half = _mm512_set1_epi64(s > 0 ? int64_t(1) << (s - 1) : 0);
  __m128i shift = _mm_cvtsi64_si128(s);
  __m512i lo = _mm512_set1_epi64(-32768 - zp),
          hi = _mm512_set1_epi64(32767 - zp);
  __m512i zpv = _mm512_set1_epi32(int32_t(zp));
  __m512i olo = _mm512_set1_epi32(int32_t(qmin)),
          ohi = _mm512_set1_epi32(int32_t(qmax));
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 k = n - i >= 16 ? __mmask16(0xFFFF)
                              : static_cast<__mmask16>((1u << (n - i)) - 1);
    __m512i x = _mm512_maskz_loadu_epi32(k, in + i);
    __m512i a = requant8Avx512(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(x)),
                               mv, half, shift, lo, hi);
    __m512i b =
        requant8Avx512(_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(x, 1)),
                       mv, half, shift, lo, hi);
    __m512i q = _mm512_add_epi32(
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(a)),
                           _mm512_cvtepi64_epi32(b), 1),
        zpv);
    _mm_mask_storeu_epi8(out + i, k, lookup16Avx512(q, table, olo, ohi));
  }
}

/// 8 lookups, as lookup16Avx512.
__attribute__((target("avx2"))) inline __m256i
lookup8Avx2(__m128i x16, const int16_t *table, __m256i qmin, __m256i qmax) {
  __m256i u =
      _mm256_add_epi32(_mm256_cvtepi16_epi32(x16), _mm256_set1_epi32(32768));
  __m256i index = _mm256_srli_epi32(u, 7);
  __m256i fraction = _mm256_and_si256(u, _mm256_set1_epi32(127));
  __m256i g =
      _mm256_i32gather_epi32(reinterpret_cast<const int *>(table), index, 2);
  __m256i base = _mm256_srai_epi32(_mm256_slli_epi32(g, 16), 16);
  __m256i next = _mm256_srai_epi32(g, 16);
  __m256i v = _mm256_add_epi32(
      _mm256_slli_epi32(base, 7),
      _mm256_mullo_epi32(_mm256_sub_epi32(next, base), fraction));
  __m256i bias =
      _mm256_add_epi32(_mm256_set1_epi32(1 << 13), _mm256_srai_epi32(v, 31));
  __m256i y = _mm256_srai_epi32(_mm256_add_epi32(v, bias), 14);
  return _mm256_min_epi32(_mm256_max_epi32(y, qmin), qmax);
}

__attribute__((target("avx2"))) void table16Avx2(const int16_t *in, int8_t *out,
                                                 int64_t n,
                                                 const int16_t *table,
                                                 int64_t qmin, int64_t qmax) {
  __m256i lo = _mm256_set1_epi32(int32_t(qmin)),
          hi = _mm256_set1_epi32(int32_t(qmax));
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i y =
        lookup8Avx2(_mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i)),
                    table, lo, hi);
    // 8 int32 in [-128, 127] -> 8 bytes.
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(y),
                                _mm256_extracti128_si256(y, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i *>(out + i),
                     _mm_packs_epi16(w, w));
  }
  for (; i < n; ++i)
    out[i] = intq::table16Lookup(table, in[i], qmin, qmax);
}

} // namespace
#endif

void table16OnIsa(const void *in, int8_t *out, int64_t first, int64_t last,
                  const Table16Args &a, Isa isa) {
#if defined(__x86_64__)
  static const bool bwVl =
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  if (isa == Isa::Avx512 && (!isaSupported(Isa::Avx512) || !bwVl))
    isa = Isa::Avx2;
  if (isa == Isa::Avx2 && !isaSupported(Isa::Avx2))
    isa = Isa::Portable;
  if (isa != Isa::Portable) {
    auto run = [&](const int16_t *src, int8_t *dst, int64_t n) {
      if (isa == Isa::Avx512)
        table16Avx512(src, dst, n, a.table, a.qmin, a.qmax);
      else
        table16Avx2(src, dst, n, a.table, a.qmin, a.qmax);
    };
    if (!a.int32Input) {
      run(static_cast<const int16_t *>(in) + first, out + first, last - first);
      return;
    }
    // A plane piece of at most 256 elements at a time, one multiplier:
    // AVX-512 requantizes in registers; AVX2 into an int16 block first.
    const int32_t *acc = static_cast<const int32_t *>(in);
    int16_t block[256];
    for (int64_t i = first; i < last;) {
      int64_t plane = i / a.inner;
      int64_t end = std::min({last, i + 256, (plane + 1) * a.inner});
      int64_t c = plane % a.channels;
      int64_t m = a.multiplier[c], s = a.shift[c], zp = a.zeroPoint;
      if (isa == Isa::Avx512) {
        requantTable16Avx512(acc + i, out + i, end - i, m, s, zp, a.table,
                             a.qmin, a.qmax);
        i = end;
        continue;
      }
      for (int64_t k = i; k < end; ++k)
        block[k - i] = static_cast<int16_t>(
            intq::requantMultiplierShift(acc[k], m, s, zp, -32768, 32767));
      run(block, out + i, end - i);
      i = end;
    }
    return;
  }
#else
  (void)isa;
#endif
  table16Portable(in, out, first, last, a);
}

void table16(const void *in, int8_t *out, int64_t first, int64_t last,
             const Table16Args &a) {
  table16OnIsa(in, out, first, last, a, activeIsa());
}

} // namespace strata::kernels
