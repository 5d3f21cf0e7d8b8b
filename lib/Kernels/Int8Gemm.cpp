//===- Int8Gemm.cpp - the int8 GEMM driver, packing and convolutions ------===//
//
// Loops as the f32 GEMM (Gemm.cpp): column blocks of NC, K blocks of KC
// (B block packed once or read pre-packed), row blocks of MC (A block
// packed or pre-packed), then micro-tiles. The int32 accumulators of a
// block live in a per-thread buffer across K blocks; after the last K
// block each micro-tile goes through the epilogue right after its
// microkernel wrote it. Compiled for the baseline ISA; only the
// microkernels use AVX2 / AVX-512.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Int8Gemm.h"

#include "Int8Microkernels.h"
#include "Scratch.h"

#include "strata/Support/IntegerRequant.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace strata::kernels {

using detail::Int8MicrokernelInfo;

namespace {

/// K block (a multiple of 4): every ResNet-50 layer (K <= 3 x 3 x 512) is
/// one block, so the accumulators never leave the registers between blocks
/// (several blocks keep all rows' int32 tiles of a column block in memory).
constexpr int64_t kKC = 4608;
constexpr int64_t kMC = 96;  ///< rows per A block (a multiple of 12)
constexpr int64_t kNC = 256; ///< columns per B block (a multiple of 32)
constexpr int64_t kPR = kPanelRows, kPC = kPanelCols;
constexpr int64_t kAGroup = 4 * kPR; ///< bytes per K group of an A panel
constexpr int64_t kBGroup = 4 * kPC; ///< bytes per K group of a B panel

int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/// K groups (of 4) from which the fused tiles are software-pipelined
/// (Int8PipelinedMicrokernel): MobileNetV2's K = 16 and 32 layers ran
/// 20-25% slower pipelined, ResNet-50's K = 64 ones 3-7% faster.
constexpr int64_t kPipelineMinGroups = 12;

thread_local detail::Scratch scratchA, scratchB, scratchC;

Int8MicrokernelInfo microkernelFor(Int8Path path) {
  switch (path) {
  case Int8Path::Avx512Vnni:
    return detail::int8Avx512VnniMicrokernel();
  case Int8Path::Avx2:
    return detail::int8Avx2Microkernel();
  default:
    return detail::int8PortableMicrokernel();
  }
}

/// Packs rows [i0, i0 + mc) (clipped to m) and K [k0, k0 + kc) of a plain
/// A into ceil(mc / 12) panels of kc/4 groups, XORing each byte with `x`,
/// zero-padded (padding is 0, not 0 ^ x: it multiplies zero weights or
/// lies outside C).
void packABlock(const uint8_t *a, int64_t lda, uint8_t x, int64_t m, int64_t k,
                int64_t i0, int64_t mc, int64_t k0, int64_t kc, uint8_t *dst) {
  int64_t groups = kc / 4;
  for (int64_t p = 0; p < mc; p += kPR, dst += groups * kAGroup) {
    int64_t rows = std::min<int64_t>(kPR, std::min(mc, m - i0) - p);
    for (int64_t r = 0; r < kPR; ++r) {
      uint8_t *d = dst + r * 4;
      if (r >= rows) {
        for (int64_t g = 0; g < groups; ++g)
          std::memset(d + g * kAGroup, 0, 4);
        continue;
      }
      const uint8_t *src = a + (i0 + p + r) * lda + k0;
      int64_t full = std::clamp<int64_t>((k - k0) / 4, 0, groups);
      uint32_t x4 = uint32_t(x) * 0x01010101u;
      for (int64_t g = 0; g < full; ++g) {
        uint32_t v;
        std::memcpy(&v, src + g * 4, 4);
        v ^= x4;
        std::memcpy(d + g * kAGroup, &v, 4);
      }
      for (int64_t g = full; g < groups; ++g)
        for (int64_t q = 0; q < 4; ++q) {
          int64_t kk = k0 + g * 4 + q;
          d[g * kAGroup + q] = kk < k ? uint8_t(src[g * 4 + q] ^ x) : 0;
        }
    }
  }
}

/// The fused requantization's per-row arrays of rows [rowBegin, rowEnd)
/// (Int8FusedRows), when `e` writes 8 bits per row and every row has the
/// common form of its rounding (multiplier > 0; shift >= 31, or for
/// TFLiteHalfUp in [0, 31]); false otherwise.
struct FusedStorage {
  std::vector<int32_t> corr;
  std::vector<int64_t> m, s, h, e2;
};
thread_local FusedStorage fusedStorage;

/// Whether rows [rowBegin, rowEnd) of `e` have the fused form.
bool fusedFormHolds(const Int8Epilogue &e, int64_t rowBegin, int64_t rowEnd) {
  if (!e.perRow || e.out == Int8Output::Int32 || e.zp < -32512 || e.zp > 32512)
    return false;
  bool isUnsigned = e.out == Int8Output::UInt8;
  int32_t tmin = isUnsigned ? 0 : -128, tmax = isUnsigned ? 255 : 127;
  if (e.qmin < tmin || e.qmax > tmax || e.qmin > e.qmax)
    return false;
  bool tflite = e.rounding == Int8Rounding::TFLiteHalfUp;
  for (int64_t ch = rowBegin; ch < rowEnd; ++ch)
    if (e.multiplier[ch] <= 0 || (tflite ? e.shift[ch] > 31 : e.shift[ch] < 31))
      return false;
  return true;
}

bool fusedRowsFor(const Int8Epilogue &e, int64_t rowBegin, int64_t rowEnd,
                  detail::Int8FusedRows &fr) {
  if (!fusedFormHolds(e, rowBegin, rowEnd))
    return false;
  bool isUnsigned = e.out == Int8Output::UInt8;
  bool tflite = e.rounding == Int8Rounding::TFLiteHalfUp;
  FusedStorage &st = fusedStorage;
  size_t rows = size_t(rowEnd - rowBegin);
  st.corr.resize(rows);
  st.m.resize(rows);
  st.s.resize(rows);
  st.h.resize(rows);
  st.e2.resize(rows);
  for (int64_t ch = rowBegin; ch < rowEnd; ++ch) {
    size_t i = size_t(ch - rowBegin);
    int64_t m = e.multiplier[ch], sh = std::min<int32_t>(e.shift[ch], 63);
    // TFLite: the SRDHM, floor((v m + 2^30) / 2^31), then the shift by e.
    st.e2[i] = tflite ? std::max<int32_t>(e.shift[ch], 0) : 0;
    if (tflite)
      sh = 31;
    if (sh == 31) { // the same value with a shift of 32
      m *= 2;
      sh = 32;
    }
    st.corr[i] = e.corr ? e.corr[ch] : 0;
    st.m[i] = m;
    st.s[i] = sh;
    st.h[i] = int64_t(1) << (sh - 1);
  }
  fr.corr = st.corr.data();
  fr.m = st.m.data();
  fr.s = st.s.data();
  fr.h = st.h.data();
  fr.e2 = st.e2.data();
  fr.rounding = int(e.rounding);
  fr.relu = e.relu;
  fr.isUnsigned = isUnsigned;
  fr.zp = int16_t(e.zp);
  fr.qmin = int16_t(e.qmin);
  fr.qmax = int16_t(e.qmax);
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Paths
//===----------------------------------------------------------------------===//

bool int8PathSupported(Int8Path path) {
  switch (path) {
  case Int8Path::Portable:
    return true;
#if defined(__x86_64__)
  case Int8Path::Avx2:
    return __builtin_cpu_supports("avx2");
  case Int8Path::Avx512Vnni:
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512vnni");
#else
  default:
    return false;
#endif
  }
  return false;
}

Int8Path int8PathFor(Isa isa) {
  if (isa == Isa::Avx512 && int8PathSupported(Int8Path::Avx512Vnni))
    return Int8Path::Avx512Vnni;
  if (isa != Isa::Portable && int8PathSupported(Int8Path::Avx2))
    return Int8Path::Avx2;
  return Int8Path::Portable;
}

const char *int8PathName(Int8Path path) {
  switch (path) {
  case Int8Path::Portable:
    return "portable";
  case Int8Path::Avx2:
    return "avx2";
  case Int8Path::Avx512Vnni:
    return "avx512-vnni";
  }
  return "?";
}

int32_t int8EpilogueValue(int32_t acc, const Int8Epilogue &e, int64_t ch) {
  int32_t v = int32_t(uint32_t(acc) + uint32_t(e.corr ? e.corr[ch] : 0));
  if (e.relu && v < 0)
    v = 0;
  if (e.out == Int8Output::Int32)
    return v;
  int64_t s = std::clamp<int64_t>(e.shift[ch], 0, 63);
  if (e.rounding == Int8Rounding::TFLiteHalfUp)
    return int32_t(intq::requantTFLiteHalfUp(v, e.multiplier[ch], s, e.zp,
                                             e.qmin, e.qmax));
  if (e.rounding == Int8Rounding::HalfUp)
    return int32_t(intq::requantTosa(v, e.multiplier[ch], s,
                                     /*doubleRound=*/false, e.zp, e.qmin,
                                     e.qmax));
  return int32_t(intq::requantMultiplierShift(v, e.multiplier[ch], e.shift[ch],
                                              e.zp, e.qmin, e.qmax));
}

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

/// Bytes of `lines` (rows of A, columns of B) padded to `panel`, times K
/// padded to 4; 0 on overflow.
static uint64_t panelBytes(int64_t lines, int64_t panel, int64_t k) {
  uint64_t bytes;
  if (lines < 0 || k < 0 || lines > INT64_MAX - panel || k > INT64_MAX - 4 ||
      __builtin_mul_overflow(uint64_t(roundUp(lines, panel)),
                             uint64_t(int8PaddedK(k)), &bytes))
    return 0;
  return bytes;
}

uint64_t int8PackedABytes(int64_t m, int64_t k) {
  return panelBytes(m, kPR, k);
}

uint64_t int8PackedBBytes(int64_t k, int64_t n) {
  return panelBytes(n, kPC, k);
}

void int8PackA(const int8_t *a, int64_t lda, int64_t m, int64_t k,
               uint8_t *dst) {
  packABlock(reinterpret_cast<const uint8_t *>(a), lda, 0, m, k, 0,
             roundUp(m, kPR), 0, int8PaddedK(k), dst);
}

void int8PackB(const int8_t *b, int64_t ldb, bool transposed, int64_t k,
               int64_t n, uint8_t *dst) {
  int64_t kp = int8PaddedK(k);
  for (int64_t p = 0; p < roundUp(n, kPC); p += kPC, dst += kp * kPC)
    for (int64_t g = 0; g < kp / 4; ++g)
      for (int64_t c = 0; c < kPC; ++c)
        for (int64_t q = 0; q < 4; ++q) {
          int64_t kk = g * 4 + q, j = p + c;
          int8_t v = 0;
          if (kk < k && j < n)
            v = transposed ? b[j * ldb + kk] : b[kk * ldb + j];
          dst[g * kBGroup + c * 4 + q] = uint8_t(v);
        }
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

/// One micro-tile through the fused microkernel, straight into C: over
/// the padded width, one masked store per output row the tile's columns
/// touch (a byte tile copied out when there are more than the kernel
/// takes). With `pending` (the path's pipelined form), the tile is written
/// during the next one's products or by the caller's flush.
static void fusedTile(const Int8MicrokernelInfo &uk,
                      const detail::Int8FusedRows &fr, const Int8GemmProblem &p,
                      int64_t groups, const uint8_t *ap, const uint8_t *bp,
                      int64_t bPanelStride, const int32_t *partial,
                      int64_t ldacc, int64_t mr, int64_t nr, int64_t row,
                      int64_t col, int64_t rowBegin,
                      detail::Int8PendingTile *pending,
                      const detail::Int8InPlaceWalk *walk = nullptr) {
  auto *c = static_cast<uint8_t *>(p.c) + row * p.ldc;
  auto lanes = [](int64_t t0, int64_t n) {
    return uint32_t(((uint64_t(1) << n) - 1) << t0);
  };
  auto run = [&](uint8_t *out, int64_t ldo, const detail::Int8TileStores &st) {
    if (pending)
      uk.pipelined(detail::Int8TileCall{groups, ap, bp, bPanelStride, partial,
                                        ldacc, mr, nr, &fr, row - rowBegin, out,
                                        ldo, &st, walk},
                   *pending);
    else
      uk.fused(groups, ap, bp, bPanelStride, partial, ldacc, mr, nr, fr,
               row - rowBegin, out, ldo, st);
  };
  detail::Int8TileStores st;
  if (!p.colPitch) {
    st.count = 1;
    st.at[0] = col;
    st.mask[0] = lanes(0, nr);
    run(c, p.ldc, st);
    return;
  }
  bool fits = true;
  for (int64_t j = col, jEnd = col + nr; j < jEnd;) {
    int64_t oy = j / p.colPitch, ox = j % p.colPitch;
    int64_t len = std::min(jEnd - j, p.colPitch - ox);
    if (ox < p.colValid) {
      if (st.count == detail::Int8TileStores::kMax) {
        fits = false;
        break;
      }
      // Lane t = j - col lands at oy * colValid + ox, i.e. at col + oy *
      // (colValid - colPitch) + t.
      st.at[st.count] = col + oy * (p.colValid - p.colPitch);
      st.mask[st.count++] = lanes(j - col, std::min(len, p.colValid - ox));
    }
    j += len;
  }
  // (B in place only for rows of at least 14 columns: always fits.)
  if (fits || walk) {
    run(c, p.ldc, st);
    return;
  }
  if (pending && pending->mr)
    uk.flush(fr, *pending);
  constexpr int64_t kTileCols = 32;
  alignas(64) uint8_t tile[kPR * kTileCols];
  st.count = 1;
  st.at[0] = 0;
  st.mask[0] = lanes(0, nr);
  uk.fused(groups, ap, bp, bPanelStride, partial, ldacc, mr, nr, fr,
           row - rowBegin, tile, kTileCols, st);
  for (int64_t j = col, jEnd = col + nr; j < jEnd;) {
    int64_t oy = j / p.colPitch, ox = j % p.colPitch;
    int64_t len = std::min(jEnd - j, p.colPitch - ox);
    if (ox < p.colValid) {
      int64_t n = std::min(len, p.colValid - ox);
      uint8_t *dst = c + oy * p.colValid + ox;
      for (int64_t r = 0; r < mr; ++r)
        std::memcpy(dst + r * p.ldc, tile + r * kTileCols + (j - col),
                    size_t(n));
    }
    j += len;
  }
}

void int8Gemm(const Int8GemmProblem &p, int64_t rowBegin, int64_t rowEnd,
              int64_t colBegin, int64_t colEnd, Int8Path path) {
  if (rowBegin >= rowEnd || colBegin >= colEnd)
    return;
  Int8MicrokernelInfo uk = microkernelFor(path);
  const Int8Epilogue &e = p.epilogue;
  int64_t elemBytes = e.out == Int8Output::Int32 ? 4 : 1;
  auto outAt = [&](int64_t row, int64_t col) {
    return static_cast<uint8_t *>(p.c) + (row * p.ldc + col) * elemBytes;
  };
  int64_t kp = int8PaddedK(p.k);
  if (kp == 0) {
    std::vector<int32_t> zeros(size_t(colEnd - colBegin), 0);
    for (int64_t i = rowBegin; i < rowEnd; ++i)
      uk.epilogue(zeros.data(), 0, 1, colEnd - colBegin, i, colBegin, e,
                  outAt(i, colBegin), p.ldc);
    return;
  }
  // The requantization in the microkernel's registers when the path has
  // it (A the signed filter, per-row 8-bit output of the common form).
  detail::Int8FusedRows fr;
  bool fused =
      uk.fused && !p.aUnsigned && fusedRowsFor(e, rowBegin, rowEnd, fr);
  // The fused tiles software-pipelined when the path can and the K loop is
  // long enough (each written during the next one's products; the last
  // one flushed below).
  detail::Int8PendingTile pendingTile;
  detail::Int8PendingTile *pending =
      fused && uk.pipelined && kp / 4 >= kPipelineMinGroups ? &pendingTile
                                                            : nullptr;
  int64_t kBlocks = (kp + kKC - 1) / kKC;
  int64_t kcMax = roundUp((kp + kBlocks - 1) / kBlocks, 4);
  // B read in place by the pipelined tiles (one K block).
  bool inPlace = p.inPlaceB && pending && kBlocks == 1;
  detail::Int8InPlaceWalk walk;
  uint16_t masks[16];
  if (inPlace) {
    walk.tap = p.inPlaceTap;
    walk.taps = p.inPlaceTaps;
    walk.groupsPerTap = kp / 4 / p.inPlaceTaps;
    walk.quadStride = p.inPlaceQuadStride;
    if (p.inPlaceW > 0) {
      walk.mask = masks;
      walk.kw = p.inPlaceKw;
      walk.pad = p.inPlacePad;
    }
  }
  // The accumulators: one row block's with a single K block (each tile
  // goes from the microkernel straight to the epilogue), else all rows of
  // the column block, kept across the K blocks.
  int64_t ldacc = roundUp(std::min(kNC, colEnd - colBegin), 32);
  int64_t accRows =
      kBlocks > 1 ? roundUp(rowEnd - rowBegin, kPR) : roundUp(kMC, kPR);
  int32_t *acc = static_cast<int32_t *>(
      scratchC.get(size_t(accRows * ldacc) * sizeof(int32_t)));
  for (int64_t jc = colBegin; jc < colEnd; jc += kNC) {
    int64_t nc = std::min(kNC, colEnd - jc);
    for (int64_t pc = 0; pc < kp; pc += kcMax) {
      int64_t kc = std::min(kcMax, kp - pc);
      bool last = pc + kc >= kp;
      const uint8_t *bBlock = nullptr;
      int64_t bPanelStride = 0;
      if (inPlace) {
        // Nothing to pack.
      } else if (p.bPacked) {
        bBlock = p.bPacked + (jc / kPC) * kp * kPC + pc * kPC;
        bPanelStride = kp * kPC;
      } else {
        auto *buf =
            static_cast<uint8_t *>(scratchB.get(size_t(roundUp(nc, kPC) * kc)));
        p.bPackFn(p.bPackCtx, pc / 4, kc / 4, jc, nc, buf);
        bBlock = buf;
        bPanelStride = kc * kPC;
      }
      for (int64_t ic = rowBegin; ic < rowEnd; ic += kMC) {
        int64_t mc = std::min(kMC, rowEnd - ic);
        const uint8_t *aBlock;
        int64_t aPanelStride;
        if (p.aPacked) {
          aBlock = p.aPacked + (ic / kPR) * kp * kPR + pc * kPR;
          aPanelStride = kp * kPR;
        } else {
          auto *buf = static_cast<uint8_t *>(
              scratchA.get(size_t(roundUp(mc, kPR) * kc)));
          packABlock(p.aPlain, p.lda, p.aXor, p.m, p.k, ic, mc, pc, kc, buf);
          aBlock = buf;
          aPanelStride = kc * kPR;
        }
        int32_t *accBlock = acc + (kBlocks > 1 ? ic - rowBegin : 0) * ldacc;
        for (int64_t jr = 0; jr < nc; jr += uk.nr) {
          int64_t nr = std::min(uk.nr, nc - jr);
          const uint8_t *bp = inPlace
                                  ? p.inPlaceB + (jc + jr - p.inPlaceCol0) * 4
                                  : bBlock + (jr / kPC) * bPanelStride;
          if (inPlace && p.inPlaceW > 0) {
            // Per kx and vector, the lanes whose tap lies inside the row.
            std::fill(masks, masks + 2 * p.inPlaceKw, uint16_t(0));
            int64_t ox = (jc + jr) % p.inPlaceOw;
            for (int64_t l = 0; l < 32; ++l) {
              for (int64_t kx = 0; kx < p.inPlaceKw; ++kx) {
                int64_t ix = ox * p.inPlaceSw + kx * p.inPlaceDw - p.inPlacePl;
                if (ix >= 0 && ix < p.inPlaceW)
                  masks[2 * kx + l / 16] |= uint16_t(1u << (l % 16));
              }
              if (++ox == p.inPlaceOw)
                ox = 0;
            }
          }
          for (int64_t ir = 0; ir < mc; ir += uk.mr) {
            int64_t mr = std::min(uk.mr, mc - ir);
            const uint8_t *ap =
                aBlock + (ir / kPR) * aPanelStride + (ir % kPR) * 4;
            int32_t *tile = accBlock + ir * ldacc + jr;
            if (last && fused) {
              fusedTile(uk, fr, p, kc / 4, ap, bp, bPanelStride,
                        pc > 0 ? tile : nullptr, ldacc, mr, nr, ic + ir,
                        jc + jr, rowBegin, pending, inPlace ? &walk : nullptr);
              continue;
            }
            uk.fn(kc / 4, ap, bp, bPanelStride, tile, ldacc, mr, nr, pc > 0,
                  p.aUnsigned);
            if (!last)
              continue;
            if (!p.colPitch) {
              uk.epilogue(tile, ldacc, mr, nr, ic + ir, jc + jr, e,
                          outAt(ic + ir, jc + jr), p.ldc);
              continue;
            }
            // Only the columns inside each output row.
            for (int64_t j = jc + jr, jEnd = j + nr; j < jEnd;) {
              int64_t oy = j / p.colPitch, ox = j % p.colPitch;
              int64_t len = std::min(jEnd - j, p.colPitch - ox);
              if (ox < p.colValid)
                uk.epilogue(tile + (j - jc - jr), ldacc, mr,
                            std::min(len, p.colValid - ox), ic + ir, j, e,
                            outAt(ic + ir, oy * p.colValid + ox), p.ldc);
              j += len;
            }
          }
        }
      }
    }
  }
  if (pending && pending->mr)
    uk.flush(fr, *pending);
}

//===----------------------------------------------------------------------===//
// Packed weights
//===----------------------------------------------------------------------===//

bool int8ConvTapMajor(const Conv2dShape &s) {
  return s.g == 1 && s.kh * s.kw > 1 && s.c % 4 == 0 && s.sh <= 4 && s.sw <= 4;
}

Int8PackedLayout int8PackedLayout(Int8WeightKind kind, const Conv2dShape &s,
                                  int64_t matK, int64_t matN) {
  Int8PackedLayout l;
  uint64_t panels = 0;
  switch (kind) {
  case Int8WeightKind::MatmulB:
    l.channels = matN;
    panels = int8PackedBBytes(matK, matN);
    if (panels == 0 && matK && matN)
      return l;
    break;
  case Int8WeightKind::ConvFilter: {
    l.channels = s.o;
    uint64_t one = int8PackedABytes(s.o / s.g, s.gemmK());
    if (one == 0 || __builtin_mul_overflow(one, uint64_t(s.g), &panels))
      return l;
    break;
  }
  case Int8WeightKind::Depthwise:
    l.channels = s.o;
    if (__builtin_mul_overflow(uint64_t(s.o), uint64_t(s.kh * s.kw), &panels))
      return l;
    break;
  }
  l.panelBytes = uint64_t(roundUp(int64_t(panels), 64));
  uint64_t perArray = uint64_t(roundUp(l.channels * 4, 64));
  l.sumOffset = l.panelBytes;
  l.multiplierOffset = l.sumOffset + perArray;
  l.shiftOffset = l.multiplierOffset + perArray;
  l.totalBytes = l.shiftOffset + perArray;
  return l;
}

void int8PackWeight(Int8WeightKind kind, const Conv2dShape &s, int64_t matK,
                    int64_t matN, bool transposed, const int8_t *w,
                    const int64_t *multiplier, const int64_t *shift,
                    int64_t count, uint8_t *dst, bool tapMajor) {
  Int8PackedLayout l = int8PackedLayout(kind, s, matK, matN);
  std::memset(dst, 0, l.totalBytes);
  auto *sums = reinterpret_cast<int32_t *>(dst + l.sumOffset);
  switch (kind) {
  case Int8WeightKind::MatmulB:
    int8PackB(w, transposed ? matK : matN, transposed, matK, matN, dst);
    for (int64_t j = 0; j < matN; ++j) {
      int64_t sum = 0;
      for (int64_t k = 0; k < matK; ++k)
        sum += transposed ? w[j * matK + k] : w[k * matN + j];
      sums[j] = int32_t(sum);
    }
    break;
  case Int8WeightKind::ConvFilter: {
    int64_t og = s.o / s.g, k = s.gemmK();
    uint64_t groupBytes = int8PackedABytes(og, k);
    if (tapMajor && int8ConvTapMajor(s)) {
      // K reordered to (tap, channel); one group.
      int64_t taps = s.kh * s.kw;
      std::vector<int8_t> t(size_t(s.o * k));
      for (int64_t o = 0; o < s.o; ++o)
        for (int64_t c = 0; c < s.c; ++c)
          for (int64_t tap = 0; tap < taps; ++tap)
            t[size_t(o * k + tap * s.c + c)] = w[(o * s.c + c) * taps + tap];
      int8PackA(t.data(), k, og, k, dst);
    } else {
      for (int64_t g = 0; g < s.g; ++g)
        int8PackA(w + g * og * k, k, og, k, dst + g * groupBytes);
    }
    for (int64_t o = 0; o < s.o; ++o) {
      int64_t sum = 0;
      for (int64_t i = 0; i < k; ++i)
        sum += w[o * k + i];
      sums[o] = int32_t(sum);
    }
    break;
  }
  case Int8WeightKind::Depthwise:
    std::memcpy(dst, w, size_t(s.o * s.kh * s.kw));
    break;
  }
  if (!multiplier)
    return;
  auto *m = reinterpret_cast<int32_t *>(dst + l.multiplierOffset);
  auto *sh = reinterpret_cast<int32_t *>(dst + l.shiftOffset);
  for (int64_t c = 0; c < l.channels; ++c) {
    m[c] = int32_t(multiplier[count == 1 ? 0 : c]);
    sh[c] = int32_t(shift[count == 1 ? 0 : c]);
  }
}

void int8Corrections(const Int8Input &in, const int32_t *bias,
                     const int32_t *weightSum, int64_t channels,
                     int32_t *corr) {
  int64_t offset = (in.isUnsigned ? 0 : 128) + in.zp;
  for (int64_t c = 0; c < channels; ++c) {
    int64_t v = bias ? bias[c] : 0;
    if (weightSum)
      v -= offset * weightSum[c];
    corr[c] = int32_t(uint32_t(uint64_t(v)));
  }
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

namespace {

/// The im2col columns of one (image, group) as a u8 B operand.
struct Im2colCtx {
  const Conv2dShape *s;
  const uint8_t *x; ///< the group's first input channel of the image
  uint8_t xorv;     ///< 0x80 for int8 input
  uint8_t pad;      ///< the zero point's byte (before the XOR)
  bool direct;      ///< 1x1, stride 1, no pads: B is the input itself
  detail::Int8Interleave64 il64; ///< four panels at once, or null
};

/// Where im2colRow is: row k's (input channel, ky, kx), advanced row by
/// row without divisions, and the first column's output pixel.
struct Im2colCursor {
  int64_t k = 0, ch = 0, ky = 0, kx = 0;
  int64_t oy0 = 0, ox0 = 0;
  /// Per kx (up to 16): columns [lo, hi) of a whole output row that read
  /// inside the input row.
  int64_t fullLo[16], fullHi[16];

  void next(const Conv2dShape &s) {
    ++k;
    if (++kx == s.kw) {
      kx = 0;
      if (++ky == s.kh) {
        ky = 0;
        ++ch;
      }
    }
  }
};

/// Output columns [lo, hi) of a run of `len` starting at input column ix
/// that read inside the row.
inline void insideRange(const Conv2dShape &s, int64_t ix, int64_t len,
                        int64_t &lo, int64_t &hi) {
  lo = ix >= 0 ? 0 : std::min(len, (-ix + s.sw - 1) / s.sw);
  hi = s.w - 1 - ix < 0 ? lo : std::clamp((s.w - 1 - ix) / s.sw + 1, lo, len);
}

Im2colCursor im2colCursor(const Conv2dShape &s, int64_t k, int64_t jBase) {
  Im2colCursor c;
  c.k = k;
  c.ch = k / (s.kh * s.kw);
  int64_t r = k % (s.kh * s.kw);
  c.ky = r / s.kw;
  c.kx = r % s.kw;
  c.oy0 = jBase / s.ow;
  c.ox0 = jBase % s.ow;
  for (int64_t kx = 0; kx < std::min<int64_t>(s.kw, 16); ++kx)
    insideRange(s, -s.pl + kx * s.dw, s.ow, c.fullLo[kx], c.fullHi[kx]);
  return c;
}

/// d[0, n) = src[0, n): 16-byte moves, the last one overlapping (runs
/// are a few dozen bytes: a library call and a scalar tail would dominate).
inline void copyBytes(const uint8_t *__restrict src, uint8_t *__restrict d,
                      int64_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
      _mm_storeu_si128(
          reinterpret_cast<__m128i *>(d + i),
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i)));
    if (i < n)
      _mm_storeu_si128(
          reinterpret_cast<__m128i *>(d + n - 16),
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + n - 16)));
    return;
  }
  if (n >= 8) {
    uint64_t a, b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + n - 8, 8);
    std::memcpy(d, &a, 8);
    std::memcpy(d + n - 8, &b, 8);
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i)
    d[i] = src[i];
}

