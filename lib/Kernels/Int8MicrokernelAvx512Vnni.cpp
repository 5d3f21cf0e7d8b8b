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
#include <type_traits>
#include <vector>

#include "Avx512Tiles.h"

#include <immintrin.h>

#include <cstring>

namespace strata::kernels::detail {

namespace {
/// One input row of the depthwise padded plane: src[i] - z as int16 (the
/// difference fits), 32 per masked vector, so short rows (7, 14 columns)
/// take one step.
template <typename T>
inline void padRow(const T *src, int64_t w, int16_t z, int16_t *dst) {
  __m512i zv = _mm512_set1_epi16(z);
  for (int64_t i = 0; i < w; i += 32) {
    __mmask32 m = w - i >= 32 ? ~__mmask32(0) : (__mmask32(1) << (w - i)) - 1;
    __m256i b = _mm256_maskz_loadu_epi8(m, src + i);
    __m512i v = std::is_same_v<T, uint8_t> ? _mm512_cvtepu8_epi16(b)
                                           : _mm512_cvtepi8_epi16(b);
    _mm512_mask_storeu_epi16(dst + i, m, _mm512_sub_epi16(v, zv));
  }
}
} // namespace

#define STRATA_INT8_DEPTHWISE_ROWS
#define STRATA_INT8_PAD_ROW
#include "Int8DepthwiseImpl.inc"
#include "Int8EpilogueImpl.inc"

namespace {

constexpr int kMR = 12;

inline __m512i broadcast32(const uint8_t *p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

/// acc += the u8 x s8 products of b's 64 bytes and the broadcast 4-byte
/// group at p (a memory operand with embedded broadcast: with the
/// intrinsics the compiler hoists a K group's 12 broadcasts into registers
/// ahead of other work in the loop and spills accumulators).
__attribute__((always_inline)) inline void
dpbusdBroadcast(__m512i &acc, __m512i b, const uint8_t *p) {
  asm("vpdpbusd %2%{1to16%}, %1, %0"
      : "+v"(acc)
      : "v"(b), "m"(*reinterpret_cast<const int32_t *>(p)));
}

/// No work between K groups (products' default).
struct NoHook {
  void operator()(int64_t) const {}
};

/// The tile's products: acc0 / acc1 (columns 0-15 / 16-31) of ROWS rows,
/// from zero or (`Accumulate`) added to their values on entry; `hook(g)`
/// runs after K group g (with a hook the broadcasts are memory operands,
/// dpbusdBroadcast; A must hold the signed operand).
template <int NV, int ROWS, bool AUnsigned, bool Accumulate = false,
          typename Hook = NoHook>
__attribute__((always_inline)) inline void
products(int64_t groups, const uint8_t *a, const uint8_t *b,
         int64_t bPanelStride, __m512i (&acc0)[ROWS], __m512i (&acc1)[ROWS],
         Hook hook = Hook()) {
  constexpr bool kMemBroadcast = !std::is_same_v<Hook, NoHook>;
  static_assert(!kMemBroadcast || !AUnsigned);
  if (!Accumulate) {
#pragma clang loop unroll(full)
    for (int i = 0; i < ROWS; ++i) {
      acc0[i] = _mm512_setzero_si512();
      acc1[i] = _mm512_setzero_si512();
    }
  }
  const uint8_t *b1 = b + bPanelStride;
  for (int64_t g = 0; g < groups; ++g) {
    __m512i bv0 = _mm512_loadu_si512(b + g * 64);
    __m512i bv1 = NV == 2 ? _mm512_loadu_si512(b1 + g * 64) : bv0;
    const uint8_t *ag = a + g * 4 * kPanelRows;
#pragma clang loop unroll(full)
    for (int i = 0; i < ROWS; ++i) {
      if (kMemBroadcast) {
        dpbusdBroadcast(acc0[i], bv0, ag + i * 4);
        if (NV == 2)
          dpbusdBroadcast(acc1[i], bv1, ag + i * 4);
        continue;
      }
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
    hook(g);
  }
}

/// products (A signed, accumulating, broadcasts as memory operands) with
/// B read in place (Int8InPlaceWalk): the K groups tap by tap, each tap's
/// 4-channel quads `quadStride` bytes apart; columns 16-31 64 bytes after
/// columns 0-15.
template <int NV, int ROWS, bool Masked, typename Hook>
__attribute__((always_inline)) inline void
productsInPlace(const uint8_t *a, const uint8_t *b, const Int8InPlaceWalk &w,
                __m512i (&acc0)[ROWS], __m512i (&acc1)[ROWS], Hook hook) {
  int64_t g = 0, kx = 0;
  __m512i pad = _mm512_set1_epi32(int32_t(w.pad));
  for (int64_t t = 0; t < w.taps; ++t) {
    const uint8_t *bt = b + w.tap[t];
    __mmask16 k0 = Masked ? w.mask[2 * kx] : 0,
              k1 = Masked ? w.mask[2 * kx + 1] : 0;
    if (Masked && ++kx == w.kw)
      kx = 0;
    for (int64_t q = 0; q < w.groupsPerTap; ++q, ++g, bt += w.quadStride) {
      __m512i bv0 = Masked ? _mm512_mask_loadu_epi32(pad, k0, bt)
                           : _mm512_loadu_si512(bt);
      __m512i bv1 = NV != 2  ? bv0
                    : Masked ? _mm512_mask_loadu_epi32(pad, k1, bt + 64)
                             : _mm512_loadu_si512(bt + 64);
      const uint8_t *ag = a + g * 4 * kPanelRows;
#pragma clang loop unroll(full)
      for (int i = 0; i < ROWS; ++i) {
        dpbusdBroadcast(acc0[i], bv0, ag + i * 4);
        if (NV == 2)
          dpbusdBroadcast(acc1[i], bv1, ag + i * 4);
      }
      hook(g);
    }
  }
}

template <int NV, int ROWS, bool AUnsigned>
void kernel(int64_t groups, const uint8_t *a, const uint8_t *b,
            int64_t bPanelStride, int32_t *c, int64_t ldc, int64_t mr,
            int64_t nr, bool accumulate) {
  __m512i acc0[ROWS], acc1[ROWS];
  products<NV, ROWS, AUnsigned>(groups, a, b, bPanelStride, acc0, acc1);
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
  withTileShape(mr, nr, [&](auto nv, auto rows) {
    kernel<decltype(nv)::value, decltype(rows)::value, AUnsigned>(
        groups, a, b, bPanelStride, c, ldc, mr, nr, accumulate);
  });
}

void microkernel(int64_t groups, const uint8_t *a, const uint8_t *b,
                 int64_t bPanelStride, int32_t *c, int64_t ldc, int64_t mr,
                 int64_t nr, bool accumulate, bool aUnsigned) {
  if (aUnsigned)
    microkernelT<true>(groups, a, b, bPanelStride, c, ldc, mr, nr, accumulate);
  else
    microkernelT<false>(groups, a, b, bPanelStride, c, ldc, mr, nr, accumulate);
}

/// Int8FusedRows' r for 16 int32 lanes (corr added) of one row: the
/// unsigned products |v| * m' of the even lanes and of the odd lanes
/// (shifted down), each + h; the even ones shifted right by s' (the result
/// in the low dword), the odd ones by s' - 32 (the result in the high
/// dword), blended, the sign put back. Mode (Int8FusedRows::rounding): 0
/// ties away from zero; 1 ties up (TosaSingleRound): h - 1 for negative
/// lanes, since floor((v m + h) / 2^s) = -((|v| m + h - 1) >> s) for v <
/// 0; 2 (TFLiteHalfUp) the ties-up product rounding (the SRDHM, with s' =
/// 32) then stage2's shift.
template <bool Relu, int Mode = 0>
inline __m512i fusedRequant16(__m512i v, __m512i m, __m512i s, __m512i s32,
                              __m512i h) {
  __m512i zero = _mm512_setzero_si512();
  __mmask16 neg = 0;
  __m512i signEven = zero, signOdd = zero;
  if (Relu) {
    v = _mm512_max_epi32(v, zero);
  } else {
    if (Mode != 0) { // -1 in the 64-bit lanes whose even / odd dword is < 0
      signEven = _mm512_srai_epi64(_mm512_slli_epi64(v, 32), 63);
      signOdd = _mm512_srai_epi64(v, 63);
    }
    neg = _mm512_movepi32_mask(v);
    v = _mm512_abs_epi32(v); // INT32_MIN -> 2^31 unsigned
  }
  __m512i pe = _mm512_mul_epu32(v, m);
  __m512i po = _mm512_mul_epu32(_mm512_srli_epi64(v, 32), m);
  __m512i he = h, ho = h;
  if (!Relu && Mode != 0) {
    he = _mm512_add_epi64(h, signEven);
    ho = _mm512_add_epi64(h, signOdd);
  }
  pe = _mm512_srlv_epi64(_mm512_add_epi64(pe, he), s);
  po = _mm512_srlv_epi64(_mm512_add_epi64(po, ho), s32);
  __m512i r = _mm512_mask_blend_epi32(__mmask16(0xaaaa), pe, po);
  if (!Relu)
    r = _mm512_mask_sub_epi32(r, neg, zero, r);
  return r;
}

/// TFLiteHalfUp's second rounding of 16 int32 lanes r (Mode 2; the others
/// return r): (r + 2^(e-1)) >> e as (r >> e) + bit e - 1 of r (no
/// overflow), with `one` 0 for e = 0 (then e1 = 0).
template <int Mode>
inline __m512i stage2(__m512i r, __m512i e, __m512i e1, __m512i one) {
  if (Mode != 2)
    return r;
  return _mm512_add_epi32(_mm512_srav_epi32(r, e),
                          _mm512_and_si512(_mm512_srav_epi32(r, e1), one));
}

/// Two vectors of 16 int32 r (Int8FusedRows) as 32 bytes y = clamp(r +
/// zp, qmin, qmax): int32 -> int16 (saturating), + zp (saturating), the
/// clamp, -> 8 bits (saturating), the dwords put in order (`order`).
/// Without `clamp` ([qmin, qmax] the whole output type) the last
/// saturating narrowing is the clamp.
inline __m256i narrowPair(__m512i r0, __m512i r1, __m512i zp16, __m512i lo16,
                          __m512i hi16, __m512i order, bool isUnsigned,
                          bool clamp = true) {
  __m512i w = _mm512_adds_epi16(_mm512_packs_epi32(r0, r1), zp16);
  if (clamp)
    w = _mm512_min_epi16(_mm512_max_epi16(w, lo16), hi16);
  w = isUnsigned ? _mm512_packus_epi16(w, w) : _mm512_packs_epi16(w, w);
  return _mm512_castsi512_si256(_mm512_permutexvar_epi32(order, w));
}

/// After the packs, dword 4L (4L + 1) holds lane L's 4 bytes of the first
/// (second) vector.
inline __m512i narrowOrder() {
  return _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
}

/// narrowPair's per-call vectors of Int8FusedRows (zp, qmin, qmax, the
/// dword order). Built once before a row loop: the rows' byte stores may
/// alias `fr`, so per-row broadcasts would be reloaded every row.
struct NarrowConsts {
  __m512i zp16, lo16, hi16, order;
  explicit NarrowConsts(const Int8FusedRows &fr)
      : zp16(_mm512_set1_epi16(fr.zp)), lo16(_mm512_set1_epi16(fr.qmin)),
        hi16(_mm512_set1_epi16(fr.qmax)), order(narrowOrder()) {}
};

/// Row `ch` of Int8FusedRows applied to its 32 sums v0, v1 (corrections
/// added; v1 only with `both`): 32 bytes in column order. Mode as
/// withRequantForm gives it (3: rounding 0, full-range output).
template <bool Relu, int Mode>
__attribute__((always_inline)) inline __m256i
requantRow(__m512i v0, __m512i v1, bool both, const Int8FusedRows &fr,
           const NarrowConsts &k, int64_t ch) {
  constexpr int R = Mode == 3 ? 0 : Mode;
  __m512i m = _mm512_set1_epi64(fr.m[ch]), s = _mm512_set1_epi64(fr.s[ch]),
          s32 = _mm512_set1_epi64(fr.s[ch] - 32),
          h = _mm512_set1_epi64(fr.h[ch]);
  __m512i r0 = fusedRequant16<Relu, R>(v0, m, s, s32, h);
  __m512i r1 = both ? fusedRequant16<Relu, R>(v1, m, s, s32, h) : r0;
  if (Mode == 2) {
    int64_t e = fr.e2[ch];
    __m512i ev = _mm512_set1_epi32(int32_t(e)),
            e1 = _mm512_set1_epi32(int32_t(e > 0 ? e - 1 : 0)),
            one = _mm512_set1_epi32(e > 0 ? 1 : 0);
    r0 = stage2<Mode>(r0, ev, e1, one);
    r1 = stage2<Mode>(r1, ev, e1, one);
  }
  return narrowPair(r0, r1, k.zp16, k.lo16, k.hi16, k.order, fr.isUnsigned,
                    Mode != 3);
}

/// fn(i, v0, v1) for the tile's rows i < mr: the accumulators acc0[i],
/// acc1[i] plus row i of the int32 tile `partial` (row stride ldp, the
/// tile's nr columns) when there is one.
template <int NV, int ROWS, typename Fn>
__attribute__((always_inline)) inline void
forEachRow(const __m512i (&acc0)[ROWS], const __m512i (&acc1)[ROWS], int64_t mr,
           int64_t nr, const int32_t *partial, int64_t ldp, Fn fn) {
  __mmask16 m0 = tailMask(nr), m1 = tailMask(nr - 16);
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    if (i >= mr)
      break;
    __m512i v0 = acc0[i], v1 = acc1[i];
    if (partial) {
      v0 =
          _mm512_add_epi32(v0, _mm512_maskz_loadu_epi32(m0, partial + i * ldp));
      if (NV == 2)
        v1 = _mm512_add_epi32(
            v1, _mm512_maskz_loadu_epi32(m1, partial + i * ldp + 16));
    }
    fn(i, v0, v1);
  }
}

/// Requantizes and writes row i of the pending tile `pt` as
/// Int8FusedRows says (the corrections are already in the sums).
template <bool Relu, int Mode>
__attribute__((always_inline)) inline void
pendingRow(const Int8FusedRows &fr, const Int8PendingTile &pt, int64_t i) {
  const int32_t *v = pt.acc + i * 32;
  __m256i bytes =
      requantRow<Relu, Mode>(_mm512_load_si512(v), _mm512_load_si512(v + 16),
                             pt.nv == 2, fr, NarrowConsts(fr), pt.row + i);
  uint8_t *o = pt.out + i * pt.ldo;
  for (int k = 0; k < pt.stores.count; ++k)
    _mm256_mask_storeu_epi8(o + pt.stores.at[k], pt.stores.mask[k], bytes);
}

/// Int8PipelinedMicrokernel: the products start from the corrections;
/// the pending tile's rows are requantized spread over the K loop (row r
/// after group ceil(r G / R)), the rest after it; then this tile's sums
/// (plus `partial`) become the pending tile.
template <int NV, int ROWS, bool Relu, int Mode>
void pipelinedKernel(int64_t groups, const uint8_t *a, const uint8_t *b,
                     int64_t bPanelStride, const int32_t *partial, int64_t ldp,
                     int64_t mr, int64_t nr, const Int8FusedRows &fr,
                     int64_t row, uint8_t *out, int64_t ldo,
                     const Int8TileStores &st, Int8PendingTile &pt,
                     const Int8InPlaceWalk *walk) {
  __m512i acc0[ROWS], acc1[ROWS];
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i) {
    acc0[i] =
        i < mr ? _mm512_set1_epi32(fr.corr[row + i]) : _mm512_setzero_si512();
    acc1[i] = acc0[i];
  }
  int64_t pending = pt.mr, next = 0;
  auto hook = [&](int64_t g) {
    if (next < pending && next * groups <= g * pending)
      pendingRow<Relu, Mode>(fr, pt, next++);
  };
  if (walk && walk->mask)
    productsInPlace<NV, ROWS, true>(a, b, *walk, acc0, acc1, hook);
  else if (walk)
    productsInPlace<NV, ROWS, false>(a, b, *walk, acc0, acc1, hook);
  else
    products<NV, ROWS, false, true>(groups, a, b, bPanelStride, acc0, acc1,
                                    hook);
  for (; next < pending; ++next)
    pendingRow<Relu, Mode>(fr, pt, next);
  forEachRow<NV>(acc0, acc1, mr, nr, partial, ldp,
                 [&](int i, __m512i v0, __m512i v1) {
                   _mm512_store_si512(pt.acc + i * 32, v0);
                   if (NV == 2)
                     _mm512_store_si512(pt.acc + i * 32 + 16, v1);
                 });
  pt.mr = mr;
  pt.nv = NV;
  pt.row = row;
  pt.out = out;
  pt.ldo = ldo;
  pt.stores = st;
}

/// Calls fn(Relu, Mode) (std::integral_constant) for `fr`: Mode the
/// rounding, or 3 for rounding 0 onto the whole output type (the
/// narrowing's saturation is the clamp: two operations fewer per row).
template <typename Fn>
inline void withRequantForm(const Int8FusedRows &fr, Fn fn) {
  bool full = fr.isUnsigned ? fr.qmin == 0 && fr.qmax == 255
                            : fr.qmin == -128 && fr.qmax == 127;
  auto withMode = [&](auto relu) {
    if (fr.rounding == 1)
      fn(relu, std::integral_constant<int, 1>());
    else if (fr.rounding == 2)
      fn(relu, std::integral_constant<int, 2>());
    else if (full)
      fn(relu, std::integral_constant<int, 3>());
    else
      fn(relu, std::integral_constant<int, 0>());
  };
  if (fr.relu)
    withMode(std::true_type());
  else
    withMode(std::false_type());
}

void pipelinedMicrokernel(const Int8TileCall &c, Int8PendingTile &pt) {
  withTileShape(c.mr, c.nr, [&](auto nv, auto rows) {
    withRequantForm(*c.rows, [&](auto relu, auto mode) {
      pipelinedKernel<decltype(nv)::value, decltype(rows)::value,
                      decltype(relu)::value, decltype(mode)::value>(
          c.groups, c.a, c.b, c.bPanelStride, c.partial, c.ldp, c.mr, c.nr,
          *c.rows, c.row, c.out, c.ldo, *c.stores, pt, c.walk);
    });
  });
}

void pipelineFlush(const Int8FusedRows &fr, Int8PendingTile &pt) {
  withRequantForm(fr, [&](auto relu, auto mode) {
    for (int64_t i = 0; i < pt.mr; ++i)
      pendingRow<decltype(relu)::value, decltype(mode)::value>(fr, pt, i);
  });
  pt.mr = 0;
}

/// Int8FusedMicrokernel: the tile requantized right after its K loop, in
/// the accumulator registers (no round trip through a pending tile: for
/// short K loops, where the pipeline's stores and loads cost more than the
/// overlap saves).
template <int NV, int ROWS, bool Relu, int Mode>
void fusedKernel(int64_t groups, const uint8_t *a, const uint8_t *b,
                 int64_t bPanelStride, const int32_t *partial, int64_t ldp,
                 int64_t mr, int64_t nr, const Int8FusedRows &fr, int64_t row,
                 uint8_t *out, int64_t ldo, const Int8TileStores &st) {
  __m512i acc0[ROWS], acc1[ROWS];
  products<NV, ROWS, false>(groups, a, b, bPanelStride, acc0, acc1);
  NarrowConsts k(fr);
  forEachRow<NV>(
      acc0, acc1, mr, nr, partial, ldp, [&](int i, __m512i v0, __m512i v1) {
        __m512i corr = _mm512_set1_epi32(fr.corr[row + i]);
        __m256i bytes = requantRow<Relu, Mode>(_mm512_add_epi32(v0, corr),
                                               _mm512_add_epi32(v1, corr),
                                               NV == 2, fr, k, row + i);
        for (int q = 0; q < st.count; ++q)
          _mm256_mask_storeu_epi8(out + i * ldo + st.at[q], st.mask[q], bytes);
      });
}

void fusedMicrokernel(int64_t groups, const uint8_t *a, const uint8_t *b,
                      int64_t bPanelStride, const int32_t *partial, int64_t ldp,
                      int64_t mr, int64_t nr, const Int8FusedRows &fr,
                      int64_t row, uint8_t *out, int64_t ldo,
                      const Int8TileStores &st) {
  withTileShape(mr, nr, [&](auto nv, auto rows) {
    withRequantForm(fr, [&](auto relu, auto mode) {
      fusedKernel<decltype(nv)::value, decltype(rows)::value,
                  decltype(relu)::value, decltype(mode)::value>(
          groups, a, b, bPanelStride, partial, ldp, mr, nr, fr, row, out, ldo,
          st);
    });
  });
}

/// Int8Interleave64: bytes, then 16-bit pairs interleaved within each
/// 128-bit lane (lane L holds panel L's columns 0-3, 4-7, 8-11, 12-15 in
/// v0..v3), then a 4 x 4 transpose of the lanes.
void interleave64(const uint8_t *const r[4], uint8_t x, uint8_t *d,
                  int64_t panelStride) {
  __m512i xv = _mm512_set1_epi8(char(x));
  __m512i r0 = _mm512_xor_si512(_mm512_loadu_si512(r[0]), xv);
  __m512i r1 = _mm512_xor_si512(_mm512_loadu_si512(r[1]), xv);
  __m512i r2 = _mm512_xor_si512(_mm512_loadu_si512(r[2]), xv);
  __m512i r3 = _mm512_xor_si512(_mm512_loadu_si512(r[3]), xv);
  __m512i a = _mm512_unpacklo_epi8(r0, r1), a2 = _mm512_unpackhi_epi8(r0, r1);
  __m512i b = _mm512_unpacklo_epi8(r2, r3), b2 = _mm512_unpackhi_epi8(r2, r3);
  __m512i v0 = _mm512_unpacklo_epi16(a, b), v1 = _mm512_unpackhi_epi16(a, b);
  __m512i v2 = _mm512_unpacklo_epi16(a2, b2),
          v3 = _mm512_unpackhi_epi16(a2, b2);
  // t0 = (v0.L0, v0.L1, v1.L0, v1.L1), t1 = (v0.L2, v0.L3, v1.L2, v1.L3),
  // t2, t3 the same of v2, v3; then panel L = (v0.L, v1.L, v2.L, v3.L).
  __m512i t0 = _mm512_shuffle_i32x4(v0, v1, 0x44);
  __m512i t1 = _mm512_shuffle_i32x4(v0, v1, 0xee);
  __m512i t2 = _mm512_shuffle_i32x4(v2, v3, 0x44);
  __m512i t3 = _mm512_shuffle_i32x4(v2, v3, 0xee);
  _mm512_storeu_si512(d, _mm512_shuffle_i32x4(t0, t2, 0x88));
  _mm512_storeu_si512(d + panelStride, _mm512_shuffle_i32x4(t0, t2, 0xdd));
  _mm512_storeu_si512(d + 2 * panelStride, _mm512_shuffle_i32x4(t1, t3, 0x88));
  _mm512_storeu_si512(d + 3 * panelStride, _mm512_shuffle_i32x4(t1, t3, 0xdd));
}

/// One row's output requantization (Int8FusedRows' m', s', 2^(s'-1), zp,
/// clamp) in registers: 32 int32 sums (two vectors, corrections added) to
/// 32 bytes, the first `left` of them stored.
struct RowRequant {
  __m512i m, s, s32, h, zp16, lo16, hi16, order;
  bool isUnsigned;
  RowRequant(int64_t mv, int64_t sv, int64_t hv, int16_t zp, int16_t qmin,
             int16_t qmax, bool isUnsignedOut)
      : m(_mm512_set1_epi64(mv)), s(_mm512_set1_epi64(sv)),
        s32(_mm512_set1_epi64(sv - 32)), h(_mm512_set1_epi64(hv)),
        zp16(_mm512_set1_epi16(zp)), lo16(_mm512_set1_epi16(qmin)),
        hi16(_mm512_set1_epi16(qmax)), order(narrowOrder()),
        isUnsigned(isUnsignedOut) {}

