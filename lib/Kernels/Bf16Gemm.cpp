//===- Bf16Gemm.cpp - the bf16 GEMM driver, packing and epilogue ----------===//
//
// Loops as the int8 GEMM (Int8Gemm.cpp): column blocks of NC, K blocks of
// KC (the f32 accumulators of the column block persist across them), row
// blocks of MC, micro-tiles; each tile's epilogue runs right after its last
// K block. Compiled for the baseline ISA; the AVX512-BF16 microkernel is in
// Bf16MicrokernelAvx512.cpp.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Bf16Gemm.h"

#include "Bf16Microkernels.h"
#include "Scratch.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace strata::kernels {

namespace {

constexpr int64_t kKC = 512; ///< K block (elements, a multiple of 2)
constexpr int64_t kMC = 96;
constexpr int64_t kNC = 256;
constexpr int64_t kPR = kPanelRows, kPC = kPanelCols;

int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

thread_local detail::Scratch scratchA, scratchB, scratchC;

/// The portable microkernel: per K group, the odd then the even product
/// added to the f32 accumulator, as `vdpbf16ps` does (a bf16 product is
/// exact in f32, so each step is one rounding, like the FMA).
void portableMicrokernel(int64_t groups, const uint16_t *a, const uint16_t *b,
                         int64_t bPanelStride, float *c, int64_t ldc,
                         int64_t mr, int64_t nr, bool accumulate) {
  float acc[kPR][2 * kPC] = {};
  for (int64_t g = 0; g < groups; ++g) {
    const uint16_t *ag = a + g * 2 * kPR;
    for (int64_t half = 0; half < (nr > kPC ? 2 : 1); ++half) {
      const uint16_t *bg = b + half * bPanelStride + g * 2 * kPC;
      for (int64_t i = 0; i < mr; ++i) {
        float a0 = fromBf16(ag[i * 2]), a1 = fromBf16(ag[i * 2 + 1]);
        for (int64_t j = 0; j < kPC; ++j) {
          float &s = acc[i][half * kPC + j];
          s += a1 * fromBf16(bg[j * 2 + 1]);
          s += a0 * fromBf16(bg[j * 2]);
        }
      }
    }
  }
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < nr; ++j)
      c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
}

detail::Bf16MicrokernelInfo microkernelFor(Bf16Path path) {
  if (path == Bf16Path::Avx512Bf16)
    return detail::bf16Avx512Microkernel();
  return {kPR, 2 * kPC, portableMicrokernel};
}

/// Packs rows [i0, i0 + mc) (clipped to m) and K [k0, k0 + kc) of a plain
/// A into 12-row panels of kc / 2 groups, zero-padded.
void packABlock(const uint16_t *a, int64_t lda, int64_t m, int64_t k,
                int64_t i0, int64_t mc, int64_t k0, int64_t kc, uint16_t *dst) {
  int64_t groups = kc / 2;
  for (int64_t p = 0; p < mc; p += kPR, dst += groups * 2 * kPR) {
    int64_t rows = std::min<int64_t>(kPR, std::min(mc, m - i0) - p);
    for (int64_t r = 0; r < kPR; ++r)
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t q = 0; q < 2; ++q) {
          int64_t kk = k0 + 2 * g + q;
          dst[g * 2 * kPR + r * 2 + q] =
              r < rows && kk < k ? a[(i0 + p + r) * lda + kk] : uint16_t(0);
        }
  }
}