/// d[0, n) = v, as copyBytes.
inline void fillBytes(uint8_t *__restrict d, uint8_t v, int64_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    __m128i b = _mm_set1_epi8(char(v));
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
      _mm_storeu_si128(reinterpret_cast<__m128i *>(d + i), b);
    if (i < n)
      _mm_storeu_si128(reinterpret_cast<__m128i *>(d + n - 16), b);
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i)
    d[i] = v;
}

/// d[i] = src[2 * i] for i in [lo, hi); src has `avail` readable bytes
/// and hi <= (avail + 1) / 2 (so the last element read, src[2 hi - 2],
/// is inside). Vector windows of 16 or 8 outputs, the last one
/// overlapping the previous (rows of 14 or 28 outputs take no scalar
/// loop); the upper half of each window is read one byte early and
/// shifted back, so no window reads past src[2 hi - 2].
inline void copyStride2(const uint8_t *__restrict src, uint8_t *__restrict d,
                        int64_t lo, int64_t hi, int64_t avail) {
  (void)avail;
#if defined(__SSE2__)
  __m128i even = _mm_set1_epi16(0x00ff);
  auto load16 = [](const uint8_t *p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  };
  auto load8 = [](const uint8_t *p) {
    return _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p));
  };
  // Outputs [i, i + 16): src[2i, 2i + 16) and src[2i + 15, 2i + 31) >> 1
  // byte (src[2i + 16, 2i + 30] at the even places).
  auto window16 = [&](int64_t i) {
    __m128i a = load16(src + 2 * i);
    __m128i b = _mm_bsrli_si128(load16(src + 2 * i + 15), 1);
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(d + i),
        _mm_packus_epi16(_mm_and_si128(a, even), _mm_and_si128(b, even)));
  };
  // Outputs [i, i + 8): src[2i, 2i + 8) and src[2i + 7, 2i + 15) >> 1
  // byte.
  auto window8 = [&](int64_t i) {
    __m128i a = load8(src + 2 * i);
    __m128i b = _mm_srli_epi64(load8(src + 2 * i + 7), 8);
    __m128i v = _mm_and_si128(_mm_unpacklo_epi64(a, b), even);
    _mm_storel_epi64(reinterpret_cast<__m128i *>(d + i),
                     _mm_packus_epi16(v, v));
  };
  int64_t n = hi - lo;
  if (n >= 16) {
    int64_t i = lo;
    for (; i + 16 <= hi; i += 16)
      window16(i);
    if (i < hi)
      window16(hi - 16);
    return;
  }
  if (n >= 8) {
    window8(lo);
    window8(hi - 8);
    return;
  }