  /// TFLiteHalfUp's second shift (Mode 2): e, e - 1 (0 for e = 0), and
  /// 1 (0 for e = 0).
  __m512i e = _mm512_setzero_si512(), e1 = _mm512_setzero_si512(),
          one = _mm512_setzero_si512();
  void setStage2(int64_t ev) {
    e = _mm512_set1_epi32(int32_t(ev));
    e1 = _mm512_set1_epi32(int32_t(ev > 0 ? ev - 1 : 0));
    one = _mm512_set1_epi32(ev > 0 ? 1 : 0);
  }

  template <bool Relu, int Mode = 0>
  void store32(__m512i v0, __m512i v1, int64_t left, uint8_t *dst) const {
    __m512i r0 =
        stage2<Mode>(fusedRequant16<Relu, Mode>(v0, m, s, s32, h), e, e1, one);
    __m512i r1 =
        stage2<Mode>(fusedRequant16<Relu, Mode>(v1, m, s, s32, h), e, e1, one);
    __mmask32 mask = left >= 32 ? ~__mmask32(0) : (__mmask32(1) << left) - 1;
    _mm256_mask_storeu_epi8(
        dst, mask, narrowPair(r0, r1, zp16, lo16, hi16, order, isUnsigned));
  }
};

template <bool Relu, int Mode>
void fusedRowT(const int32_t *acc, int64_t n, const Int8FusedRows &fr,
               int64_t row, uint8_t *out) {
  __m512i corr = _mm512_set1_epi32(fr.corr[row]);
  RowRequant rq(fr.m[row], fr.s[row], fr.h[row], fr.zp, fr.qmin, fr.qmax,
                fr.isUnsigned);
  if (Mode == 2)
    rq.setStage2(fr.e2[row]);
  for (int64_t j = 0; j < n; j += 32) {
    int64_t left = n - j;
    __m512i v0 = _mm512_add_epi32(
        _mm512_maskz_loadu_epi32(tailMask(left), acc + j), corr);
    __m512i v1 = _mm512_add_epi32(
        _mm512_maskz_loadu_epi32(tailMask(left - 16), acc + j + 16), corr);
    rq.store32<Relu, Mode>(v0, v1, left, out + j);
  }
}

template <bool Relu>
void fusedRowMode(const int32_t *acc, int64_t n, const Int8FusedRows &fr,
                  int64_t row, uint8_t *out) {
  if (fr.rounding == 1)
    fusedRowT<Relu, 1>(acc, n, fr, row, out);
  else if (fr.rounding == 2)
    fusedRowT<Relu, 2>(acc, n, fr, row, out);
  else
    fusedRowT<Relu, 0>(acc, n, fr, row, out);
}

void fusedRow(const int32_t *acc, int64_t n, const Int8FusedRows &fr,
              int64_t row, uint8_t *out) {
  if (fr.relu)
    fusedRowMode<true>(acc, n, fr, row, out);
  else
    fusedRowMode<false>(acc, n, fr, row, out);
}

/// Int8FusedRows' r (rounding 0) of 16 channels in the lanes of v (corr
/// added), each lane with its own m', s', h (Int8LaneRequant).
template <bool Relu>
inline __m512i laneRequant16(__m512i v, const Int8LaneRequant &q) {
  __m512i zero = _mm512_setzero_si512();
  __mmask16 neg = 0;
  if (Relu) {
    v = _mm512_max_epi32(v, zero);
  } else {
    neg = _mm512_movepi32_mask(v);
    v = _mm512_abs_epi32(v);
  }
  __m512i m = _mm512_load_si512(q.m);
  __m512i pe = _mm512_mul_epu32(v, m);
  __m512i po =
      _mm512_mul_epu32(_mm512_srli_epi64(v, 32), _mm512_srli_epi64(m, 32));
  pe = _mm512_srlv_epi64(_mm512_add_epi64(pe, _mm512_load_si512(q.hEven)),
                         _mm512_load_si512(q.sEven));
  po = _mm512_srlv_epi64(_mm512_add_epi64(po, _mm512_load_si512(q.hOdd)),
                         _mm512_load_si512(q.sOdd));
  __m512i r = _mm512_mask_blend_epi32(__mmask16(0xaaaa), pe, po);
  if (!Relu)
    r = _mm512_mask_sub_epi32(r, neg, zero, r);
  return r;
}

/// Stores the 16 channels x `rows` pixels of an 8 x 16 byte tile (row i:
/// pixel i's 16 channels) transposed: channel c's pixels at y + c * ldy.
inline void storeTransposed8x16(const __m128i r[8], int64_t rows,
                                int64_t channels, uint8_t *y, int64_t ldy) {
  __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]),
          a1 = _mm_unpackhi_epi8(r[0], r[1]);
  __m128i b0 = _mm_unpacklo_epi8(r[2], r[3]),
          b1 = _mm_unpackhi_epi8(r[2], r[3]);
  __m128i c0 = _mm_unpacklo_epi8(r[4], r[5]),
          c1 = _mm_unpackhi_epi8(r[4], r[5]);
  __m128i d0 = _mm_unpacklo_epi8(r[6], r[7]),
          d1 = _mm_unpackhi_epi8(r[6], r[7]);
  // e[k] / f[k]: channels 4k..4k+3, pixels 0-3 / 4-7 (4 bytes each).
  __m128i e[4] = {_mm_unpacklo_epi16(a0, b0), _mm_unpackhi_epi16(a0, b0),
                  _mm_unpacklo_epi16(a1, b1), _mm_unpackhi_epi16(a1, b1)};
  __m128i f[4] = {_mm_unpacklo_epi16(c0, d0), _mm_unpackhi_epi16(c0, d0),
                  _mm_unpacklo_epi16(c1, d1), _mm_unpackhi_epi16(c1, d1)};
  __mmask16 lo = __mmask16((1u << rows) - 1);
  for (int k = 0; k < 4; ++k) {
    // Channels 4k, 4k + 1 and 4k + 2, 4k + 3: 8 bytes each.
    __m128i t[2] = {_mm_unpacklo_epi32(e[k], f[k]),
                    _mm_unpackhi_epi32(e[k], f[k])};
    for (int h = 0; h < 2; ++h) {
      int64_t c = 4 * k + 2 * h;
      if (c < channels)
        _mm_mask_storeu_epi8(y + c * ldy, lo, t[h]);
      if (c + 1 < channels)
        _mm_mask_storeu_epi8(y + (c + 1) * ldy, lo, _mm_bsrli_si128(t[h], 8));
    }
  }
}