/// toBf16 without branches (the same bits: round to nearest even, a NaN
/// kept a quiet NaN), so the row loops below vectorize.
inline uint16_t toBf16Select(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  uint32_t nan = (u >> 16) | 0x40u;
  return uint16_t((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

void epilogue(const Bf16GemmProblem &p, const float *acc, int64_t ldacc,
              int64_t rows, int64_t cols, int64_t row0, int64_t col0) {
  // The common forms of the convolutions (per-row bias or none, no
  // activation, relu or clip, bf16 output) as branch-free row loops.
  if (p.outBf16 && p.biasMode != BiasMode::PerCol &&
      (p.act == Activation::None || p.act == Activation::Relu ||
       p.act == Activation::Clip)) {
    bool relu = p.act == Activation::Relu, clip = p.act == Activation::Clip;
    float lo = p.p0, hi = p.p1;
    for (int64_t i = 0; i < rows; ++i) {
      float b = p.biasMode == BiasMode::PerRow ? p.bias[row0 + i] : 0.0f;
      const float *a = acc + i * ldacc;
      uint16_t *out = static_cast<uint16_t *>(p.c) + (row0 + i) * p.ldc + col0;
      if (relu)
        for (int64_t j = 0; j < cols; ++j)
          out[j] = toBf16Select(std::max(a[j] + b, 0.0f));
      else if (clip) // as kernels::activate
        for (int64_t j = 0; j < cols; ++j)
          out[j] = toBf16Select(std::min(std::max(a[j] + b, lo), hi));
      else
        for (int64_t j = 0; j < cols; ++j)
          out[j] = toBf16Select(a[j] + b);
    }
    return;
  }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float v = acc[i * ldacc + j];
      if (p.biasMode == BiasMode::PerRow)
        v += p.bias[row0 + i];
      else if (p.biasMode == BiasMode::PerCol)
        v += p.bias[col0 + j];
      if (p.act != Activation::None)
        v = activate(v, p.act, p.p0, p.p1);
      int64_t at = (row0 + i) * p.ldc + col0 + j;
      if (p.outBf16)
        static_cast<uint16_t *>(p.c)[at] = toBf16(v);
      else
        static_cast<float *>(p.c)[at] = v;
    }
}

} // namespace

bool bf16PathSupported(Bf16Path path) {
  if (path == Bf16Path::Portable)
    return true;
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

Bf16Path bf16PathFor(Isa isa) {
  return isa == Isa::Avx512 && bf16PathSupported(Bf16Path::Avx512Bf16)
             ? Bf16Path::Avx512Bf16
             : Bf16Path::Portable;
}

const char *bf16PathName(Bf16Path path) {
  return path == Bf16Path::Avx512Bf16 ? "avx512-bf16" : "portable";
}

static uint64_t panelElems(int64_t lines, int64_t panel, int64_t k) {
  uint64_t n;
  if (lines < 0 || k < 0 || lines > INT64_MAX - panel || k > INT64_MAX - 2 ||
      __builtin_mul_overflow(uint64_t(roundUp(lines, panel)),
                             uint64_t(roundUp(k, 2)), &n))
    return 0;
  return n;
}

uint64_t bf16PackedAElems(int64_t m, int64_t k) {
  return panelElems(m, kPR, k);
}
uint64_t bf16PackedBElems(int64_t k, int64_t n) {
  return panelElems(n, kPC, k);
}

void bf16PackA(const uint16_t *a, int64_t lda, int64_t m, int64_t k,
               uint16_t *dst) {
  packABlock(a, lda, m, k, 0, roundUp(m, kPR), 0, roundUp(k, 2), dst);
}

void bf16PackB(const uint16_t *b, int64_t ldb, bool transposed, int64_t k,
               int64_t n, uint16_t *dst) {
  int64_t kp = roundUp(k, 2);
  for (int64_t p = 0; p < roundUp(n, kPC); p += kPC, dst += kp * kPC)
    for (int64_t g = 0; g < kp / 2; ++g)
      for (int64_t c = 0; c < kPC; ++c)
        for (int64_t q = 0; q < 2; ++q) {
          int64_t kk = 2 * g + q, j = p + c;
          dst[g * 2 * kPC + c * 2 + q] =
              kk < k && j < n ? (transposed ? b[j * ldb + kk] : b[kk * ldb + j])
                              : uint16_t(0);
        }
}

void bf16Gemm(const Bf16GemmProblem &p, int64_t rowBegin, int64_t rowEnd,
              int64_t colBegin, int64_t colEnd, Bf16Path path) {
  if (rowBegin >= rowEnd || colBegin >= colEnd)
    return;
  detail::Bf16MicrokernelInfo uk = microkernelFor(path);
  int64_t kp = roundUp(p.k, 2);
  int64_t ldacc = roundUp(std::min(kNC, colEnd - colBegin), 2 * kPC);
  if (kp == 0) {
    float *zeros = scratchC.get<float>(size_t(ldacc));
    std::fill(zeros, zeros + ldacc, 0.0f);
    for (int64_t jc = colBegin; jc < colEnd; jc += kNC)
      for (int64_t i = rowBegin; i < rowEnd; ++i)
        epilogue(p, zeros, 0, 1, std::min(kNC, colEnd - jc), i, jc);
    return;
  }
  int64_t kBlocks = (kp + kKC - 1) / kKC;
  int64_t kcMax = roundUp((kp + kBlocks - 1) / kBlocks, 2);
  int64_t accRows =
      kBlocks > 1 ? roundUp(rowEnd - rowBegin, kPR) : roundUp(kMC, kPR);
  float *acc = scratchC.get<float>(size_t(accRows * ldacc));
  for (int64_t jc = colBegin; jc < colEnd; jc += kNC) {
    int64_t nc = std::min(kNC, colEnd - jc);
    for (int64_t pc = 0; pc < kp; pc += kcMax) {
      int64_t kc = std::min(kcMax, kp - pc);
      bool last = pc + kc >= kp;
      const uint16_t *bBlock = p.bPacked + (jc / kPC) * kp * kPC + pc * kPC;
      int64_t bPanelStride = kp * kPC;
      for (int64_t ic = rowBegin; ic < rowEnd; ic += kMC) {
        int64_t mc = std::min(kMC, rowEnd - ic);
        const uint16_t *aBlock;
        int64_t aPanelStride;
        if (p.aPacked) {
          aBlock = p.aPacked + (ic / kPR) * kp * kPR + pc * kPR;
          aPanelStride = kp * kPR;
        } else {
          uint16_t *buf = scratchA.get<uint16_t>(size_t(roundUp(mc, kPR) * kc));
          packABlock(p.aPlain, p.lda, p.m, p.k, ic, mc, pc, kc, buf);
          aBlock = buf;
          aPanelStride = kc * kPR;
        }
        float *accBlock = acc + (kBlocks > 1 ? ic - rowBegin : 0) * ldacc;
        for (int64_t jr = 0; jr < nc; jr += uk.nr) {
          int64_t nr = std::min(uk.nr, nc - jr);
          const uint16_t *bp = bBlock + (jr / kPC) * bPanelStride;
          for (int64_t ir = 0; ir < mc; ir += uk.mr) {
            int64_t mr = std::min(uk.mr, mc - ir);
            const uint16_t *ap =
                aBlock + (ir / kPR) * aPanelStride + (ir % kPR) * 2;
            float *tile = accBlock + ir * ldacc + jr;
            uk.fn(kc / 2, ap, bp, bPanelStride, tile, ldacc, mr, nr, pc > 0);
            if (last)
              epilogue(p, tile, ldacc, mr, nr, ic + ir, jc + jr);
          }
        }
      }
    }
  }
}

/// Row `kk` of image `img`'s im2col matrix, columns [j0, j0 + nc), into
/// `row`: output row by output row, the in-range span of a stride-1 window
/// copied whole.
static void im2colRow(const Conv2dShape &s, const uint16_t *img, int64_t kk,
                      int64_t j0, int64_t nc, uint16_t *row) {
  int64_t ci = kk / (s.kh * s.kw), ky = kk / s.kw % s.kh, kx = kk % s.kw;
  const uint16_t *plane = img + ci * s.h * s.w;
  for (int64_t j = 0; j < nc;) {
    int64_t oy = (j0 + j) / s.ow, ox0 = (j0 + j) % s.ow;
    int64_t span = std::min(nc - j, s.ow - ox0);
    int64_t iy = oy * s.sh - s.pt + ky * s.dh;
    uint16_t *r = row + j;
    if (iy < 0 || iy >= s.h) {
      std::fill(r, r + span, uint16_t(0));
    } else {
      const uint16_t *src = plane + iy * s.w;
      int64_t ixBase = ox0 * s.sw - s.pl + kx * s.dw;
      if (s.sw == 1) {
        // ix = ixBase + t in [0, w) for t in [lo, hi).
        int64_t lo = std::clamp<int64_t>(-ixBase, 0, span);
        int64_t hi = std::clamp<int64_t>(s.w - ixBase, lo, span);
        std::fill(r, r + lo, uint16_t(0));
        std::memcpy(r + lo, src + ixBase + lo, size_t(hi - lo) * 2);
        std::fill(r + hi, r + span, uint16_t(0));
      } else {
        for (int64_t t = 0; t < span; ++t) {
          int64_t ix = ixBase + t * s.sw;
          r[t] = ix >= 0 && ix < s.w ? src[ix] : uint16_t(0);
        }
      }
    }
    j += span;
  }
}

void bf16PackIm2col(const Conv2dShape &s, const uint16_t *x, int64_t image,
                    int64_t j0, int64_t nc, uint16_t *dst) {
  int64_t k = s.gemmK(), kp = roundUp(k, 2), ncp = roundUp(nc, kPC);
  const uint16_t *img = x + image * s.c * s.h * s.w;
  bool plain = s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.pt == 0 &&
               s.pl == 0 && s.oh == s.h && s.ow == s.w;
  // Two rows of the matrix (a K pair), zero past nc.
  thread_local std::vector<uint16_t> rows;
  rows.assign(size_t(2 * ncp), 0);
  for (int64_t kk = 0; kk < kp; kk += 2) {
    const uint16_t *r[2];
    for (int q = 0; q < 2; ++q) {
      uint16_t *buf = rows.data() + q * ncp;
      if (kk + q >= k) {
        std::fill(buf, buf + ncp, uint16_t(0));
        r[q] = buf;
      } else if (plain && nc == ncp) {
        r[q] = img + (kk + q) * s.h * s.w + j0;
      } else if (plain) {
        std::memcpy(buf, img + (kk + q) * s.h * s.w + j0, size_t(nc) * 2);
        r[q] = buf;
      } else {
        im2colRow(s, img, kk + q, j0, nc, buf);
        r[q] = buf;
      }
    }
    // Interleave the pair into each panel's group kk / 2.
    for (int64_t p = 0; p < ncp; p += kPC) {
      uint32_t *d =
          reinterpret_cast<uint32_t *>(dst + (p / kPC) * kp * kPC + kk * kPC);
      for (int64_t c = 0; c < kPC; ++c)
        d[c] = uint32_t(r[0][p + c]) | uint32_t(r[1][p + c]) << 16;
    }
  }
}

void bf16Conv2d(const Bf16ConvProblem &p, int64_t image, int64_t colBegin,
                int64_t colEnd, Bf16Path path) {
  const Conv2dShape &s = p.s;
  int64_t k = s.gemmK(), ohw = s.oh * s.ow;
  size_t elem = p.outBf16 ? 2 : 4;
  for (int64_t j0 = colBegin; j0 < colEnd; j0 += kBf16ConvCols) {
    int64_t nc = std::min(kBf16ConvCols, colEnd - j0);
    uint16_t *b = scratchB.get<uint16_t>(size_t(bf16PackedBElems(k, nc)));
    bf16PackIm2col(s, p.x, image, j0, nc, b);
    Bf16GemmProblem g;
    g.m = s.o;
    g.n = nc;
    g.k = k;
    g.aPacked = p.wPacked;
    g.bPacked = b;
    g.c = static_cast<char *>(p.y) + (image * s.o * ohw + j0) * elem;
    g.ldc = ohw;
    g.outBf16 = p.outBf16;
    if (p.bias) {
      g.biasMode = BiasMode::PerRow;
      g.bias = p.bias;
    }
    g.act = p.act;
    g.p0 = p.p0;
    g.p1 = p.p1;
    bf16Gemm(g, 0, s.o, 0, nc, path);
  }
}

} // namespace strata::kernels