#endif
  for (int64_t i = lo; i < hi; ++i)
    d[i] = src[2 * i];
}

/// B[k, jBase + 0..cols) in `out` for the cursor's row k, before the XOR
/// (the columns past `cols`, up to the panel end, are don't-cares).
void im2colRow(const Im2colCtx &ctx, const Im2colCursor &c, int64_t jBase,
               int64_t cols, uint8_t *out) {
  const Conv2dShape &s = *ctx.s;
  int64_t ohw = s.oh * s.ow;
  if (c.k >= s.gemmK()) {
    std::memset(out, 0, size_t(cols));
    return;
  }
  if (ctx.direct) {
    std::memcpy(out, ctx.x + c.k * ohw + jBase, size_t(cols));
    return;
  }
  const uint8_t *xc = ctx.x + c.ch * s.h * s.w;
  int64_t oy = c.oy0, ox = c.ox0;
  for (int64_t jj = 0; jj < cols; ++oy, ox = 0) {
    int64_t len = std::min(cols - jj, s.ow - ox);
    uint8_t *__restrict d = out + jj;
    jj += len;
    uint8_t pad = ctx.pad;
    int64_t iy = oy * s.sh - s.pt + c.ky * s.dh;
    if (iy < 0 || iy >= s.h) {
      for (int64_t i = 0; i < len; ++i)
        d[i] = pad;
      continue;
    }
    int64_t ix = ox * s.sw - s.pl + c.kx * s.dw;
    int64_t lo, hi;
    if (ox == 0 && len == s.ow && c.kx < 16) {
      lo = c.fullLo[c.kx];
      hi = c.fullHi[c.kx];
    } else {
      insideRange(s, ix, len, lo, hi);
    }
    // Short runs (a few output columns): plain loops, no library calls.
    const uint8_t *__restrict src = xc + iy * s.w + ix;
    for (int64_t i = 0; i < lo; ++i)
      d[i] = pad;
    if (s.sw == 1)
      copyBytes(src + lo, d + lo, hi - lo);
    else if (s.sw == 2)
      copyStride2(src, d, lo, hi, s.w - ix);
    else
      for (int64_t i = lo; i < hi; ++i)
        d[i] = src[i * s.sw];
    for (int64_t i = hi; i < len; ++i)
      d[i] = pad;
  }
}