template <int ROWS, bool Relu>
void transposedTileT(int64_t groups, const uint8_t *act, const uint8_t *filt,
                     int64_t panelStride, int64_t panels, int64_t rows,
                     int64_t channels, const Int8LaneRequant *rq,
                     const Int8FusedRows &fr, uint8_t *y, int64_t ldy) {
  // The three channel vectors of a K group from the four 12-channel panels
  // (48 bytes per group each): lanes [0, 12) of panel 0 and [12, 16) of
  // panel 1; [0, 8) of panel 1 (its channels 4-11), [8, 16) of panel 2;
  // [0, 4) of panel 2 (8-11), [4, 16) of panel 3. A masked lane reads
  // nothing, so missing panels just drop their lanes.
  const uint8_t *f[4];
  for (int q = 0; q < 4; ++q)
    f[q] = q < panels ? filt + q * panelStride : filt;
  auto has = [&](int q, unsigned m) { return __mmask16(q < panels ? m : 0); };
  __mmask16 k0a = has(0, 0x0fff), k0b = has(1, 0xf000);
  __mmask16 k1a = has(1, 0x00ff), k1b = has(2, 0xff00);
  __mmask16 k2a = has(2, 0x000f), k2b = has(3, 0xfff0);
  __m512i acc[ROWS][3];
#pragma clang loop unroll(full)
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < 3; ++j)
      acc[i][j] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    int64_t o = g * 48;
    __m512i w0 = _mm512_mask_loadu_epi32(
        _mm512_maskz_loadu_epi32(k0a, f[0] + o), k0b, f[1] + o - 48);
    __m512i w1 = _mm512_mask_loadu_epi32(
        _mm512_maskz_loadu_epi32(k1a, f[1] + o + 16), k1b, f[2] + o - 32);
    __m512i w2 = _mm512_mask_loadu_epi32(
        _mm512_maskz_loadu_epi32(k2a, f[2] + o + 32), k2b, f[3] + o - 16);
    const uint8_t *ag = act + g * 64;
