//===- Gemm.cpp - the blocked GEMM driver, packing and epilogues ----------===//
//
// Loops (BLIS order): column blocks of NC, K blocks of KC (B block packed
// once, or read from the pre-packed B), row blocks of MC (A block packed, or
// pre-packed), then micro-tiles: each B micro-panel stays in L1 while the
// microkernel walks down the A block, which stays in L2. Compiled for the
// baseline ISA; only the microkernels use AVX2/AVX-512.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Gemm.h"
#include "strata/Kernels/OpKernels.h"

#include "Microkernels.h"
#include "Scratch.h"
#include "Vec4.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace strata::kernels {

using detail::MicrokernelInfo;
using detail::TileEpilogue;
using detail::TilePrefetch;

namespace {

constexpr int64_t kKC = 256; ///< K block
constexpr int64_t kMC = 144; ///< rows per A block (a multiple of 12)
constexpr int64_t kNC = 512; ///< columns per B block (a multiple of 32)
/// C (all of it, bytes) over which the first K block prefetches its next
/// tile's rows for writing: the L2 size of the target cores (Zen 4).
constexpr int64_t kPrefetchCMinBytes = int64_t(1) << 20;
constexpr int64_t kPR = kPanelRows, kPC = kPanelCols;

int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

thread_local detail::Scratch scratchA, scratchB;

MicrokernelInfo microkernelFor(Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return detail::avx512Microkernel();
  case Isa::Avx2:
    return detail::avx2Microkernel();
  default:
    return detail::portableMicrokernel();
  }
}

/// Packs a full panel: 12 rows of `kc` floats (row stride `ld`) into kc x
/// 12, k-major: 4 x 4 blocks transposed in vector registers (generic vector
/// extensions: SSE on the x86-64 baseline), the last kc % 4 per element.
void packAPanel(const float *a, int64_t ld, int64_t kc, float *dst) {
  using detail::load4, detail::store4, detail::V4;
  int64_t kk = 0;
  for (; kk + 4 <= kc; kk += 4)
    for (int64_t g = 0; g < kPR; g += 4) {
      const float *r = a + g * ld + kk;
      V4 r0 = load4(r), r1 = load4(r + ld), r2 = load4(r + 2 * ld),
         r3 = load4(r + 3 * ld);
      detail::transpose4(r0, r1, r2, r3);
      float *d = dst + kk * kPR + g;
      store4(d, r0);
      store4(d + kPR, r1);
      store4(d + 2 * kPR, r2);
      store4(d + 3 * kPR, r3);
    }
  for (; kk < kc; ++kk)
    for (int64_t ii = 0; ii < kPR; ++ii)
      dst[kk * kPR + ii] = a[ii * ld + kk];
}

/// Packs rows [i0, i0 + mc) (clipped to m) and K range [k0, k0 + kc) of A
/// into ceil(mc / 12) panels of kc x 12, zero-padded.
void packABlock(const GemmOperand &a, int64_t m, int64_t i0, int64_t mc,
                int64_t k0, int64_t kc, float *dst) {
  using detail::load4, detail::store4, detail::V4;
  if (a.transposed) {
    // Row k of the source holds column k of A: read it once, front to back,
    // and write its 12-float pieces to the panels (kc * 12 floats apart), 4
    // at a time. Panel by panel instead read each source row once per panel
    // and copied one float at a time (the transposed convolution's input:
    // 10% of a 960 -> 160 layer at 7x7).
    int64_t valid = std::max<int64_t>(0, std::min(mc, m - i0));
    int64_t full = valid / kPR * kPR, panelFloats = kc * kPR;
    const V4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float *src = a.data + (k0 + kk) * a.ld + i0;
      float *d = dst + kk * kPR;
      int64_t p = 0;
      for (; p < full; p += kPR, d += panelFloats) {
        store4(d, load4(src + p));
        store4(d + 4, load4(src + p + 4));
        store4(d + 8, load4(src + p + 8));
      }
      for (; p < mc; p += kPR, d += panelFloats) {
        store4(d, zero);
        store4(d + 4, zero);
        store4(d + 8, zero);
        for (int64_t ii = 0; ii < valid - p; ++ii)
          d[ii] = src[p + ii];
      }
    }
    return;
  }
  for (int64_t p = 0; p < mc; p += kPR, dst += kc * kPR) {
    int64_t rows = std::min<int64_t>(kPR, std::min(mc, m - i0) - p);
    if (rows == kPR) {
      packAPanel(a.data + (i0 + p) * a.ld + k0, a.ld, kc, dst);
      continue;
    }
    for (int64_t ii = 0; ii < kPR; ++ii) {
      if (ii < rows) {
        const float *src = a.data + (i0 + p + ii) * a.ld + k0;
        for (int64_t kk = 0; kk < kc; ++kk)
          dst[kk * kPR + ii] = src[kk];
      } else {
        for (int64_t kk = 0; kk < kc; ++kk)
          dst[kk * kPR + ii] = 0.0f;
      }
    }
  }
}