/// d[c * 4 + q] = r[q][c] ^ x for the 16 columns c of four rows q.
void interleave4(const uint8_t *const r[4], uint8_t x, uint8_t *d) {
#if defined(__SSE2__)
  __m128i xv = _mm_set1_epi8(char(x));
  __m128i r0 = _mm_xor_si128(
      _mm_loadu_si128(reinterpret_cast<const __m128i *>(r[0])), xv);
  __m128i r1 = _mm_xor_si128(
      _mm_loadu_si128(reinterpret_cast<const __m128i *>(r[1])), xv);
  __m128i r2 = _mm_xor_si128(
      _mm_loadu_si128(reinterpret_cast<const __m128i *>(r[2])), xv);
  __m128i r3 = _mm_xor_si128(
      _mm_loadu_si128(reinterpret_cast<const __m128i *>(r[3])), xv);
  __m128i a = _mm_unpacklo_epi8(r0, r1), a2 = _mm_unpackhi_epi8(r0, r1);
  __m128i b = _mm_unpacklo_epi8(r2, r3), b2 = _mm_unpackhi_epi8(r2, r3);
  auto *o = reinterpret_cast<__m128i *>(d);
  _mm_storeu_si128(o, _mm_unpacklo_epi16(a, b));
  _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(a, b));
  _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(a2, b2));
  _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(a2, b2));