#pragma clang loop unroll(full)
    for (int i = 0; i < ROWS; ++i) {
      __m512i av = broadcast32(ag + i * 4);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], av, w0);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], av, w1);
      acc[i][2] = _mm512_dpbusd_epi32(acc[i][2], av, w2);
    }
  }
  __m512i zp16 = _mm512_set1_epi16(fr.zp), lo16 = _mm512_set1_epi16(fr.qmin),
          hi16 = _mm512_set1_epi16(fr.qmax), order = narrowOrder();
  // Row i's 48 bytes (channel order), then 16 channels at a time stored
  // transposed.
  __m128i bytes[3][8];
#pragma clang loop unroll(full)
  for (int i = 0; i < 8; ++i) {
    if (i >= ROWS || i >= rows) {
      for (int j = 0; j < 3; ++j)
        bytes[j][i] = _mm_setzero_si128();
      continue;
    }
    __m512i r[3];
    for (int j = 0; j < 3; ++j)
      r[j] = laneRequant16<Relu>(
          _mm512_add_epi32(acc[i][j], _mm512_load_si512(rq[j].corr)), rq[j]);
    __m256i b01 =
        narrowPair(r[0], r[1], zp16, lo16, hi16, order, fr.isUnsigned);
    __m256i b2 = narrowPair(r[2], r[2], zp16, lo16, hi16, order, fr.isUnsigned);
    bytes[0][i] = _mm256_castsi256_si128(b01);
    bytes[1][i] = _mm256_extracti128_si256(b01, 1);
    bytes[2][i] = _mm256_castsi256_si128(b2);
  }
  for (int j = 0; j < 3 && 16 * j < channels; ++j)
    storeTransposed8x16(bytes[j], std::min<int64_t>(rows, ROWS),
                        channels - 16 * j, y + 16 * j * ldy, ldy);
}