/// Packs K range [k0, k0 + kc) and columns [j0, j0 + nc) (clipped to n) of
/// B into ceil(nc / 16) panels of kc x 16, zero-padded.
void packBBlock(const GemmOperand &b, int64_t n, int64_t k0, int64_t kc,
                int64_t j0, int64_t nc, float *dst) {
  if (!b.transposed) {
    // Row by row: each source row is read once, front to back, and its
    // 16-column pieces go to the panels (kc * 16 floats apart). Panel by
    // panel instead reads one cache line from each of kc rows per panel:
    // kc streams the hardware prefetcher does not follow, so packing an
    // activation bigger than L2 waited on memory (64 x 3136 x 256: 25% of
    // the GEMM).
    int64_t valid = std::max<int64_t>(0, std::min(nc, n - j0));
    int64_t full = valid / kPC * kPC, panelFloats = kc * kPC;
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float *src = b.data + (k0 + kk) * b.ld + j0;
      float *d = dst + kk * kPC;
      int64_t p = 0;
      for (; p < full; p += kPC, d += panelFloats)
        std::memcpy(d, src + p, kPC * sizeof(float));
      for (; p < nc; p += kPC, d += panelFloats) {
        int64_t cols = std::max<int64_t>(0, valid - p);
        int64_t jj = 0;
        for (; jj < cols; ++jj)
          d[jj] = src[p + jj];
        for (; jj < kPC; ++jj)
          d[jj] = 0.0f;
      }
    }
    return;
  }
  for (int64_t p = 0; p < nc; p += kPC, dst += kc * kPC) {
    int64_t cols = std::min<int64_t>(kPC, std::min(nc, n - j0) - p);
    for (int64_t jj = 0; jj < kPC; ++jj) {
      if (jj < cols) {
        const float *src = b.data + (j0 + p + jj) * b.ld + k0;
        for (int64_t kk = 0; kk < kc; ++kk)
          dst[kk * kPC + jj] = src[kk];
      } else {
        for (int64_t kk = 0; kk < kc; ++kk)
          dst[kk * kPC + jj] = 0.0f;
      }
    }
  }
}

} // namespace