#else
  for (int64_t c = 0; c < kPC; ++c)
    for (int64_t q = 0; q < 4; ++q)
      d[c * 4 + q] = r[q][c] ^ x;
#endif
}

/// Writes B groups [g0, g0 + gc) x columns [j0, j0 + nc) as 16-column
/// panels: per K group, its four rows over all nc columns (im2colRow, or
/// the input itself for a 1x1 convolution), then 16 columns at a time
/// interleaved into the panels' 4-byte K groups.
void packIm2col(const void *ctxPtr, int64_t g0, int64_t gc, int64_t j0,
                int64_t nc, uint8_t *dst) {
  const Im2colCtx &ctx = *static_cast<const Im2colCtx *>(ctxPtr);
  int64_t ohw = ctx.s->oh * ctx.s->ow, k = ctx.s->gemmK();
  int64_t cols = std::min(j0 + nc, ohw) - j0;
  int64_t panels = (nc + kPC - 1) / kPC;
  int64_t stride = panels * kPC;
  thread_local std::vector<uint8_t> rowBuf;
  if (rowBuf.size() < size_t(4 * stride))
    rowBuf.resize(size_t(4 * stride));
  Im2colCursor cursor = im2colCursor(*ctx.s, g0 * 4, j0);
  for (int64_t g = 0; g < gc; ++g) {
    int64_t k0 = (g0 + g) * 4;
    const uint8_t *r[4];
    bool inPlace = ctx.direct && k0 + 3 < k;
    for (int64_t q = 0; q < 4; ++q) {
      uint8_t *row = rowBuf.data() + q * stride;
      if (inPlace) {
        r[q] = ctx.x + (k0 + q) * ohw + j0;
        // Only the last, partial panel reads the copy.
        int64_t tail = cols % kPC;
        if (tail)
          std::memcpy(row + (cols - tail), r[q] + (cols - tail), size_t(tail));
      } else {
        im2colRow(ctx, cursor, j0, cols, row);
        r[q] = row;
      }
      cursor.next(*ctx.s);
    }
    int64_t p = 0;
    if (ctx.il64)
      for (; p + 4 <= panels && (!inPlace || (p + 4) * kPC <= cols); p += 4) {
        const uint8_t *rp[4];
        for (int64_t q = 0; q < 4; ++q)
          rp[q] = (inPlace ? r[q] : rowBuf.data() + q * stride) + p * kPC;
        ctx.il64(rp, ctx.xorv, dst + p * gc * kBGroup + g * kBGroup,
                 gc * kBGroup);
      }
    for (; p < panels; ++p) {
      const uint8_t *rp[4];
      bool copied = !inPlace || (p + 1) * kPC > cols;
      for (int64_t q = 0; q < 4; ++q)
        rp[q] = (copied ? rowBuf.data() + q * stride : r[q]) + p * kPC;
      interleave4(rp, ctx.xorv, dst + p * gc * kBGroup + g * kBGroup);
    }
  }
}

bool columnsAreInput(const Conv2dShape &s) {
  return s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.pt == 0 &&
         s.pl == 0 && s.pb == 0 && s.pr == 0 && s.oh == s.h && s.ow == s.w;
}

} // namespace