void transposedTile(int64_t groups, const uint8_t *act, const uint8_t *filt,
                    int64_t panelStride, int64_t panels, int64_t rows,
                    int64_t channels, const Int8LaneRequant *rq,
                    const Int8FusedRows &fr, uint8_t *y, int64_t ldy) {
  auto run = [&](auto rowsTag) {
    constexpr int ROWS = decltype(rowsTag)::value;
    if (fr.relu)
      transposedTileT<ROWS, true>(groups, act, filt, panelStride, panels, rows,
                                  channels, rq, fr, y, ldy);
    else
      transposedTileT<ROWS, false>(groups, act, filt, panelStride, panels, rows,
                                   channels, rq, fr, y, ldy);
  };
  if (rows > 4)
    run(std::integral_constant<int, 8>());
  else if (rows > 1)
    run(std::integral_constant<int, 4>());
  else
    run(std::integral_constant<int, 1>());
}

/// Int8DepthwiseLanes: the input rows of 16 channels transposed (16 x 16
/// bytes) into a padded plane of int32 lanes (x - zp in the low 16 bits,
/// channel c in lane c; zeros in the padding), then per output pixel one
/// `vpdpwssd` per tap with the taps' per-channel weights, eight pixels at a
/// time, requantized in the lanes and stored transposed (8 x 16 bytes).
template <bool Relu>
void depthwiseLanesT(const Conv2dShape &s, const void *x, bool isUnsigned,
                     int32_t zp, const int8_t *w, int64_t channels,
                     const Int8LaneRequant &rq, const Int8FusedRows &fr,
                     uint8_t *y) {
  int64_t pw = s.w + s.pl + s.pr, ph = s.h + s.pt + s.pb;
  int64_t taps = s.kh * s.kw, hw = s.h * s.w, ohw = s.oh * s.ow;
  thread_local std::vector<__m512i> plane;
  if (plane.size() < size_t(pw * ph))
    plane.resize(size_t(pw * ph));
  // Zeros in the padding only: every interior pixel is written below.
  __m512i zero = _mm512_setzero_si512();
  for (int64_t r = 0; r < ph; ++r) {
    __m512i *row = plane.data() + r * pw;
    if (r < s.pt || r >= s.pt + s.h) {
      for (int64_t i = 0; i < pw; ++i)
        row[i] = zero;
      continue;
    }
    for (int64_t i = 0; i < s.pl; ++i)
      row[i] = zero;
    for (int64_t i = s.pl + s.w; i < pw; ++i)
      row[i] = zero;
  }
  __mmask16 cmask = __mmask16((1u << channels) - 1);
  __m512i zpv = _mm512_set1_epi32(zp);
  const auto *xb = static_cast<const uint8_t *>(x);
  for (int64_t iy = 0; iy < s.h; ++iy)
    for (int64_t x0 = 0; x0 < s.w; x0 += 16) {
      int64_t xn = std::min<int64_t>(16, s.w - x0);
      __mmask16 wmask = __mmask16((1u << xn) - 1);
      __m128i r[16];
      for (int c = 0; c < 16; ++c)
        r[c] = c < channels
                   ? _mm_maskz_loadu_epi8(wmask, xb + c * hw + iy * s.w + x0)
                   : _mm_setzero_si128();
      // 16 x 16 bytes transposed: t[i] holds pixel i's 16 channels.
      __m128i a[16], b[16];
      for (int i = 0; i < 8; ++i) {
        a[2 * i] = _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
      }
      for (int i = 0; i < 4; ++i)
        for (int h = 0; h < 2; ++h) {
          b[4 * i + 2 * h] = _mm_unpacklo_epi16(a[4 * i + h], a[4 * i + 2 + h]);
          b[4 * i + 2 * h + 1] =
              _mm_unpackhi_epi16(a[4 * i + h], a[4 * i + 2 + h]);
        }
      for (int i = 0; i < 2; ++i)
        for (int h = 0; h < 4; ++h) {
          a[8 * i + 2 * h] = _mm_unpacklo_epi32(b[8 * i + h], b[8 * i + 4 + h]);
          a[8 * i + 2 * h + 1] =
              _mm_unpackhi_epi32(b[8 * i + h], b[8 * i + 4 + h]);
        }
      __m512i *dst = plane.data() + (iy + s.pt) * pw + s.pl + x0;
      for (int h = 0; h < 8; ++h) {
        // After the three stages a[h] holds channels 0-7 of pixels 2h and
        // 2h + 1 (8 bytes each), a[8 + h] their channels 8-15.
        __m128i lo = _mm_unpacklo_epi64(a[h], a[8 + h]);
        __m128i hi = _mm_unpackhi_epi64(a[h], a[8 + h]);
        for (int q = 0; q < 2; ++q) {
          int64_t ix = 2 * h + q;
          if (ix >= xn)
            continue;
          __m128i v = q ? hi : lo;
          __m512i wide =
              isUnsigned ? _mm512_cvtepu8_epi32(v) : _mm512_cvtepi8_epi32(v);
          dst[ix] = _mm512_maskz_sub_epi32(cmask, wide, zpv);
        }
      }
    }
  // The taps' weights per lane (w low, 0 high).
  alignas(64) int32_t wl[25][16] = {};
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t t = 0; t < taps; ++t)
      wl[t][c] = int32_t(uint16_t(int16_t(w[c * taps + t])));
  __m512i wv[25];
  for (int64_t t = 0; t < taps; ++t)
    wv[t] = _mm512_load_si512(wl[t]);
  __m512i corr = _mm512_load_si512(rq.corr);
  __m512i zp16 = _mm512_set1_epi16(fr.zp), lo16 = _mm512_set1_epi16(fr.qmin),
          hi16 = _mm512_set1_epi16(fr.qmax), order = narrowOrder();
  for (int64_t p0 = 0; p0 < ohw; p0 += 8) {
    int64_t n = std::min<int64_t>(8, ohw - p0);
    __m512i acc[8];
    const __m512i *base[8];
    for (int i = 0; i < 8; ++i) {
      acc[i] = _mm512_setzero_si512();
      int64_t p = p0 + std::min<int64_t>(i, n - 1);
      base[i] = plane.data() + (p / s.ow) * s.sh * pw + (p % s.ow) * s.sw;
    }
    for (int64_t ky = 0; ky < s.kh; ++ky)
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        int64_t off = ky * s.dh * pw + kx * s.dw;
        __m512i wt = wv[ky * s.kw + kx];
#pragma clang loop unroll(full)
        for (int i = 0; i < 8; ++i)
          acc[i] = _mm512_dpwssd_epi32(acc[i], base[i][off], wt);
      }
    __m128i bytes[8];