namespace {

/// exp(x), relative error about 1 ulp (Cephes' expf polynomial, 2^n by
/// exponent bits); branch-free so a loop of it vectorizes. Clamped to
/// [-87, 88] (exp(-87) is near the smallest normal float).
inline float expApprox(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  float n = std::floor(x * 1.44269504088896341f + 0.5f);
  float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits = (int32_t(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

inline float sigmoidApprox(float x) { return 1.0f / (1.0f + expApprox(-x)); }

/// erf(x), absolute error under 1.5e-7 (Abramowitz and Stegun 7.1.26).
inline float erfApprox(float x) {
  float ax = std::fabs(x);
  float t = 1.0f / (1.0f + 0.3275911f * ax);
  float poly =
      t * (0.254829592f +
           t * (-0.284496736f +
                t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  float y = 1.0f - poly * expApprox(-ax * ax);
  return x < 0.0f ? -y : y;
}

inline float geluApprox(float x) {
  return 0.5f * x * (1.0f + erfApprox(x * 0.70710678118654752f));
}

inline float geluTanhApprox(float x) {
  // tanh(u) = 2 sigmoid(2u) - 1.
  float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
  return 0.5f * x * (2.0f * sigmoidApprox(2.0f * u));
}

/// The activation over a row: by the vectorized unary functions of the
/// active ISA (OpKernels.h), clip and leaky relu in plain loops.
void activateRow(float *v, int64_t n, Activation act, float p0, float p1) {
  switch (act) {
  case Activation::Sigmoid:
    return unaryF32(UnaryOp::Sigmoid, v, v, n);
  case Activation::SiLU:
    return unaryF32(UnaryOp::SiLU, v, v, n);
  case Activation::Gelu:
    return unaryF32(UnaryOp::Gelu, v, v, n);
  case Activation::GeluTanh:
    return unaryF32(UnaryOp::GeluTanh, v, v, n);
  case Activation::Relu:
    return unaryF32(UnaryOp::Relu, v, v, n);
  case Activation::HardSwish:
    return unaryF32(UnaryOp::HardSwish, v, v, n);
  case Activation::HardSigmoid:
    return unaryF32(UnaryOp::HardSigmoid, v, v, n, p0, p1);
  case Activation::Clip:
    for (int64_t i = 0; i < n; ++i)
      v[i] = std::min(std::max(v[i], p0), p1);
    return;
  case Activation::LeakyRelu:
    for (int64_t i = 0; i < n; ++i)
      v[i] = v[i] < 0.0f ? v[i] * p0 : v[i];
    return;
  case Activation::None:
    return;
  }
}

} // namespace

float activate(float x, Activation act, float p0, float p1) {
  switch (act) {
  case Activation::None:
    return x;
  case Activation::Relu:
    return std::max(x, 0.0f);
  case Activation::Clip:
    return std::min(std::max(x, p0), p1);
  case Activation::LeakyRelu:
    return x < 0.0f ? x * p0 : x;
  case Activation::Sigmoid:
    return sigmoidApprox(x);
  case Activation::SiLU:
    return x * sigmoidApprox(x);
  case Activation::HardSwish:
    return x * std::min(std::max(x * (1.0f / 6.0f) + 0.5f, 0.0f), 1.0f);
  case Activation::HardSigmoid:
    return std::min(std::max(p0 * x + p1, 0.0f), 1.0f);
  case Activation::Gelu:
    return geluApprox(x);
  case Activation::GeluTanh:
    return geluTanhApprox(x);
  }
  return x;
}

void applyEpilogue(float *c, int64_t ldc, int64_t rows, int64_t cols,
                   int64_t row0, int64_t col0, const Epilogue &e,
                   bool withBiasAndResidual) {
  for (int64_t i = 0; i < rows; ++i) {
    float *ci = c + i * ldc;
    if (withBiasAndResidual) {
      for (int64_t j = 0; j < cols; ++j) {
        float v = ci[j];
        if (e.biasMode == BiasMode::PerRow)
          v += e.bias[row0 + i];
        else if (e.biasMode == BiasMode::PerCol)
          v += e.bias[col0 + j];
        if (e.residual)
          v += e.residual[(row0 + i) * e.ldr + col0 + j];
        ci[j] = v;
      }
    }
    if (e.act != Activation::None)
      activateRow(ci, cols, e.act, e.p0, e.p1);
  }
}

uint64_t packedABytes(int64_t m, int64_t k) {
  uint64_t bytes;
  if (m < 0 || k < 0 || m > INT64_MAX - kPR ||
      __builtin_mul_overflow(uint64_t(roundUp(m, kPR)), uint64_t(k), &bytes) ||
      __builtin_mul_overflow(bytes, uint64_t(sizeof(float)), &bytes))
    return 0;
  return bytes;
}

uint64_t packedBBytes(int64_t k, int64_t n) {
  uint64_t bytes;
  if (n < 0 || k < 0 || n > INT64_MAX - kPC ||
      __builtin_mul_overflow(uint64_t(roundUp(n, kPC)), uint64_t(k), &bytes) ||
      __builtin_mul_overflow(bytes, uint64_t(sizeof(float)), &bytes))
    return 0;
  return bytes;
}

void packA(const float *a, int64_t lda, bool transposed, int64_t m, int64_t k,
           float *dst) {
  GemmOperand op;
  op.data = a;
  op.ld = lda;
  op.transposed = transposed;
  packABlock(op, m, 0, roundUp(m, kPR), 0, k, dst);
}

void packB(const float *b, int64_t ldb, bool transposed, int64_t k, int64_t n,
           float *dst) {
  GemmOperand op;
  op.data = b;
  op.ld = ldb;
  op.transposed = transposed;
  packBBlock(op, n, 0, k, 0, roundUp(n, kPC), dst);
}

namespace {

/// The panel of `valid` (<= 16) columns of `b` starting at column j.
detail::GatherPanel gatherPanel(const detail::ImplicitB &b, int64_t j,
                                int64_t valid) {
  auto at = [&](int64_t col) {
    return b.base + (col / b.width - b.firstRow) * b.rowStep + col % b.width;
  };
  uint32_t all = (1u << valid) - 1;
  int64_t inRow = b.width - j % b.width;
  if (inRow >= valid)
    return {at(j), at(j), all, 0};
  uint32_t lo = (1u << inRow) - 1;
  return {at(j), at(j + inRow) - inRow, lo, all & ~lo};
}

/// gemm(), or with `ib` its implicit-GEMM form (B never packed or read as
/// an operand: gemmImplicitB).
void gemmImpl(const GemmProblem &p, const detail::ImplicitB *ib,
              int64_t rowBegin, int64_t rowEnd, int64_t colBegin,
              int64_t colEnd, Isa isa) {
  if (rowBegin >= rowEnd || colBegin >= colEnd)
    return;
  // A residual that is C itself (the result written in place of the
  // residual): C already holds it, so the first K block accumulates onto it
  // and the epilogue does not add it again.
  bool residualInC = p.epilogue.residual == p.c && p.epilogue.ldr == p.ldc;
  Epilogue e = p.epilogue;
  if (residualInC)
    e.residual = nullptr;
  if (p.k == 0) {
    if (!residualInC)
      for (int64_t i = rowBegin; i < rowEnd; ++i)
        std::fill(p.c + i * p.ldc + colBegin, p.c + i * p.ldc + colEnd, 0.0f);
    applyEpilogue(p.c + rowBegin * p.ldc + colBegin, p.ldc, rowEnd - rowBegin,
                  colEnd - colBegin, rowBegin, colBegin, e);
    return;
  }
  MicrokernelInfo uk = microkernelFor(isa);
  bool fusedAct = activationInRegisters(e.act);
  // The C prefetch below pays where C is fresh memory: outputs over the L2
  // size (ResNet-50's 1.6-3.2 MB stem and projections: -7..-12%). Smaller
  // ones measured no gain (ResNet-50's 0.2-0.8 MB layers, MobileNetV2's).
  bool prefetchC =
      !residualInC && p.m * p.n * int64_t(sizeof(float)) > kPrefetchCMinBytes;
  int64_t kBlocks = (p.k + kKC - 1) / kKC;
  int64_t kcMax = (p.k + kBlocks - 1) / kBlocks;
  // A plain A of one row block used by several column blocks (a matmul over
  // a few rows, BERT's 128 x 3072 x 768): pack its rows once, all of K, in
  // the pre-packed layout, instead of once per column block.
  GemmOperand a = p.a;
  int64_t aRow0 = 0; // the row the packed panels start at
  if (!a.packed && rowEnd - rowBegin <= kMC && colEnd - colBegin > kNC) {
    float *buf =
        scratchA.get<float>(size_t(roundUp(rowEnd - rowBegin, kPR) * p.k));
    packABlock(p.a, p.m, rowBegin, rowEnd - rowBegin, 0, p.k, buf);
    a.data = buf;
    a.packed = true;
    aRow0 = rowBegin;
  }
  // A plain B (a 1x1 convolution's input, a matmul's activations) is read
  // in place by the ISA's direct microkernel when it has one, instead of
  // being packed per block: packing cost a copy of B per column block,
  // shared by only M rows (up to 12% of the 64-row layers).
  bool directB =
      !ib && uk.directFn && !p.b.packed && !p.b.packFn && !p.b.transposed;
  for (int64_t jc = colBegin; jc < colEnd; jc += kNC) {
    int64_t nc = std::min(kNC, colEnd - jc);
    for (int64_t pc = 0; pc < p.k; pc += kcMax) {
      int64_t kc = std::min(kcMax, p.k - pc);
      bool last = pc + kc >= p.k;
      const float *bBlock;
      int64_t bPanelStride;
      if (ib) {
        bBlock = nullptr;
        bPanelStride = 0;
      } else if (directB) {
        bBlock = p.b.data + pc * p.b.ld + jc;
        bPanelStride = 0;
      } else if (p.b.packed) {
        bBlock = p.b.data + (jc / kPC) * p.k * kPC + pc * kPC;
        bPanelStride = p.k * kPC;
      } else {
        float *buf = scratchB.get<float>(size_t(roundUp(nc, kPC) * kc));
        if (p.b.packFn)
          p.b.packFn(p.b.packCtx, pc, kc, jc, nc, buf);
        else
          packBBlock(p.b, p.n, pc, kc, jc, nc, buf);
        bBlock = buf;
        bPanelStride = kc * kPC;
      }
      for (int64_t ic = rowBegin; ic < rowEnd; ic += kMC) {
        int64_t mc = std::min(kMC, rowEnd - ic);
        const float *aBlock;
        int64_t aPanelStride;
        if (a.packed) {
          aBlock = a.data + ((ic - aRow0) / kPR) * p.k * kPR + pc * kPR;
          aPanelStride = p.k * kPR;
        } else {
          float *buf = scratchA.get<float>(size_t(roundUp(mc, kPR) * kc));
          packABlock(a, p.m, ic, mc, pc, kc, buf);
          aBlock = buf;
          aPanelStride = kc * kPR;
        }
        for (int64_t jr = 0; jr < nc; jr += uk.nr) {
          int64_t nr = std::min(uk.nr, nc - jr);
          const float *bp = ib        ? nullptr
                            : directB ? bBlock + jr
                                      : bBlock + (jr / kPC) * bPanelStride;
          for (int64_t ir = 0; ir < mc; ir += uk.mr) {
            int64_t mr = std::min(uk.mr, mc - ir);
            int64_t row = ic + ir, col = jc + jr;
            const float *ap = aBlock + (ir / kPR) * aPanelStride + ir % kPR;
            TileEpilogue te;
            if (last) {
              if (e.biasMode == BiasMode::PerRow)
                te.rowBias = e.bias + row;
              else if (e.biasMode == BiasMode::PerCol)
                te.colBias = e.bias + col;
              if (e.residual) {
                te.residual = e.residual + row * e.ldr + col;
                te.ldr = e.ldr;
              }
              if (fusedAct) {
                te.act = int64_t(e.act);
                te.p0 = e.p0;
                te.p1 = e.p1;
              }
            }
            // The first K block of an in-place residual, or the last block
            // of a separate one, reads a strided tile the hardware
            // prefetcher does not see coming: fetch the next tile's rows
            // while this one computes.
            const float *next = nullptr;
            int64_t ldNext = 0;
            if (residualInC && pc == 0)
              next = p.c, ldNext = p.ldc;
            else if (last && e.residual)
              next = e.residual, ldNext = e.ldr;
            if (next && ir + uk.mr < mc) {
              const float *t = next + (row + uk.mr) * ldNext + col;
              int64_t rows = std::min(uk.mr, mc - ir - uk.mr);
              for (int64_t r = 0; r < rows; ++r)
                for (int64_t c0 = 0; c0 < nr; c0 += 16)
                  __builtin_prefetch(t + r * ldNext + c0, 0, 3);
            }
            // The first K block writes C over memory no cache holds (a
            // fresh activation, megabytes apart from the last one): each
            // store of the tile's 12 rows waited for its line. Fetch the
            // next tile's C rows, for writing, while this one computes.
            if (pc == 0 && prefetchC && ir + uk.mr < mc) {
              float *t = p.c + (row + uk.mr) * p.ldc + col;
              int64_t rows = std::min(uk.mr, mc - ir - uk.mr);
              for (int64_t r = 0; r < rows; ++r)
                for (int64_t c0 = 0; c0 < nr; c0 += 16)
                  __builtin_prefetch(t + r * p.ldc + c0, 1, 3);
            }
            // A pre-packed weight is read from memory about once per call,
            // where few tiles share each micro-panel (the transposed form's
            // 49 pixels; a 196-pixel output's 7 column tiles): the first row
            // tile prefetches the next B micro-panel, the first column tile
            // the next A micro-panel.
            TilePrefetch pf;
            if (bp && ir == 0 && jr + uk.nr < nc) {
              if (directB)
                pf = {bp + uk.nr, p.b.ld, 16};
              else
                pf = {bp + (uk.nr / kPC) * bPanelStride, kPC, bPanelStride};
            } else if (jr == 0 && ir + uk.mr < mc) {
              const float *an = ap + uk.mr;
              if (uk.mr == kPR)
                an = aBlock + (ir / kPR + 1) * aPanelStride;
              pf = {an, kPR, 0};
            } else if (jr == 0 && a.packed && uk.mr == kPR) {
              // The block's last row tile: the first micro-panel of the
              // next row block, else of the next K block (a whole packed A
              // is one run of panels), so no block starts on a cold panel.
              if (ic + mc < rowEnd)
                pf = {aBlock + (ir / kPR + 1) * aPanelStride, kPR, 0};
              else if (pc + kc < p.k)
                pf = {a.data + ((rowBegin - aRow0) / kPR) * p.k * kPR +
                          (pc + kc) * kPR,
                      kPR, 0};
            }
            const TilePrefetch *pfp = pf.p ? &pf : nullptr;
            if (ib) {
              detail::GatherPanel panels[2];
              panels[0] = gatherPanel(*ib, col, std::min(nr, kPC));
              if (nr > kPC)
                panels[1] = gatherPanel(*ib, col + kPC, nr - kPC);
              uk.gatherFn(kc, ap, panels, ib->off + pc, p.c + row * p.ldc + col,
                          p.ldc, mr, nr, pc > 0 || residualInC,
                          last ? &te : nullptr, pfp);
            } else if (directB)
              uk.directFn(kc, ap, bp, p.b.ld, p.c + row * p.ldc + col, p.ldc,
                          mr, nr, pc > 0 || residualInC, last ? &te : nullptr,
                          pfp);
            else
              uk.fn(kc, ap, bp, bPanelStride, p.c + row * p.ldc + col, p.ldc,
                    mr, nr, pc > 0 || residualInC, last ? &te : nullptr, pfp);
          }
        }
        if (last && !fusedAct)
          applyEpilogue(p.c + ic * p.ldc + jc, p.ldc, mc, nc, ic, jc, e,
                        /*withBiasAndResidual=*/false);
      }
    }
  }
}

} // namespace

void gemm(const GemmProblem &p, int64_t rowBegin, int64_t rowEnd,
          int64_t colBegin, int64_t colEnd, Isa isa) {
  gemmImpl(p, nullptr, rowBegin, rowEnd, colBegin, colEnd, isa);
}

bool detail::implicitBAvailable(Isa isa) {
  return microkernelFor(isa).gatherFn != nullptr;
}

bool detail::gemmImplicitB(const GemmProblem &p, const ImplicitB &b,
                           int64_t rowBegin, int64_t rowEnd, int64_t colBegin,
                           int64_t colEnd, Isa isa) {
  if (!microkernelFor(isa).gatherFn)
    return false;
  gemmImpl(p, &b, rowBegin, rowEnd, colBegin, colEnd, isa);
  return true;
}

} // namespace strata::kernels