namespace {

/// A convolution computed over the padded width, its input split into
/// stride phases: phase (a, b) of the padded input holds rows a, a + SH,
/// .. and columns b, b + SW, .. (for stride 1, the padded input itself).
/// Output (oy, ox) of tap (ky, kx) reads phase ((ky DH) % SH, (kx DW) % SW)
/// at row oy + (ky DH) / SH, column ox + (kx DW) / SW, so with virtual
/// columns j = oy * QW + ox (QW the phases' width) B's row k = (channel,
/// ky, kx) is one contiguous run of a phase: an implicit im2col, the panels
/// interleaved straight from it. Only the rows a column chunk reads are
/// built, and only the phases some tap reads.
struct PaddedCtx {
  const Conv2dShape *s;
  const uint8_t *rows; ///< per (channel, a, b): `nrows` x qw bytes
  int64_t nrows, qw;
  int64_t base; ///< the virtual column of each phase's first row
  uint8_t xorv;
  detail::Int8Interleave64 il64; ///< four panels at once, or null
  /// Per tap ky * KW + kx: where its run starts inside a channel's phases
  /// (no divisions while packing).
  const int64_t *tapOffset;
  bool tapMajor; ///< the filter's K order (KRowCursor)
};

/// K row k's input channel and tap (ky * KW + kx) in the filter's K order
/// (int8ConvTapMajor: tap-major, channel-fastest; else channel-major),
/// advanced row by row without divisions.
struct KRowCursor {
  int64_t k, ch, tap;
  bool tapMajor;
  KRowCursor(const Conv2dShape &s, int64_t k0, bool tapMajor)
      : k(k0), tapMajor(tapMajor) {
    int64_t taps = s.kh * s.kw;
    ch = tapMajor ? k0 % s.c : k0 / taps;
    tap = tapMajor ? k0 / s.c : k0 % taps;
  }
  void next(const Conv2dShape &s) {
    ++k;
    if (tapMajor) {
      if (++ch == s.c) {
        ch = 0;
        ++tap;
      }
    } else if (++tap == s.kh * s.kw) {
      tap = 0;
      ++ch;
    }
  }
};

void packPadded(const void *ctxPtr, int64_t g0, int64_t gc, int64_t j0,
                int64_t nc, uint8_t *dst) {
  const PaddedCtx &ctx = *static_cast<const PaddedCtx *>(ctxPtr);
  const Conv2dShape &s = *ctx.s;
  int64_t k = s.gemmK(), panels = (nc + kPC - 1) / kPC;
  alignas(64) static const uint8_t zeros[64] = {};
  KRowCursor c(s, g0 * 4, ctx.tapMajor);
  int64_t chStride = s.sh * s.sw * ctx.nrows * ctx.qw;
  const uint8_t *first = ctx.rows + (j0 - ctx.base);
  for (int64_t g = 0; g < gc; ++g) {
    const uint8_t *r[4];
    bool real[4];
    for (int64_t q = 0; q < 4; ++q, c.next(s)) {
      real[q] = c.k < k;
      r[q] = real[q] ? first + c.ch * chStride + ctx.tapOffset[c.tap] : zeros;
    }
    int64_t p = 0;
    if (ctx.il64)
      for (; p + 4 <= panels; p += 4) {
        const uint8_t *rp[4];
        for (int64_t q = 0; q < 4; ++q)
          rp[q] = real[q] ? r[q] + p * kPC : zeros;
        ctx.il64(rp, ctx.xorv, dst + p * gc * kBGroup + g * kBGroup,
                 gc * kBGroup);
      }
    for (; p < panels; ++p) {
      const uint8_t *rp[4];
      for (int64_t q = 0; q < 4; ++q)
        rp[q] = real[q] ? r[q] + p * kPC : zeros;
      interleave4(rp, ctx.xorv, dst + p * gc * kBGroup + g * kBGroup);
    }
  }
}

/// The transposed form's B panels over real output pixels [j0, j0 + nc)
/// (not the padded width) from the phases of a PaddedCtx: each K row is the
/// output rows' runs of its phase, copied 8 bytes at a time when short (the
/// phases have slack; the row buffer too), then interleaved as packIm2col
/// does.
void packPaddedPixels(const void *ctxPtr, int64_t g0, int64_t gc, int64_t j0,
                      int64_t nc, uint8_t *dst) {
  const PaddedCtx &ctx = *static_cast<const PaddedCtx *>(ctxPtr);
  const Conv2dShape &s = *ctx.s;
  int64_t k = s.gemmK(), panels = (nc + kPC - 1) / kPC;
  int64_t stride = panels * kPC + kPC;
  thread_local std::vector<uint8_t> rowBuf;
  if (rowBuf.size() < size_t(4 * stride))
    rowBuf.resize(size_t(4 * stride));
  // The runs: pixel offset, phase offset and length of each output row.
  struct Run {
    int64_t to, from, len;
  };
  thread_local std::vector<Run> runs;
  runs.clear();
  for (int64_t p = j0; p < j0 + nc;) {
    int64_t oy = p / s.ow, ox = p % s.ow;
    int64_t len = std::min(s.ow - ox, j0 + nc - p);
    runs.push_back({p - j0, oy * ctx.qw + ox - ctx.base, len});
    p += len;
  }
  KRowCursor c(s, g0 * 4, ctx.tapMajor);
  int64_t chStride = s.sh * s.sw * ctx.nrows * ctx.qw;
  for (int64_t g = 0; g < gc; ++g) {
    const uint8_t *r[4];
    for (int64_t q = 0; q < 4; ++q, c.next(s)) {
      uint8_t *row = rowBuf.data() + q * stride;
      r[q] = row;
      if (c.k >= k) {
        std::memset(row, 0, size_t(panels * kPC));
        continue;
      }
      const uint8_t *src = ctx.rows + c.ch * chStride + ctx.tapOffset[c.tap];
      for (const Run &run : runs) {
        if (run.len <= 8)
          std::memcpy(row + run.to, src + run.from, 8);
        else
          copyBytes(src + run.from, row + run.to, run.len);
      }
    }
    int64_t p = 0;
    if (ctx.il64)
      for (; p + 4 <= panels; p += 4) {
        const uint8_t *rp[4];
        for (int64_t q = 0; q < 4; ++q)
          rp[q] = r[q] + p * kPC;
        ctx.il64(rp, ctx.xorv, dst + p * gc * kBGroup + g * kBGroup,
                 gc * kBGroup);
      }
    for (; p < panels; ++p) {
      const uint8_t *rp[4];
      for (int64_t q = 0; q < 4; ++q)
        rp[q] = r[q] + p * kPC;
      interleave4(rp, ctx.xorv, dst + p * gc * kBGroup + g * kBGroup);
    }
  }
}

/// Whether some tap reads phase row `a` / column `b`.
bool phaseUsed(int64_t k, int64_t d, int64_t stride, int64_t phase) {
  for (int64_t i = 0; i < k; ++i)
    if (i * d % stride == phase)
      return true;
  return false;
}

/// Fills the phases' rows [r0, r0 + nrows) for the group's cg input planes
/// (the zero point's byte outside the input; unused phases left as they
/// are), then `slack` more bytes.
void fillPhases(const Conv2dShape &s, const uint8_t *x, int64_t cg, int64_t r0,
                int64_t nrows, int64_t qw, uint8_t pad, int64_t slack,
                uint8_t *buf) {
  int64_t plane = nrows * qw;
  for (int64_t a = 0; a < s.sh; ++a) {
    if (!phaseUsed(s.kh, s.dh, s.sh, a))
      continue;
    for (int64_t b = 0; b < s.sw; ++b) {
      if (!phaseUsed(s.kw, s.dw, s.sw, b))
        continue;
      // Phase columns c whose input column (c SW + b - PL) is inside.
      int64_t first = b - s.pl;
      int64_t lo = first >= 0 ? 0 : std::min(qw, (-first + s.sw - 1) / s.sw);
      int64_t hi = s.w - 1 - first < 0
                       ? lo
                       : std::clamp((s.w - 1 - first) / s.sw + 1, lo, qw);
      for (int64_t ch = 0; ch < cg; ++ch) {
        uint8_t *ph = buf + ((ch * s.sh + a) * s.sw + b) * plane;
        // Rows are short (a few dozen bytes): inline moves, no library
        // calls.
        for (int64_t r = 0; r < nrows; ++r) {
          uint8_t *__restrict d = ph + r * qw;
          int64_t iy = (r0 + r) * s.sh + a - s.pt;
          if (iy < 0 || iy >= s.h) {
            fillBytes(d, pad, qw);
            continue;
          }
          const uint8_t *__restrict src = x + (ch * s.h + iy) * s.w + first;
          for (int64_t i = 0; i < lo; ++i)
            d[i] = pad;
          if (s.sw == 1)
            copyBytes(src + lo, d + lo, hi - lo);
          else if (s.sw == 2)
            copyStride2(src, d, lo, hi, s.w - first);
          else
            for (int64_t i = lo; i < hi; ++i)
              d[i] = src[i * s.sw];
          for (int64_t i = hi; i < qw; ++i)
            d[i] = pad;
        }
      }
    }
  }
  std::memset(buf + cg * s.sh * s.sw * plane, pad, size_t(slack));
}

} // namespace

namespace {

/// Output pixels up to which a convolution runs in the transposed form
/// (Int8TransposedTile): a 7 x 7 output fills 49 of 64 lanes as columns but
/// all 16 as channels.
constexpr int64_t kTransposedMaxPixels = 64;

/// Int8FusedRows' channels [c0, c0 + count) (count <= 16) as vector lanes;
/// the other lanes requantize harmlessly (m' 0).
void laneRequant(const detail::Int8FusedRows &fr, int64_t c0, int64_t count,
                 detail::Int8LaneRequant &q) {
  for (int64_t l = 0; l < 16; ++l) {
    int64_t ch = c0 + l;
    bool real = l < count;
    int64_t sv = real ? fr.s[ch] : 32;
    q.corr[l] = real ? fr.corr[ch] : 0;
    q.m[l] = real ? uint32_t(fr.m[ch]) : 0;
    if (l % 2 == 0) {
      q.sEven[l / 2] = uint64_t(sv);
      q.hEven[l / 2] = uint64_t(1) << (sv - 1);
    } else {
      q.sOdd[l / 2] = uint64_t(sv - 32);
      q.hOdd[l / 2] = uint64_t(1) << (sv - 1);
    }
  }
}

/// Whether the transposed form runs a convolution (before the per-row
/// checks of fusedRowsFor).
bool transposedFits(const Conv2dShape &s, const Int8Epilogue &e,
                    Int8Path path) {
  return microkernelFor(path).transposed && s.g == 1 &&
         s.oh * s.ow <= kTransposedMaxPixels && s.gemmK() > 0 &&
         e.rounding == Int8Rounding::HalfAwayFromZero;
}

/// Pixels [colBegin, colEnd) of one image of a convolution in the
/// transposed form: the pixels' im2col columns packed as B panels (pixels
/// then act as the broadcast rows), the filter read as it is packed; false
/// (nothing done) when the path or the epilogue does not allow it (the
/// range may be empty).
bool transposedConv(const Conv2dShape &s, Int8PackBFn pack, const void *packCtx,
                    const uint8_t *filter, const Int8Epilogue &e, uint8_t *y,
                    int64_t colBegin, int64_t colEnd, Int8Path path) {
  Int8MicrokernelInfo uk = microkernelFor(path);
  int64_t ohw = s.oh * s.ow, o = s.o, kp = int8PaddedK(s.gemmK());
  detail::Int8FusedRows fr;
  if (!transposedFits(s, e, path) || !fusedRowsFor(e, 0, o, fr))
    return false;
  if (colBegin >= colEnd)
    return true;
  // The channels' requantization, 16 per block.
  thread_local std::vector<detail::Int8LaneRequant> lanes;
  int64_t blocks = (o + 15) / 16;
  lanes.resize(size_t(blocks + 2)); // a tile reads 3 blocks
  for (int64_t b = 0; b < blocks + 2; ++b)
    laneRequant(fr, b * 16, std::clamp<int64_t>(o - b * 16, 0, 16),
                lanes[size_t(b)]);
  int64_t npix = colEnd - colBegin;
  thread_local std::vector<uint8_t> act;
  int64_t panels = (npix + kPC - 1) / kPC;
  act.resize(size_t(panels * kPC * kp));
  pack(packCtx, 0, kp / 4, colBegin, npix, act.data());
  int64_t filterPanels = (o + kPR - 1) / kPR;
  for (int64_t c0 = 0; c0 < o; c0 += 3 * kPC) {
    int64_t p0 = c0 / kPR;
    const uint8_t *filt = filter + p0 * kp * kPR;
    for (int64_t i = 0; i < npix; i += 8)
      uk.transposed(
          kp / 4, act.data() + (i / kPC) * kp * kPC + (i % kPC) * 4, filt,
          kp * kPR, std::min<int64_t>(4, filterPanels - p0),
          std::min<int64_t>(8, npix - i), std::min<int64_t>(3 * kPC, o - c0),
          &lanes[size_t(c0 / kPC)], fr, y + c0 * ohw + colBegin + i, ohw);
  }
  return true;
}

} // namespace