#pragma clang loop unroll(full)
    for (int i = 0; i < 8; i += 2) {
      __m512i r0 = laneRequant16<Relu>(_mm512_add_epi32(acc[i], corr), rq);
      __m512i r1 = laneRequant16<Relu>(_mm512_add_epi32(acc[i + 1], corr), rq);
      __m256i b2 = narrowPair(r0, r1, zp16, lo16, hi16, order, fr.isUnsigned);
      bytes[i] = _mm256_castsi256_si128(b2);
      bytes[i + 1] = _mm256_extracti128_si256(b2, 1);
    }
    storeTransposed8x16(bytes, n, channels, y + p0, ohw);
  }
}

void depthwiseLanes(const Conv2dShape &s, const void *x, bool isUnsigned,
                    int32_t zp, const int8_t *w, int64_t channels,
                    const Int8LaneRequant &rq, const Int8FusedRows &fr,
                    uint8_t *y) {
  if (fr.relu)
    depthwiseLanesT<true>(s, x, isUnsigned, zp, w, channels, rq, fr, y);
  else
    depthwiseLanesT<false>(s, x, isUnsigned, zp, w, channels, rq, fr, y);
}

/// One input of the int8 Add on 16 lanes: R(q - zp) as Int8AddFast says.
struct AddInput {
  __m512i zp, mHi, mLo, s, h;
  bool isUnsigned;
  explicit AddInput(const Int8AddFast::Input &in)
      : zp(_mm512_set1_epi32(in.zp)), mHi(_mm512_set1_epi32(int32_t(in.mHi))),
        mLo(_mm512_set1_epi32(int32_t(in.mLo))),
        s(_mm512_set1_epi32(int32_t(in.s))),
        h(_mm512_set1_epi32(int32_t(in.h))), isUnsigned(in.isUnsigned) {}

  __m512i rescale(const uint8_t *p, __mmask16 mask) const {
    __m128i bytes = _mm_maskz_loadu_epi8(mask, p);
    __m512i q =
        isUnsigned ? _mm512_cvtepu8_epi32(bytes) : _mm512_cvtepi8_epi32(bytes);
    __m512i x = _mm512_sub_epi32(q, zp);
    __mmask16 neg = _mm512_movepi32_mask(x);
    __m512i ax = _mm512_abs_epi32(x);
    __m512i low =
        _mm512_srlv_epi32(_mm512_add_epi32(_mm512_mullo_epi32(ax, mLo), h), s);
    __m512i r = _mm512_add_epi32(_mm512_mullo_epi32(ax, mHi), low);
    return _mm512_mask_sub_epi32(r, neg, _mm512_setzero_si512(), r);
  }
};

template <bool Relu>
void addKernelT(const Int8AddFast &k, const uint8_t *a, const uint8_t *b,
                uint8_t *y, int64_t n) {
  AddInput ia(k.a), ib(k.b);
  RowRequant rq(k.m, k.s, k.h, k.zp, k.qmin, k.qmax, k.outUnsigned);
  for (int64_t i = 0; i < n; i += 32) {
    int64_t left = n - i;
    __mmask16 m0 = tailMask(left), m1 = tailMask(left - 16);
    // Both halves are read before the store: y may be a or b.
    __m512i v0 = _mm512_add_epi32(ia.rescale(a + i, m0), ib.rescale(b + i, m0));
    __m512i v1 = _mm512_add_epi32(ia.rescale(a + i + 16, m1),
                                  ib.rescale(b + i + 16, m1));
    rq.store32<Relu>(v0, v1, left, y + i);
  }
}

/// One input's rescale R(q - zp) as AddInput::rescale computes it, for
/// the byte q.
int32_t rescaleByte(const Int8AddFast::Input &in, uint8_t byte) {
  int32_t q = in.isUnsigned ? int32_t(byte) : int32_t(int8_t(byte));
  int32_t x = q - in.zp;
  uint32_t ax = x < 0 ? uint32_t(-x) : uint32_t(x);
  uint32_t r = ax * in.mHi + ((ax * in.mLo + in.h) >> in.s);
  return x < 0 ? -int32_t(r) : int32_t(r);
}

/// One input's rescale looked up by byte with `vpermi2b` (AVX-512 VBMI):
/// plane[k] holds byte k of R for all 256 byte values (four vectors of 64
/// entries each), so 64 elements take 12 lookups and blends and eight
/// unpacks instead of eight `vpmulld`.
struct AddTable {
  alignas(64) uint8_t plane[4][256];
  explicit AddTable(const Int8AddFast::Input &in) {
    for (int v = 0; v < 256; ++v) {
      uint32_t r = uint32_t(rescaleByte(in, uint8_t(v)));
      for (int k = 0; k < 4; ++k)
        plane[k][v] = uint8_t(r >> (8 * k));
    }
  }

  /// The rescales of 64 bytes as four vectors of 16 int32: d[j]'s dword i
  /// of 128-bit lane L is element 16 L + 4 j + i.
  __attribute__((target("avx512vbmi"))) void lookup(__m512i idx,
                                                    __m512i d[4]) const {
    __mmask64 high = _mm512_movepi8_mask(idx);
    __m512i p[4];
    for (int k = 0; k < 4; ++k) {
      const uint8_t *t = plane[k];
      __m512i lo = _mm512_permutex2var_epi8(_mm512_load_si512(t), idx,
                                            _mm512_load_si512(t + 64));
      __m512i hi = _mm512_permutex2var_epi8(_mm512_load_si512(t + 128), idx,
                                            _mm512_load_si512(t + 192));
      p[k] = _mm512_mask_blend_epi8(high, lo, hi);
    }
    __m512i w01l = _mm512_unpacklo_epi8(p[0], p[1]);
    __m512i w01h = _mm512_unpackhi_epi8(p[0], p[1]);
    __m512i w23l = _mm512_unpacklo_epi8(p[2], p[3]);
    __m512i w23h = _mm512_unpackhi_epi8(p[2], p[3]);
    d[0] = _mm512_unpacklo_epi16(w01l, w23l);
    d[1] = _mm512_unpackhi_epi16(w01l, w23l);
    d[2] = _mm512_unpacklo_epi16(w01h, w23h);
    d[3] = _mm512_unpackhi_epi16(w01h, w23h);
  }
};

/// The Add with table rescales, 64 elements per step. The packs undo the
/// unpacks' order within each 128-bit lane, so the bytes come out in
/// element order.
template <bool Relu>
__attribute__((target("avx512vbmi"))) void
addTableT(const Int8AddFast &k, const uint8_t *a, const uint8_t *b, uint8_t *y,
          int64_t n) {
  AddTable ta(k.a), tb(k.b);
  RowRequant rq(k.m, k.s, k.h, k.zp, k.qmin, k.qmax, k.outUnsigned);
  for (int64_t i = 0; i < n; i += 64) {
    int64_t left = n - i;
    __mmask64 mask = left >= 64 ? ~__mmask64(0) : (__mmask64(1) << left) - 1;
    __m512i da[4], db[4], r[4];
    ta.lookup(_mm512_maskz_loadu_epi8(mask, a + i), da);
    tb.lookup(_mm512_maskz_loadu_epi8(mask, b + i), db);
    for (int j = 0; j < 4; ++j)
      r[j] = fusedRequant16<Relu>(_mm512_add_epi32(da[j], db[j]), rq.m, rq.s,
                                  rq.s32, rq.h);
    __m512i w0 = _mm512_adds_epi16(_mm512_packs_epi32(r[0], r[1]), rq.zp16);
    __m512i w1 = _mm512_adds_epi16(_mm512_packs_epi32(r[2], r[3]), rq.zp16);
    w0 = _mm512_min_epi16(_mm512_max_epi16(w0, rq.lo16), rq.hi16);
    w1 = _mm512_min_epi16(_mm512_max_epi16(w1, rq.lo16), rq.hi16);
    __m512i bytes = k.outUnsigned ? _mm512_packus_epi16(w0, w1)
                                  : _mm512_packs_epi16(w0, w1);
    _mm512_mask_storeu_epi8(y + i, mask, bytes);
  }
}

bool hasVbmi() {
  static const bool has = __builtin_cpu_supports("avx512vbmi");
  return has;
}

void addKernel(const Int8AddFast &k, const uint8_t *a, const uint8_t *b,
               uint8_t *y, int64_t n) {
  // Short runs do not pay for the two 1 KiB tables.
  if (n >= 1024 && hasVbmi()) {
    if (k.relu)
      addTableT<true>(k, a, b, y, n);
    else
      addTableT<false>(k, a, b, y, n);
    return;
  }
  if (k.relu)
    addKernelT<true>(k, a, b, y, n);
  else
    addKernelT<false>(k, a, b, y, n);
}

/// clamp(round_half_away_from_zero(v * m / 2^s) + zp, lo, hi) in the 8
/// int64 lanes, v and m the low (signed) 32 bits of each lane, s the lane's
/// shift and h = 2^s / 2 (0 for s = 0). |v * m| <= 2^62, so |p| + h fits
/// in 64 unsigned bits.
inline __m512i requant8(__m512i v, __m512i m, __m512i s, __m512i h, __m512i zp,
                        __m512i lo, __m512i hi) {
  __m512i p = _mm512_mul_epi32(v, m);
  __mmask8 neg = _mm512_movepi64_mask(p);
  __m512i r = _mm512_srlv_epi64(_mm512_add_epi64(_mm512_abs_epi64(p), h), s);
  r = _mm512_mask_sub_epi64(r, neg, _mm512_setzero_si512(), r);
  return _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(r, zp), lo), hi);
}

/// The requant of 16 int32 lanes: even lanes in place, odd lanes shifted
/// down into the low halves and back; m, s, h hold the even lanes' values
/// in their 64-bit lanes (mOdd, sOdd, hOdd the odd lanes').
inline __m512i requant16(__m512i v, __m512i m, __m512i s, __m512i h,
                         __m512i mOdd, __m512i sOdd, __m512i hOdd, __m512i zp,
                         __m512i lo, __m512i hi) {
  __m512i even = requant8(v, m, s, h, zp, lo, hi);
  __m512i odd =
      requant8(_mm512_srli_epi64(v, 32), mOdd, sOdd, hOdd, zp, lo, hi);
  return _mm512_mask_blend_epi32(__mmask16(0xaaaa), even,
                                 _mm512_slli_epi64(odd, 32));
}

/// h = 2^s / 2 per 64-bit lane.
inline __m512i halfOf(__m512i s) {
  return _mm512_srli_epi64(_mm512_sllv_epi64(_mm512_set1_epi64(1), s), 1);
}

inline __m512i clampShift(__m512i s) { // as int8EpilogueValue
  return _mm512_max_epi32(_mm512_min_epi32(s, _mm512_set1_epi32(63)),
                          _mm512_setzero_si512());
}

/// The 16 int32 lanes (already inside the 8-bit range) as 16 bytes:
/// saturating packs within each 128-bit lane, then dword 0 of each lane.
/// (Zen 4 runs `vpmovdb` to memory slowly; this is three fast ops.)
inline __m128i narrow8(__m512i v, bool isUnsigned) {
  __m512i w = _mm512_packs_epi32(v, v);
  w = isUnsigned ? _mm512_packus_epi16(w, w) : _mm512_packs_epi16(w, w);
  return _mm512_castsi512_si128(_mm512_permutexvar_epi32(
      _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), w));
}

inline void store(__m512i v, const Int8Epilogue &e, void *out, int64_t at,
                  __mmask16 mask) {
  if (e.out == Int8Output::Int32) {
    _mm512_mask_storeu_epi32(static_cast<int32_t *>(out) + at, mask, v);
    return;
  }
  __m128i b = narrow8(v, e.out == Int8Output::UInt8);
  auto *p = static_cast<uint8_t *>(out) + at;
  if (mask == 0xffff)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p), b);
  else
    _mm_mask_storeu_epi8(p, mask, b);
}

void tileEpilogue(const int32_t *acc, int64_t ldacc, int64_t rows, int64_t cols,
                  int64_t row0, int64_t col0, const Int8Epilogue &e, void *out,
                  int64_t ldo) {
  // The in-register requant below rounds ties away from zero; the other
  // roundings (TosaSingleRound, TFLiteHalfUp) run the plain C++ epilogue.
  if (e.out != Int8Output::Int32 &&
      e.rounding != Int8Rounding::HalfAwayFromZero)
    return genericTileEpilogue(acc, ldacc, rows, cols, row0, col0, e, out, ldo);
  __m512i zp = _mm512_set1_epi64(e.zp), lo = _mm512_set1_epi64(e.qmin),
          hi = _mm512_set1_epi64(e.qmax);
  bool requant = e.out != Int8Output::Int32;
  __m512i zero = _mm512_setzero_si512();
  if (e.perRow) {
    for (int64_t i = 0; i < rows; ++i) {
      int64_t ch = row0 + i;
      __m512i corr = _mm512_set1_epi32(e.corr ? e.corr[ch] : 0);
      __m512i m = zero, s = zero, h = zero;
      if (requant) {
        m = _mm512_set1_epi64(e.multiplier[ch]);
        s = _mm512_set1_epi64(std::clamp<int32_t>(e.shift[ch], 0, 63));
        h = halfOf(s);
      }
      const int32_t *a = acc + i * ldacc;
      int32_t mc = requant ? e.multiplier[ch] : 0;
      int32_t sc = std::clamp<int32_t>(requant ? e.shift[ch] : 0, 0, 63);
      int64_t loz = int64_t(e.qmin) - e.zp, hiz = int64_t(e.qmax) - e.zp;
      if (requant && sc >= 31 && mc != INT32_MIN && loz >= INT32_MIN &&
          hiz <= INT32_MAX) {
        // The common case, in fewer ops: |v * m| < 2^62, so (|p| + h) >> s
        // < 2^31 fits the 32-bit lanes: unsigned products of |v| and |m|,
        // the shift in 64 bits, then sign, clamp (to [qmin - zp, qmax -
        // zp], so adding zp cannot overflow) and zp in 16 32-bit lanes.
        __m512i am = _mm512_set1_epi64(mc < 0 ? -int64_t(mc) : mc);
        int64_t loz =
            std::clamp<int64_t>(int64_t(e.qmin) - e.zp, INT32_MIN, INT32_MAX);
        int64_t hiz =
            std::clamp<int64_t>(int64_t(e.qmax) - e.zp, INT32_MIN, INT32_MAX);
        __m512i lo32 = _mm512_set1_epi32(int32_t(loz)),
                hi32 = _mm512_set1_epi32(int32_t(hiz)),
                zp32 = _mm512_set1_epi32(e.zp);
        for (int64_t j = 0; j < cols; j += 16) {
          __mmask16 mask = tailMask(cols - j);
          __m512i v =
              _mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, a + j), corr);
          if (e.relu)
            v = _mm512_max_epi32(v, zero);
          __mmask16 neg = _mm512_movepi32_mask(v);
          if (mc < 0)
            neg = _knot_mask16(neg);
          __m512i av = _mm512_abs_epi32(v); // INT32_MIN -> 2^31 unsigned
          __m512i pe = _mm512_mul_epu32(av, am);
          __m512i po = _mm512_mul_epu32(_mm512_srli_epi64(av, 32), am);
          pe = _mm512_srlv_epi64(_mm512_add_epi64(pe, h), s);
          po = _mm512_srlv_epi64(_mm512_add_epi64(po, h), s);
          __m512i r = _mm512_mask_blend_epi32(__mmask16(0xaaaa), pe,
                                              _mm512_slli_epi64(po, 32));
          // A zero product has no sign to restore; -0 is 0 anyway.
          r = _mm512_mask_sub_epi32(r, neg, zero, r);
          r = _mm512_min_epi32(_mm512_max_epi32(r, lo32), hi32);
          store(_mm512_add_epi32(r, zp32), e, out, i * ldo + j, mask);
        }
        continue;
      }
      for (int64_t j = 0; j < cols; j += 16) {
        __mmask16 mask = tailMask(cols - j);
        __m512i v =
            _mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, a + j), corr);
        if (e.relu)
          v = _mm512_max_epi32(v, zero);
        if (requant)
          v = requant16(v, m, s, h, m, s, h, zp, lo, hi);
        store(v, e, out, i * ldo + j, mask);
      }
    }
    return;
  }
  for (int64_t j = 0; j < cols; j += 16) {
    __mmask16 mask = tailMask(cols - j);
    int64_t ch = col0 + j;
    __m512i corr = e.corr ? _mm512_maskz_loadu_epi32(mask, e.corr + ch) : zero;
    __m512i m = zero, s = zero, h = zero, mOdd = zero, sOdd = zero, hOdd = zero;
    if (requant) {
      __m512i mv = _mm512_maskz_loadu_epi32(mask, e.multiplier + ch);
      __m512i sv = clampShift(_mm512_maskz_loadu_epi32(mask, e.shift + ch));
      m = mv;
      mOdd = _mm512_srli_epi64(mv, 32);
      s = _mm512_and_si512(sv, _mm512_set1_epi64(0xffffffff));
      sOdd = _mm512_srli_epi64(sv, 32);
      h = halfOf(s);
      hOdd = halfOf(sOdd);
    }
    for (int64_t i = 0; i < rows; ++i) {
      __m512i v = _mm512_add_epi32(
          _mm512_maskz_loadu_epi32(mask, acc + i * ldacc + j), corr);
      if (e.relu)
        v = _mm512_max_epi32(v, zero);
      if (requant)
        v = requant16(v, m, s, h, mOdd, sOdd, hOdd, zp, lo, hi);
      store(v, e, out, i * ldo + j, mask);
    }
  }
}

} // namespace