/// Output widths up to which a padded convolution's B columns are the real
/// pixels: ResNet-50's 14-wide 3 x 3 layers 177 -> 182 GMAC/s, the 28-wide
/// ones slower (175 -> 162: the runs' copies cost more than the 7% of
/// columns they save).
constexpr int64_t kPixelColumnsMaxWidth = 16;
/// Output widths from which a tap-major convolution of stride 1 reads B in
/// place over the padded width: ResNet-50's 14-wide 3 x 3 layers 183 ->
/// 188 GMAC/s against the real pixels' packed columns (16 computed per
/// 14). Strided ones only above kPixelColumnsMaxWidth (the 28 -> 14 3 x 3
/// measured 674 -> 684 us in place).
constexpr int64_t kInPlaceMinWidth = 14;

/// Whether the real-pixel in-place form holds the taps of `s`: at most 8
/// taps a row, every input column a tap reads stored in a phase row of OW
/// columns (ceil((W - b) / SW) <= OW for the phases b the taps read), and
/// those phases among the ones fillPhases builds (taps kx DW mod SW).
static bool pixelsInPlaceFit(const Conv2dShape &s) {
  if (s.kw > 8)
    return false;
  for (int64_t kx = 0; kx < s.kw; ++kx) {
    int64_t u = kx * s.dw - s.pl, b = (u % s.sw + s.sw) % s.sw;
    if ((s.w - b + s.sw - 1) / s.sw > s.ow || !phaseUsed(s.kw, s.dw, s.sw, b))
      return false;
  }
  return true;
}

void int8Conv2dGemm(const Conv2dShape &s, const Int8Input &in, const void *x,
                    const uint8_t *packed, const Int8Epilogue &e, void *y,
                    int64_t workgroups, int64_t begin, int64_t end,
                    bool tapMajor, Int8Path path) {
  tapMajor = tapMajor && int8ConvTapMajor(s);
  int64_t images = s.n * s.g;
  int64_t chunks = conv2dGemmUnits(s, workgroups) / images;
  int64_t og = s.o / s.g, cg = s.c / s.g, k = s.gemmK();
  int64_t ohw = s.oh * s.ow;
  // Chunks of whole 32-column micro-panels (the AVX-512 kernel's width).
  int64_t chunkCols = roundUp((ohw + chunks - 1) / chunks, 2 * kPC);
  uint64_t groupBytes = int8PackedABytes(og, k);
  int64_t elemBytes = e.out == Int8Output::Int32 ? 4 : 1;
  // With a window or a stride: computed over the phases' width (the
  // columns past OW dropped), B straight from the padded phases. Strides
  // above 4 keep the explicit im2col.
  bool padded = !columnsAreInput(s) && s.sh <= 4 && s.sw <= 4;
  int64_t qw = (s.w + s.pl + s.pr + s.sw - 1) / s.sw;
  // B read in place (AVX-512 VNNI): a tap-major filter, K in one block
  // long enough for the pipelined tiles.
  bool inPlaceOk = padded && tapMajor && path == Int8Path::Avx512Vnni &&
                   k / 4 >= kPipelineMinGroups && k <= kKC;
  // Over the real pixels (rows stored without horizontal padding, the taps
  // that fall in it masked to the zero point): stride 1, output rows as
  // wide as the input's, and only where int8Gemm takes the in-place form
  // (there is no packed fallback for this layout).
  bool inPlacePixels =
      inPlaceOk && pixelsInPlaceFit(s) && fusedFormHolds(e, 0, s.o);
  // Else over the padded width, for output rows of at least
  // kInPlaceMinWidth columns (a tile's 32 columns then touch at most 4
  // output rows; int8Gemm packs B instead when the requantization is not
  // of the fused form).
  bool inPlace =
      inPlacePixels ||
      (inPlaceOk && s.ow >= (s.sh * s.sw == 1 ? kInPlaceMinWidth
                                              : kPixelColumnsMaxWidth + 1));
  // Narrow images waste more of the padded width: their B columns are the
  // real pixels, copied run by run from the phases (packPaddedPixels).
  bool pixels = padded && s.ow <= kPixelColumnsMaxWidth && !inPlace;
  bool paddedWidth = padded && !pixels && !inPlacePixels;
  int64_t cols = paddedWidth ? s.oh * qw : ohw;
  if (paddedWidth)
    chunkCols = roundUp((cols + chunks - 1) / chunks, 2 * kPC);
  thread_local std::vector<uint8_t> paddedRows;
  thread_local std::vector<int64_t> tapOffsets;
  thread_local std::vector<uint8_t> quadRows;
  constexpr int64_t kFront = 256;
  thread_local std::vector<int64_t> quadTaps;
  int64_t quadStride = 0;
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t image = unit / chunks, chunk = unit % chunks;
    int64_t n = image / s.g, g = image % s.g;
    const uint8_t *xg =
        static_cast<const uint8_t *>(x) + (n * s.c + g * cg) * s.h * s.w;
    // The phases of the output rows of virtual columns [first, last].
    auto buildPadded = [&](int64_t first, int64_t last) {
      int64_t oy0 = first / qw, oy1 = last / qw;
      int64_t nrows = oy1 - oy0 + 1 + (s.kh - 1) * s.dh / s.sh;
      int64_t slack = qw + 64;
      paddedRows.resize(size_t(cg * s.sh * s.sw * nrows * qw + slack));
      fillPhases(s, xg, cg, oy0, nrows, qw, uint8_t(in.zp), slack,
                 paddedRows.data());
      tapOffsets.resize(size_t(s.kh * s.kw));
      int64_t plane = nrows * qw;
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          int64_t dy = ky * s.dh, dx = kx * s.dw;
          tapOffsets[size_t(ky * s.kw + kx)] =
              (dy % s.sh * s.sw + dx % s.sw) * plane + dy / s.sh * qw +
              dx / s.sw;
        }
      return PaddedCtx{&s,
                       paddedRows.data(),
                       nrows,
                       qw,
                       oy0 * qw,
                       uint8_t(in.isUnsigned ? 0 : 0x80),
                       microkernelFor(path).interleave64,
                       tapOffsets.data(),
                       tapMajor};
    };
    if (transposedFits(s, e, path) && (padded || columnsAreInput(s))) {
      // Small outputs: pixels as rows, channels in the lanes (the real
      // pixels' im2col columns, not the padded width).
      Im2colCtx tctx{&s,
                     xg,
                     uint8_t(in.isUnsigned ? 0 : 0x80),
                     uint8_t(in.zp),
                     true,
                     microkernelFor(path).interleave64};
      int64_t pixChunk = roundUp((ohw + chunks - 1) / chunks, 2 * kPC);
      int64_t pixBegin = chunk * pixChunk;
      int64_t pixEnd = std::min(ohw, pixBegin + pixChunk);
      PaddedCtx tpc;
      if (padded && pixBegin < pixEnd)
        tpc = buildPadded(pixBegin / s.ow * qw, (pixEnd - 1) / s.ow * qw);
      if (transposedConv(s, padded ? packPaddedPixels : packIm2col,
                         padded ? static_cast<const void *>(&tpc)
                                : static_cast<const void *>(&tctx),
                         packed, e, static_cast<uint8_t *>(y) + n * s.o * ohw,
                         pixBegin, pixEnd, path))
        continue;
    }
    int64_t colBegin = chunk * chunkCols;
    int64_t colEnd = std::min(cols, colBegin + chunkCols);
    if (colBegin >= colEnd)
      continue;
    PaddedCtx pctx;
    Conv2dShape unpadded = s;
    unpadded.pl = unpadded.pr = 0;
    if (inPlacePixels) {
      // The phases of the chunk's output rows' taps without horizontal
      // padding, OW bytes a row (phase b's column c: input column c SW +
      // b). Tap (ky, kx) of output (oy, ox) reads phase ((ky DH) % SH,
      // (kx DW - PL) mod SW) at row oy + (ky DH) / SH, column ox +
      // floor((kx DW - PL) / SW).
      int64_t oy0 = colBegin / s.ow, oy1 = (colEnd - 1) / s.ow;
      int64_t nrows = oy1 - oy0 + 1 + (s.kh - 1) * s.dh / s.sh;
      int64_t slack = s.ow + 64, plane = nrows * s.ow;
      paddedRows.resize(size_t(cg * s.sh * s.sw * plane + slack));
      fillPhases(unpadded, xg, cg, oy0, nrows, s.ow, uint8_t(in.zp), slack,
                 paddedRows.data());
      tapOffsets.resize(size_t(s.kh * s.kw));
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          int64_t dy = ky * s.dh, u = kx * s.dw - s.pl;
          int64_t b = (u % s.sw + s.sw) % s.sw, coff = (u - b) / s.sw;
          tapOffsets[size_t(ky * s.kw + kx)] =
              (dy % s.sh * s.sw + b) * plane + dy / s.sh * s.ow + coff;
        }
      pctx = PaddedCtx{&s,
                       paddedRows.data(),
                       nrows,
                       s.ow,
                       oy0 * s.ow,
                       uint8_t(in.isUnsigned ? 0 : 0x80),
                       microkernelFor(path).interleave64,
                       tapOffsets.data(),
                       tapMajor};
    } else if (pixels) {
      pctx = buildPadded(colBegin / s.ow * qw, (colEnd - 1) / s.ow * qw);
    } else if (padded) {
      pctx = buildPadded(colBegin, colEnd - 1);
    }
    if (inPlace) {
      // The padded input with 4 channels interleaved (XORed as packing
      // would): B's K groups read in place.
      // A channel's phases, `plane` bytes (unused phases hold whatever the
      // buffer held: no tap reads them).
      int64_t plane = s.sh * s.sw * pctx.nrows * pctx.qw, quads = cg / 4;
      quadStride = roundUp(plane, 64) * 4;
      // kFront bytes before the first quad: a masked lane's address may
      // lie before it (masked lanes are not read).
      quadRows.resize(
          size_t(kFront + quads * quadStride + (pctx.qw + 64) * 4 + 256));
      detail::Int8Interleave64 il64 = microkernelFor(path).interleave64;
      for (int64_t q = 0; q < quads; ++q) {
        const uint8_t *r[4];
        for (int64_t i = 0; i < 4; ++i)
          r[i] = pctx.rows + (4 * q + i) * plane;
        uint8_t *d = quadRows.data() + kFront + q * quadStride;
        // Rows are read up to 63 bytes past the plane: the next channel's,
        // or the phases' slack after the last.
        for (int64_t c = 0; c < plane; c += 64) {
          const uint8_t *rc[4] = {r[0] + c, r[1] + c, r[2] + c, r[3] + c};
          if (il64) {
            il64(rc, pctx.xorv, d + c * 4, 64);
            continue;
          }
          for (int64_t p16 = 0; p16 < 64; p16 += 16) {
            const uint8_t *r16[4] = {rc[0] + p16, rc[1] + p16, rc[2] + p16,
                                     rc[3] + p16};
            interleave4(r16, pctx.xorv, d + (c + p16) * 4);
          }
        }
      }
      quadTaps.resize(size_t(s.kh * s.kw));
      for (int64_t t = 0; t < s.kh * s.kw; ++t)
        quadTaps[size_t(t)] = pctx.tapOffset[t] * 4;
    }
    Im2colCtx ctx{&s,
                  xg,
                  uint8_t(in.isUnsigned ? 0 : 0x80),
                  uint8_t(in.zp),
                  columnsAreInput(s),
                  microkernelFor(path).interleave64};

    Int8GemmProblem p;
    p.m = og;
    p.n = cols;
    p.k = k;
    p.aPacked = packed + g * groupBytes;
    p.aUnsigned = false;
    p.bPackFn = pixels ? packPaddedPixels : padded ? packPadded : packIm2col;
    p.bPackCtx = padded ? static_cast<const void *>(&pctx)
                        : static_cast<const void *>(&ctx);
    if (paddedWidth) {
      p.colPitch = qw;
      p.colValid = s.ow;
    }
    if (inPlacePixels) {
      p.inPlaceW = s.w;
      p.inPlaceOw = s.ow;
      p.inPlaceSw = s.sw;
      p.inPlaceKw = s.kw;
      p.inPlaceDw = s.dw;
      p.inPlacePl = s.pl;
      p.inPlacePad = 0x01010101u * uint8_t(uint8_t(in.zp) ^ pctx.xorv);
    }
    if (inPlace) {
      p.inPlaceB = quadRows.data() + kFront;
      p.inPlaceCol0 = pctx.base;
      p.inPlaceTap = quadTaps.data();
      p.inPlaceTaps = s.kh * s.kw;
      p.inPlaceQuadStride = quadStride;
    }
    p.c = static_cast<uint8_t *>(y) + (n * s.o + g * og) * ohw * elemBytes;
    p.ldc = ohw;
    p.epilogue = e;
    // The channel arrays start at the group's first output channel.
    int64_t c0 = g * og;
    if (e.corr)
      p.epilogue.corr = e.corr + c0;
    if (e.multiplier) {
      p.epilogue.multiplier = e.multiplier + c0;
      p.epilogue.shift = e.shift + c0;
    }
    int8Gemm(p, 0, og, colBegin, colEnd, path);
  }
}