namespace {

/// Depthwise rows with stride 1 or 2: 16 output columns per zmm, the
/// accumulator in a register over the window; each tap is one `vpdpwssd`
/// of the input (as int16 in the low half of each 32-bit lane; for stride 2
/// the odd input column sits in the high half and meets a zero weight) by
/// the weight (w, 0).
template <int SW>
void depthwiseRowsAvx512(const Conv2dShape &s, const int16_t *pad, int64_t pw,
                         const int8_t *w, int32_t *acc) {
  int64_t taps = s.kh * s.kw;
  __m512i wv[64];
  for (int64_t t = 0; t < taps && t < 64; ++t)
    wv[t] = _mm512_set1_epi32(int32_t(uint16_t(int16_t(w[t]))));
  for (int64_t oy = 0; oy < s.oh; ++oy) {
    for (int64_t ox = 0; ox < s.ow; ox += 16) {
      __mmask16 mask = tailMask(s.ow - ox);
      __m512i a = _mm512_setzero_si512();
      for (int64_t ky = 0; ky < s.kh; ++ky) {
        const int16_t *row = pad + (oy * s.sh + ky * s.dh) * pw + ox * SW;
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const int16_t *src = row + kx * s.dw;
          __m512i v = SW == 1 ? _mm512_cvtepi16_epi32(_mm256_loadu_si256(
                                    reinterpret_cast<const __m256i *>(src)))
                              : _mm512_loadu_si512(src);
          a = _mm512_dpwssd_epi32(a, v, wv[ky * s.kw + kx]);
        }
      }
      _mm512_mask_storeu_epi32(acc + oy * s.ow + ox, mask, a);
    }
  }
}

/// Horizontal tap pairs (dilation 1): the 32-bit lane of output column ox
/// holds the inputs of taps kx and kx + 1, so one `vpdpwssd` with the
/// weights (w[kx], w[kx + 1]) does both (an odd last tap pairs with 0).
/// Stride 2 reads the pairs straight from the padded plane; stride 1 from a
/// pair plane built once per plane (lane x = pad[x] | pad[x + 1] << 16).
template <int SW>
void depthwisePairsAvx512(const Conv2dShape &s, const int16_t *pad, int64_t pw,
                          const int8_t *w, int32_t *acc) {
  int32_t pairW[64];
  int64_t pairsPerRow = tapPairWeights(s, w, pairW);
  __m512i wv[64];
  for (int64_t t = 0; t < s.kh * pairsPerRow; ++t)
    wv[t] = _mm512_set1_epi32(pairW[t]);
  const int32_t *pairs = SW == 1 ? pairPlaneOf(s, pad, pw) : nullptr;
  // The tap pair q of kernel row ky for output row oy, as 32-bit lanes
  // (lane x: output column x).
  auto at = [&](int64_t oy, int64_t ky, int64_t q) {
    int64_t rowAt = (oy * s.sh + ky * s.dh) * pw;
    return SW == 1 ? pairs + rowAt + 2 * q
                   : reinterpret_cast<const int32_t *>(pad + rowAt + 2 * q);
  };
  // ROWS output rows at a time: independent accumulators hide the latency
  // of the vpdpwssd chain.
  auto rows = [&](auto rowsTag, int64_t oy0) {
    constexpr int ROWS = decltype(rowsTag)::value;
    for (int64_t ox = 0; ox < s.ow; ox += 16) {
      __mmask16 mask = tailMask(s.ow - ox);
      __m512i a[ROWS];
      for (int r = 0; r < ROWS; ++r)
        a[r] = _mm512_setzero_si512();
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t q = 0; q < pairsPerRow; ++q) {
          __m512i wq = wv[ky * pairsPerRow + q];
          for (int r = 0; r < ROWS; ++r)
            a[r] = _mm512_dpwssd_epi32(
                a[r], _mm512_loadu_si512(at(oy0 + r, ky, q) + ox), wq);
        }
      for (int r = 0; r < ROWS; ++r)
        _mm512_mask_storeu_epi32(acc + (oy0 + r) * s.ow + ox, mask, a[r]);
    }
  };
  int64_t oy = 0;
  if (s.ow <= 8) {
    // Narrow planes (7 x 7): two output rows per vector, row oy in lanes
    // [0, OW), row oy + 1 in [OW, 2 OW), which is also their order in acc;
    // PAIRS such vectors at a time.
    int64_t ow = s.ow;
    auto lo = __mmask16((1u << ow) - 1);
    auto both = __mmask16((1u << (2 * ow)) - 1);
    auto hi = __mmask16(both & ~lo);
    auto twoRows = [&](auto pairsTag, int64_t oy0) {
      constexpr int PAIRS = decltype(pairsTag)::value;
      __m512i a[PAIRS];
      for (int r = 0; r < PAIRS; ++r)
        a[r] = _mm512_setzero_si512();
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t q = 0; q < pairsPerRow; ++q) {
          __m512i wq = wv[ky * pairsPerRow + q];
          for (int r = 0; r < PAIRS; ++r) {
            int64_t y = oy0 + 2 * r;
            __m512i v = _mm512_maskz_loadu_epi32(lo, at(y, ky, q));
            v = _mm512_mask_loadu_epi32(v, hi, at(y + 1, ky, q) - ow);
            a[r] = _mm512_dpwssd_epi32(a[r], v, wq);
          }
        }
      for (int r = 0; r < PAIRS; ++r)
        _mm512_mask_storeu_epi32(acc + (oy0 + 2 * r) * ow, both, a[r]);
    };
    for (; oy + 4 <= s.oh; oy += 4)
      twoRows(std::integral_constant<int, 2>(), oy);
    for (; oy + 2 <= s.oh; oy += 2)
      twoRows(std::integral_constant<int, 1>(), oy);
  }
  for (; oy + 4 <= s.oh; oy += 4)
    rows(std::integral_constant<int, 4>(), oy);
  for (; oy < s.oh; ++oy)
    rows(std::integral_constant<int, 1>(), oy);
}

void depthwisePlane(const Conv2dShape &s, const void *x, bool isUnsigned,
                    int32_t zp, const int8_t *w, int32_t *acc) {
  int64_t pw;
  int16_t *pad = paddedPlaneOf(s, x, isUnsigned, zp, pw);
  bool fits = s.kh * ((s.kw + 1) / 2) <= 64 && s.kh * s.kw <= 64;
  if (fits && s.dw == 1 && s.sw == 1)
    depthwisePairsAvx512<1>(s, pad, pw, w, acc);
  else if (fits && s.dw == 1 && s.sw == 2)
    depthwisePairsAvx512<2>(s, pad, pw, w, acc);
  else if (fits && s.sw == 1)
    depthwiseRowsAvx512<1>(s, pad, pw, w, acc);
  else if (fits && s.sw == 2)
    depthwiseRowsAvx512<2>(s, pad, pw, w, acc);
  else
    depthwiseRows<0>(s, pad, pw, w, acc);
}

} // namespace

Int8MicrokernelInfo int8Avx512VnniMicrokernel() {
  return {kMR,
          32,
          microkernel,
          tileEpilogue,
          depthwisePlane,
          fusedMicrokernel,
          addKernel,
          interleave64,
          fusedRow,
          transposedTile,
          depthwiseLanes,
          pipelinedMicrokernel,
          pipelineFlush};
}

} // namespace strata::kernels::detail