/// The largest input planes (pixels) the depthwise runs with the channels
/// in the lanes: its padded plane of 16 int32 lanes per pixel (64 bytes)
/// stays in L2; strided layers only up to a quarter of that (measured on
/// MobileNetV2's 112 x 112 stride-2 layer, slower than plane by plane).
constexpr int64_t kLanesMaxPlane = 16384, kLanesMaxStridedPlane = 4096;

void int8Conv2dDepthwise(const Conv2dShape &s, const Int8Input &in,
                         const void *x, const int8_t *filter,
                         const Int8Epilogue &e, void *y, int64_t begin,
                         int64_t end, Int8Path path) {
  Int8MicrokernelInfo uk = microkernelFor(path);
  int64_t ohw = s.oh * s.ow, hw = s.h * s.w, og = s.o / s.g;
  int64_t elemBytes = e.out == Int8Output::Int32 ? 4 : 1;
  auto *acc = static_cast<int32_t *>(scratchC.get(size_t(ohw) * 4));
  // The requantization of the common form in vector registers.
  detail::Int8FusedRows fr;
  bool fused = uk.fusedRow && fusedRowsFor(e, 0, s.o, fr);
  if (fused && uk.depthwiseLanes && fr.rounding == 0 && og == 1 &&
      hw <= (s.sh == 1 && s.sw == 1 ? kLanesMaxPlane : kLanesMaxStridedPlane) &&
      s.kh * s.kw <= 25) {
    // Small planes: 16 channels at a time in the vector lanes.
    for (int64_t plane = begin; plane < end;) {
      int64_t n = plane / s.o, o = plane % s.o;
      int64_t count = std::min({int64_t(16), end - plane, s.o - o});
      detail::Int8LaneRequant rq;
      laneRequant(fr, o, count, rq);
      uk.depthwiseLanes(s, static_cast<const uint8_t *>(x) + (n * s.c + o) * hw,
                        in.isUnsigned, in.zp, filter + o * s.kh * s.kw, count,
                        rq, fr, static_cast<uint8_t *>(y) + plane * ohw);
      plane += count;
    }
    return;
  }
  for (int64_t plane = begin; plane < end; ++plane) {
    int64_t n = plane / s.o, o = plane % s.o, c = o / og;
    uk.depthwise(s, static_cast<const uint8_t *>(x) + (n * s.c + c) * hw,
                 in.isUnsigned, in.zp, filter + o * s.kh * s.kw, acc);
    auto *out = static_cast<uint8_t *>(y) + plane * ohw * elemBytes;
    if (fused)
      uk.fusedRow(acc, ohw, fr, o, out);
    else
      uk.epilogue(acc, 0, 1, ohw, o, 0, e, out, ohw);
  }
}

} // namespace strata::kernels
