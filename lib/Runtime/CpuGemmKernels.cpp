//===- CpuGemmKernels.cpp - f32 matmul and convolution kernels ------------===//
//
// The kernel-table entries of lib/Kernels (names and params in
// strata/Kernels/KernelAbi.h). Each `check` validates every param and,
// with overflow-checked arithmetic, that each binding is large enough, so
// the kernel itself trusts them. Workgroups split the output: matmuls by
// (batch, row chunk, column chunk), GEMM convolutions by (image, group,
// column chunk), depthwise by output plane.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/InvertedResidual.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Kernels/StemConv.h"
#include "strata/Kernels/Winograd.h"

#include <algorithm>

namespace strata::runtime::hal {

namespace kn = strata::kernels;
namespace kabi = strata::kernels::kabi;

namespace {

enum Binding { kIn = 0, kWeight = 1, kBias = 2, kOut = 3, kResidual = 4 };

/// Multiplies non-negative factors; false on a negative one or overflow.
bool product(std::initializer_list<int64_t> fs, int64_t &out) {
  out = 1;
  for (int64_t f : fs)
    if (f < 0 || __builtin_mul_overflow(out, f, &out))
      return false;
  return true;
}

bool isFlag(int64_t v) { return v == 0 || v == 1; }

/// Checks the epilogue params at `p`, the bias binding (`biasCount` floats
/// when present) and the residual binding (`outCount` floats when present).
bool checkEpilogue(const std::vector<BufferInfo> &b, const int64_t *p,
                   int64_t biasCount, int64_t outCount, std::string &error) {
  if (!isFlag(p[0])) {
    error = "has_bias is " + std::to_string(p[0]) + ", must be 0 or 1";
    return false;
  }
  if (!isFlag(p[4])) {
    error = "has_residual is " + std::to_string(p[4]) + ", must be 0 or 1";
    return false;
  }
  if (p[4] && !needBytes(b, kResidual, outCount, 4, "residual", error))
    return false;
  if (p[1] < 0 || p[1] >= kn::kActivationCount) {
    error = "activation is " + std::to_string(p[1]) + ", must be in [0, " +
            std::to_string(kn::kActivationCount) + ")";
    return false;
  }
  if (p[2] < 0 || p[2] > UINT32_MAX || p[3] < 0 || p[3] > UINT32_MAX) {
    error = "an activation param is not the bit pattern of an f32";
    return false;
  }
  return !p[0] || needBytes(b, kBias, biasCount, 4, "bias", error);
}

/// The epilogue of params `p`; the residual (when present) is `residual`
/// with row stride `ldr`.
kn::Epilogue epilogueFrom(const int64_t *p, const void *bias, kn::BiasMode mode,
                          const void *residual, int64_t ldr) {
  kn::Epilogue e;
  if (p[0]) {
    e.biasMode = mode;
    e.bias = static_cast<const float *>(bias);
  }
  if (p[4]) {
    e.residual = static_cast<const float *>(residual);
    e.ldr = ldr;
  }
  e.act = kn::Activation(p[1]);
  e.p0 = kabi::paramFloat(p[2]);
  e.p1 = kabi::paramFloat(p[3]);
  return e;
}

//===----------------------------------------------------------------------===//
// Matmul: [B, M, N, K, transpose_b, a_batched, b_batched, b_packed, epi...]
//===----------------------------------------------------------------------===//

struct MatmulSplit {
  int64_t rowChunks = 1, colChunks = 1, rowStep = 0, colStep = 0;
};

/// How each matrix of the batch splits for `count` workgroups: into
/// rowChunks x colChunks chunks of whole panels (12 rows, 16 columns), the
/// factorization whose largest chunk costs least. A chunk's cost is its
/// padded multiply-adds plus packing what it reads unpacked: its rows of A
/// (all K), and, when B is not pre-packed, its columns of B. Splitting along
/// the columns balances a matmul whose rows fill an odd number of panels
/// (BERT's 128 rows: 11 panels, 6 + 5 by rows, 48 + 48 column panels of
/// 3072) at the price of each chunk packing all the rows of A.
MatmulSplit matmulSplit(const int64_t *p, int64_t count) {
  int64_t batch = p[0], m = p[1], n = p[2], k = p[3];
  bool bPacked = p[7] != 0;
  int64_t per = batch >= count ? 1 : (count + batch - 1) / batch;
  int64_t rowPanels = (m + kn::kPanelRows - 1) / kn::kPanelRows;
  int64_t colPanels = (n + kn::kPanelCols - 1) / kn::kPanelCols;
  // Packing a float costs about as much as this many multiply-adds (a rough
  // figure: packing moves each value through memory, the microkernel does
  // 16 multiply-adds a cycle).
  constexpr double kPackCost = 16;
  MatmulSplit best;
  double bestCost = -1;
  for (int64_t r = 1; r <= per; ++r) {
    if (per % r)
      continue;
    int64_t rows = std::min(r, std::max<int64_t>(rowPanels, 1));
    int64_t cols = std::min(per / r, std::max<int64_t>(colPanels, 1));
    int64_t rowStep = (rowPanels + rows - 1) / rows;
    int64_t colStep = (colPanels + cols - 1) / cols;
    double chunkRows = double(rowStep * kn::kPanelRows);
    double chunkCols = double(colStep * kn::kPanelCols);
    double cost = chunkRows * chunkCols * double(k) +
                  kPackCost * double(k) *
                      (chunkRows + (bPacked ? 0.0 : chunkCols));
    if (bestCost < 0 || cost < bestCost) {
      bestCost = cost;
      best.rowChunks = rows;
      best.colChunks = cols;
      best.rowStep = rowStep * kn::kPanelRows;
      best.colStep = colStep * kn::kPanelCols;
    }
  }
  return best;
}

int matmulKernel(void *const *bindings, const int64_t *p, int64_t id,
                 int64_t count) {
  int64_t batch = p[0], m = p[1], n = p[2], k = p[3];
  bool transB = p[4], aBatched = p[5], bBatched = p[6], bPacked = p[7];
  const float *a = static_cast<const float *>(bindings[kIn]);
  const float *b = static_cast<const float *>(bindings[kWeight]);
  float *c = static_cast<float *>(bindings[kOut]);
  MatmulSplit s = matmulSplit(p, count);
  int64_t perMatrix = s.rowChunks * s.colChunks;
  int64_t begin, end;
  split(batch * perMatrix, id, count, begin, end);
  kn::GemmProblem g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.ldc = n;
  const float *residual = static_cast<const float *>(bindings[kResidual]);
  g.epilogue = epilogueFrom(p + kabi::kMatmulStrategyParams + 3,
                            bindings[kBias], kn::BiasMode::PerCol, residual, n);
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t bi = unit / perMatrix, chunk = unit % perMatrix;
    int64_t r0 = chunk / s.colChunks * s.rowStep;
    int64_t c0 = chunk % s.colChunks * s.colStep;
    g.a.data = a + (aBatched ? bi * m * k : 0);
    g.a.ld = k;
    if (bPacked) {
      g.b.data = b;
      g.b.packed = true;
    } else {
      g.b.data = b + (bBatched ? bi * k * n : 0);
      g.b.ld = transB ? k : n;
      g.b.transposed = transB;
    }
    g.c = c + bi * m * n;
    if (g.epilogue.residual)
      g.epilogue.residual = residual + bi * m * n;
    kn::gemm(g, r0, std::min(m, r0 + s.rowStep), c0,
             std::min(n, c0 + s.colStep));
  }
  return 0;
}

bool matmulCheck(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  int64_t batch = p[0], m = p[1], n = p[2], k = p[3];
  if (batch < 1 || m < 0 || n < 0 || k < 0) {
    error = "B, M, N, K are " + std::to_string(batch) + ", " +
            std::to_string(m) + ", " + std::to_string(n) + ", " +
            std::to_string(k) + " (B >= 1, the others >= 0)";
    return false;
  }
  for (int i : {4, 5, 6, 7})
    if (!isFlag(p[i])) {
      error = "param " + std::to_string(i) + " (a flag) is " +
              std::to_string(p[i]) + ", must be 0 or 1";
      return false;
    }
  if (p[7] && p[6]) {
    error = "a packed B cannot be batched";
    return false;
  }
  int64_t aCount, bCount, cCount;
  if (!product({p[5] ? batch : 1, m, k}, aCount) ||
      !product({p[6] ? batch : 1, k, n}, bCount) ||
      !product({batch, m, n}, cCount)) {
    error = "an operand's element count overflows int64";
    return false;
  }
  if (p[7]) {
    uint64_t bytes = kn::packedBBytes(k, n);
    if ((bytes == 0 && k && n) || b[kWeight].size < bytes) {
      error = "binding 1 (packed B) has " + std::to_string(b[kWeight].size) +
              " bytes, the params need " + std::to_string(bytes);
      return false;
    }
  } else if (!needBytes(b, kWeight, bCount, 4, "B", error)) {
    return false;
  }
  return needBytes(b, kIn, aCount, 4, "A", error) &&
         needBytes(b, kOut, cCount, 4, "C", error) &&
         checkEpilogue(b, p.data() + kabi::kMatmulStrategyParams + 3, n, cCount,
                       error);
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

kn::Conv2dShape convShape(const int64_t *p) {
  return kabi::convShapeFromParams(kabi::kConvIm2col, p);
}
kn::Conv2dShape conv1x1Shape(const int64_t *p) {
  return kabi::convShapeFromParams(kabi::kConv1x1, p);
}

/// `packedBytes`: the size of the packed weight (the GEMM's packed filter,
/// or Winograd's transformed one), 0 on overflow.
bool checkConvBindings(
    const std::vector<BufferInfo> &b, const kn::Conv2dShape &s, bool packed,
    const int64_t *epilogue, std::string &error,
    uint64_t (*packedBytes)(const kn::Conv2dShape &) = nullptr) {
  std::string why = kn::checkConv2dShape(s);
  if (!why.empty()) {
    error = why;
    return false;
  }
  if (packed) {
    uint64_t bytes =
        packedBytes ? packedBytes(s) : kn::packedConvFilterBytes(s);
    if (bytes == 0 || b[kWeight].size < bytes) {
      error = "binding 1 (packed filter) has " +
              std::to_string(b[kWeight].size) + " bytes, the params need " +
              std::to_string(bytes);
      return false;
    }
  } else if (!needBytes(b, kWeight, s.o * s.gemmK(), 4, "filter", error)) {
    return false;
  }
  return needBytes(b, kIn, s.n * s.c * s.h * s.w, 4, "input", error) &&
         needBytes(b, kOut, s.n * s.o * s.oh * s.ow, 4, "output", error) &&
         checkEpilogue(b, epilogue, s.o, s.n * s.o * s.oh * s.ow, error);
}

uint64_t packedTransposedBytes(const kn::Conv2dShape &s) {
  return kn::packedConvFilterBytes(s, kn::ConvGemmForm::Transposed);
}

/// filter_packed of the GEMM convolutions: 0 plain, 1 packed for the
/// normal form, 2 packed for the transposed form (kn::ConvGemmForm).
bool checkPackedFlag(int64_t v, const kn::Conv2dShape &s, std::string &error) {
  if (v == 2 && s.oh * s.ow > kn::kMaxTransposedPixels) {
    error = "filter_packed is 2 (the transposed form), but OH*OW = " +
            std::to_string(s.oh * s.ow) + " is over " +
            std::to_string(kn::kMaxTransposedPixels);
    return false;
  }
  if (v == 0 || v == 1 || v == 2)
    return true;
  error = "filter_packed is " + std::to_string(v) + ", must be 0, 1 or 2";
  return false;
}

bool checkGemmConv(const std::vector<BufferInfo> &b, const kn::Conv2dShape &s,
                   int64_t packed, const int64_t *epilogue,
                   std::string &error) {
  return checkPackedFlag(packed, s, error) &&
         checkConvBindings(b, s, packed != 0, epilogue, error,
                           packed == 2 ? packedTransposedBytes : nullptr);
}

int convGemm(void *const *bindings, const kn::Conv2dShape &s, int64_t packed,
             const int64_t *epilogue, int64_t id, int64_t count) {
  int64_t begin, end;
  bool transposed =
      packed == 2 || (packed == 0 && kn::preferredConvGemmForm(s) ==
                                         kn::ConvGemmForm::Transposed);
  kn::Epilogue e = epilogueFrom(epilogue, bindings[kBias], kn::BiasMode::PerRow,
                                bindings[kResidual], s.oh * s.ow);
  const auto *x = static_cast<const float *>(bindings[kIn]);
  const auto *w = static_cast<const float *>(bindings[kWeight]);
  auto *y = static_cast<float *>(bindings[kOut]);
  if (transposed) {
    split(kn::conv2dGemmTransposedUnits(s, count), id, count, begin, end);
    kn::conv2dGemmTransposed(s, x, w, packed != 0, e, y, count, begin, end);
    return 0;
  }
  split(kn::conv2dGemmUnits(s, count), id, count, begin, end);
  kn::conv2dGemm(s, x, w, packed != 0, e, y, count, begin, end);
  return 0;
}

int conv1x1Kernel(void *const *bindings, const int64_t *p, int64_t id,
                  int64_t count) {
  return convGemm(bindings, conv1x1Shape(p), p[4], p + 5, id, count);
}
bool conv1x1Check(const std::vector<BufferInfo> &b,
                  const std::vector<int64_t> &p, std::string &error) {
  return checkGemmConv(b, conv1x1Shape(p.data()), p[4], p.data() + 5, error);
}

int convIm2colKernel(void *const *bindings, const int64_t *p, int64_t id,
                     int64_t count) {
  return convGemm(bindings, convShape(p), p[18], p + 19, id, count);
}
bool convIm2colCheck(const std::vector<BufferInfo> &b,
                     const std::vector<int64_t> &p, std::string &error) {
  return checkGemmConv(b, convShape(p.data()), p[18], p.data() + 19, error);
}

int convDepthwiseKernel(void *const *bindings, const int64_t *p, int64_t id,
                        int64_t count) {
  kn::Conv2dShape s = convShape(p);
  int64_t begin, end;
  split(s.n * s.o, id, count, begin, end);
  // Fails (1) only when the padded plane cannot be allocated.
  return kn::conv2dDepthwise(s, static_cast<const float *>(bindings[kIn]),
                             static_cast<const float *>(bindings[kWeight]),
                             epilogueFrom(p + 19, bindings[kBias],
                                          kn::BiasMode::PerRow, nullptr, 0),
                             static_cast<float *>(bindings[kOut]), begin, end)
             ? 0
             : 1;
}
bool convDepthwiseCheck(const std::vector<BufferInfo> &b,
                        const std::vector<int64_t> &p, std::string &error) {
  kn::Conv2dShape s = convShape(p.data());
  if (p[18] != 0) {
    error = "filter_packed is " + std::to_string(p[18]) +
            ", the depthwise kernel reads the plain filter (0)";
    return false;
  }
  if (!checkConvBindings(b, s, false, p.data() + 19, error))
    return false;
  if (p[19 + 4] != 0) {
    error = "has_residual is 1, the depthwise kernel takes no residual";
    return false;
  }
  if (s.c != s.g) {
    error = "G = " + std::to_string(s.g) +
            " is not C = " + std::to_string(s.c) + " (depthwise)";
    return false;
  }
  return true;
}

// Winograd F(4x4, 3x3): [geometry (18), filter_packed, epilogue, tile_hw].
// Workgroups split the (image, tile block, output-channel chunk) units.

int convWinogradKernel(void *const *bindings, const int64_t *p, int64_t id,
                       int64_t count) {
  kn::Conv2dShape s = convShape(p);
  kn::WinogradSplit ws = kn::winogradSplit(s, p[kabi::kConvParams], count);
  int64_t begin, end;
  split(kn::winogradUnits(s, ws), id, count, begin, end);
  // Fails (1) only when its scratch cannot be allocated.
  return kn::conv2dWinograd(s, static_cast<const float *>(bindings[kIn]),
                            static_cast<const float *>(bindings[kWeight]),
                            p[kabi::kConvStrategyParams] != 0,
                            epilogueFrom(p + kabi::kConvStrategyParams + 1,
                                         bindings[kBias], kn::BiasMode::PerRow,
                                         bindings[kResidual], s.oh * s.ow),
                            static_cast<float *>(bindings[kOut]), ws, begin,
                            end)
             ? 0
             : 1;
}
bool convWinogradCheck(const std::vector<BufferInfo> &b,
                       const std::vector<int64_t> &p, std::string &error) {
  kn::Conv2dShape s = convShape(p.data());
  std::string why = kn::checkWinogradShape(s);
  if (!why.empty()) {
    error = why;
    return false;
  }
  int64_t packed = p[kabi::kConvStrategyParams], tileHw = p[kabi::kConvParams];
  if (!isFlag(packed)) {
    error = "filter_packed is " + std::to_string(packed) + ", must be 0 or 1";
    return false;
  }
  if (tileHw < 1 || tileHw > kn::kWinogradMaxBlockTiles) {
    error = "tile_hw is " + std::to_string(tileHw) + ", must be in [1, " +
            std::to_string(kn::kWinogradMaxBlockTiles) + "]";
    return false;
  }
  return checkConvBindings(b, s, packed != 0,
                           p.data() + kabi::kConvStrategyParams + 1, error,
                           kn::winogradFilterBytes);
}

// Inverted residual: [N, C, H, W, E, P, stride, PT, PL, PB, PR, OH, OW,
// (has_bias, act, p0, p1) x 3, has_residual, strip_rows]. Bindings: input,
// w1 (packed A), b1, depthwise filter, b2, w3 (packed A), b3, output,
// residual. Workgroups split the (image, strip) units.

enum InvResBinding {
  kIrIn,
  kIrW1,
  kIrB1,
  kIrDw,
  kIrB2,
  kIrW3,
  kIrB3,
  kIrOut,
  kIrResidual
};

kn::InvertedResidualShape invResShape(const int64_t *p) {
  kn::InvertedResidualShape s;
  s.n = p[0], s.c = p[1], s.h = p[2], s.w = p[3], s.e = p[4], s.p = p[5];
  s.stride = p[6], s.pt = p[7], s.pl = p[8], s.pb = p[9], s.pr = p[10];
  s.oh = p[11], s.ow = p[12];
  return s;
}

/// The strip rows for `count` workgroups: at most the planned (or cache-
/// sized) rows, in a number of strips that is a multiple of `count` where
/// the image is split (MobileNetV2's 28-row block: 10-row strips split 2 +
/// 1, 7-row strips 2 + 2). Each output's arithmetic does not depend on the
/// strip, so the results do not either.
int64_t balancedStripRows(int64_t rows, int64_t oh, int64_t n, int64_t count) {
  if (count < 2 || n >= count || rows < 1)
    return rows;
  int64_t strips = (oh + rows - 1) / rows;
  strips = (strips + count - 1) / count * count;
  return std::max<int64_t>(1, (oh + strips - 1) / strips);
}
int64_t invResStripRows(const kn::InvertedResidualShape &s, const int64_t *p,
                        int64_t count) {
  int64_t rows = p[26];
  rows =
      rows > 0
          ? std::min(rows, s.oh)
          : kn::invertedResidualStripRows(s, kn::invertedResidualCacheBytes());
  return balancedStripRows(rows, s.oh, s.n, count);
}

/// The three stages' (has_bias, activation, p0, p1) at `q`: each stage's
/// bias pointer (null without one) and epilogue activation.
void stageEpilogues(const int64_t *q, const float *const *biases,
                    const float **const *bias, kn::Epilogue *const *epi) {
  for (int k = 0; k < 3; ++k, q += 4) {
    *bias[k] = q[0] ? biases[k] : nullptr;
    epi[k]->act = kn::Activation(q[1]);
    epi[k]->p0 = kabi::paramFloat(q[2]);
    epi[k]->p1 = kabi::paramFloat(q[3]);
  }
}

/// Checks the three stages' (has_bias, activation, p0, p1) at `q`.
bool checkStageEpilogues(const int64_t *q, const char *const *stages,
                         std::string &error) {
  for (int k = 0; k < 3; ++k, q += 4) {
    std::string stage = stages[k];
    if (!isFlag(q[0])) {
      error =
          stage + " has_bias is " + std::to_string(q[0]) + ", must be 0 or 1";
      return false;
    }
    if (q[1] < 0 || q[1] >= kn::kActivationCount) {
      error = stage + " activation is " + std::to_string(q[1]) +
              ", must be in [0, " + std::to_string(kn::kActivationCount) + ")";
      return false;
    }
    if (q[2] < 0 || q[2] > UINT32_MAX || q[3] < 0 || q[3] > UINT32_MAX) {
      error = stage + " activation param is not the bit pattern of an f32";
      return false;
    }
  }
  return true;
}

int invResKernel(void *const *bindings, const int64_t *p, int64_t id,
                 int64_t count) {
  kn::InvertedResidualShape s = invResShape(p);
  auto f = [&](int i) { return static_cast<const float *>(bindings[i]); };
  kn::InvertedResidualWeights wt;
  wt.w1 = f(kIrW1), wt.dw = f(kIrDw), wt.w3 = f(kIrW3);
  const float *biases[] = {f(kIrB1), f(kIrB2), f(kIrB3)};
  const float **bias[] = {&wt.b1, &wt.b2, &wt.b3};
  kn::Epilogue *epi[] = {&wt.e1, &wt.e2, &wt.e3};
  stageEpilogues(p + 13, biases, bias, epi);
  wt.residual = p[25] ? f(kIrResidual) : nullptr;
  int64_t rows = invResStripRows(s, p, count);
  int64_t begin, end;
  split(kn::invertedResidualUnits(s, rows), id, count, begin, end);
  return kn::invertedResidual(s, wt, f(kIrIn),
                              static_cast<float *>(bindings[kIrOut]), rows,
                              begin, end)
             ? 0
             : 1;
}

bool invResCheck(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  kn::InvertedResidualShape s = invResShape(p.data());
  std::string why = kn::checkInvertedResidualShape(s);
  if (!why.empty()) {
    error = why;
    return false;
  }
  static const char *const kStage[] = {"expansion", "depthwise", "projection"};
  if (!checkStageEpilogues(p.data() + 13, kStage, error))
    return false;
  if (!isFlag(p[25])) {
    error = "has_residual is " + std::to_string(p[25]) + ", must be 0 or 1";
    return false;
  }
  if (p[26] < 0) {
    error = "strip_rows is " + std::to_string(p[26]) + ", must be >= 0";
    return false;
  }
  int64_t in, out, dw;
  if (!product({s.n, s.c, s.h, s.w}, in) ||
      !product({s.n, s.p, s.oh, s.ow}, out) || !product({s.e, 9}, dw)) {
    error = "a tensor's element count overflows";
    return false;
  }
  uint64_t w1 = kn::packedABytes(s.e, s.c), w3 = kn::packedABytes(s.p, s.e);
  if (w1 == 0 || w3 == 0) {
    error = "a packed filter's size overflows";
    return false;
  }
  return needBytes(b, kIrIn, in, 4, "input", error) &&
         needBytes(b, kIrW1, int64_t(w1 / 4), 4, "packed expansion filter",
                   error) &&
         (!p[13] || needBytes(b, kIrB1, s.e, 4, "expansion bias", error)) &&
         needBytes(b, kIrDw, dw, 4, "depthwise filter", error) &&
         (!p[17] || needBytes(b, kIrB2, s.e, 4, "depthwise bias", error)) &&
         needBytes(b, kIrW3, int64_t(w3 / 4), 4, "packed projection filter",
                   error) &&
         (!p[21] || needBytes(b, kIrB3, s.p, 4, "projection bias", error)) &&
         needBytes(b, kIrOut, out, 4, "output", error) &&
         (!p[25] || needBytes(b, kIrResidual, out, 4, "residual", error));
}

// The fused stem block (kernels::stemBlock): params N, C, H, W, E, P, H1,
// W1, PT1, PL1, PB1, PR1, stride, PT, PL, PB, PR, OH, OW, three (has_bias,
// activation, p0, p1), strip_rows; bindings input, w1, b1, depthwise
// filter, b2, w3, b3, output (filters plain). Workgroups split the
// (image, strip) units.

kn::StemBlockShape stemBlockShape(const int64_t *p) {
  kn::StemBlockShape s;
  s.n = p[0], s.c = p[1], s.h = p[2], s.w = p[3], s.e = p[4], s.p = p[5];
  s.h1 = p[6], s.w1 = p[7], s.pt1 = p[8], s.pl1 = p[9], s.pb1 = p[10];
  s.pr1 = p[11], s.stride = p[12], s.pt = p[13], s.pl = p[14], s.pb = p[15];
  s.pr = p[16], s.oh = p[17], s.ow = p[18];
  return s;
}

int stemBlockKernel(void *const *bindings, const int64_t *p, int64_t id,
                    int64_t count) {
  kn::StemBlockShape s = stemBlockShape(p);
  auto f = [&](int i) { return static_cast<const float *>(bindings[i]); };
  kn::StemBlockWeights wt;
  wt.w1 = f(kIrW1), wt.dw = f(kIrDw), wt.w3 = f(kIrW3);
  const float *biases[] = {f(kIrB1), f(kIrB2), f(kIrB3)};
  const float **bias[] = {&wt.b1, &wt.b2, &wt.b3};
  kn::Epilogue *epi[] = {&wt.e1, &wt.e2, &wt.e3};
  stageEpilogues(p + 19, biases, bias, epi);
  int64_t rows = p[31] > 0 ? std::min(p[31], s.oh) : kn::stemBlockStripRows(s);
  rows = balancedStripRows(rows, s.oh, s.n, count);
  int64_t begin, end;
  split(kn::stemBlockUnits(s, rows), id, count, begin, end);
  return kn::stemBlock(s, wt, f(kIrIn), static_cast<float *>(bindings[kIrOut]),
                       rows, begin, end)
             ? 0
             : 1;
}

bool stemBlockCheck(const std::vector<BufferInfo> &b,
                    const std::vector<int64_t> &p, std::string &error) {
  kn::StemBlockShape s = stemBlockShape(p.data());
  if (std::string why = kn::checkStemBlockShape(s); !why.empty()) {
    error = why;
    return false;
  }
  static const char *const kStage[] = {"stem", "depthwise", "projection"};
  if (!checkStageEpilogues(p.data() + 19, kStage, error))
    return false;
  if (p[31] < 0) {
    error = "strip_rows is " + std::to_string(p[31]) + ", must be >= 0";
    return false;
  }
  int64_t in, out, w1, w3;
  if (!product({s.n, s.c, s.h, s.w}, in) ||
      !product({s.n, s.p, s.oh, s.ow}, out) || !product({s.e, s.c, 9}, w1) ||
      !product({s.p, s.e}, w3)) {
    error = "a tensor's element count overflows";
    return false;
  }
  return needBytes(b, kIrIn, in, 4, "input", error) &&
         needBytes(b, kIrW1, w1, 4, "stem filter", error) &&
         (!p[19] || needBytes(b, kIrB1, s.e, 4, "stem bias", error)) &&
         needBytes(b, kIrDw, s.e * 9, 4, "depthwise filter", error) &&
         (!p[23] || needBytes(b, kIrB2, s.e, 4, "depthwise bias", error)) &&
         needBytes(b, kIrW3, w3, 4, "projection filter", error) &&
         (!p[27] || needBytes(b, kIrB3, s.p, 4, "projection bias", error)) &&
         needBytes(b, kIrOut, out, 4, "output", error);
}

// The direct stem convolution: the general convolution's params, the plain
// filter; workgroups split the (image, output row) units.
int convStemKernel(void *const *bindings, const int64_t *p, int64_t id,
                   int64_t count) {
  kn::Conv2dShape s = convShape(p);
  int64_t begin, end;
  split(kn::stemConvUnits(s), id, count, begin, end);
  kn::conv2dStem(
      s, static_cast<const float *>(bindings[kIn]),
      static_cast<const float *>(bindings[kWeight]),
      epilogueFrom(p + 19, bindings[kBias], kn::BiasMode::PerRow, nullptr, 0),
      static_cast<float *>(bindings[kOut]), begin, end);
  return 0;
}
bool convStemCheck(const std::vector<BufferInfo> &b,
                   const std::vector<int64_t> &p, std::string &error) {
  kn::Conv2dShape s = convShape(p.data());
  if (p[18] != 0) {
    error = "filter_packed is " + std::to_string(p[18]) +
            ", the stem kernel reads the plain filter (0)";
    return false;
  }
  if (std::string why = kn::checkStemConvShape(s); !why.empty()) {
    error = why;
    return false;
  }
  if (!checkConvBindings(b, s, false, p.data() + 19, error))
    return false;
  if (p[19 + 4] != 0) {
    error = "has_residual is 1, the stem kernel takes no residual";
    return false;
  }
  return true;
}

// The narrow 1x1 convolution: the 1x1 kernel's params, the plain filter;
// workgroups split the (image, pixel chunk) units.
int conv1x1NarrowKernel(void *const *bindings, const int64_t *p, int64_t id,
                        int64_t count) {
  kn::Conv2dShape s = conv1x1Shape(p);
  int64_t begin, end;
  split(kn::conv1x1NarrowUnits(s.n, s.h), id, count, begin, end);
  kn::conv1x1Narrow(s.c, s.h, s.o, static_cast<const float *>(bindings[kIn]),
                    static_cast<const float *>(bindings[kWeight]),
                    epilogueFrom(p + 5, bindings[kBias], kn::BiasMode::PerRow,
                                 bindings[kResidual], s.h),
                    static_cast<float *>(bindings[kOut]), begin, end);
  return 0;
}
bool conv1x1NarrowCheck(const std::vector<BufferInfo> &b,
                        const std::vector<int64_t> &p, std::string &error) {
  if (p[4] != 0) {
    error = "filter_packed is " + std::to_string(p[4]) +
            ", the narrow 1x1 kernel reads the plain filter (0)";
    return false;
  }
  return checkConvBindings(b, conv1x1Shape(p.data()), false, p.data() + 5,
                           error);
}

constexpr unsigned kWritesOut = 1u << kOut;
const CpuKernel kGemmKernels[] = {
    {kabi::kMatmulGemm, kabi::kKernelBindings, kabi::kMatmulParams, kWritesOut,
     matmulCheck, matmulKernel},
    {kabi::kMatmulGemv, kabi::kKernelBindings, kabi::kMatmulParams, kWritesOut,
     matmulCheck, matmulKernel},
    {kabi::kMatmulBatched, kabi::kKernelBindings, kabi::kMatmulParams,
     kWritesOut, matmulCheck, matmulKernel},
    {kabi::kConv1x1, kabi::kKernelBindings, kabi::kConv1x1Params, kWritesOut,
     conv1x1Check, conv1x1Kernel},
    {kabi::kConvIm2col, kabi::kKernelBindings, kabi::kConvParams, kWritesOut,
     convIm2colCheck, convIm2colKernel},
    {kabi::kConvDepthwise, kabi::kKernelBindings, kabi::kConvParams, kWritesOut,
     convDepthwiseCheck, convDepthwiseKernel},
    {kabi::kConvWinograd, kabi::kKernelBindings, kabi::kConvWinogradParams,
     kWritesOut, convWinogradCheck, convWinogradKernel},
    {kabi::kInvertedResidual, kabi::kInvertedResidualBindings,
     kabi::kInvertedResidualParams, 1u << kIrOut, invResCheck, invResKernel},
    {kabi::kConvStem, kabi::kKernelBindings, kabi::kConvParams, kWritesOut,
     convStemCheck, convStemKernel},
    {kabi::kConv1x1Narrow, kabi::kKernelBindings, kabi::kConv1x1Params,
     kWritesOut, conv1x1NarrowCheck, conv1x1NarrowKernel},
    {kabi::kStemBlock, kabi::kStemBlockBindings, kabi::kStemBlockParams,
     1u << kIrOut, stemBlockCheck, stemBlockKernel},
};

} // namespace

CpuKernelList gemmKernels() {
  return {kGemmKernels, sizeof(kGemmKernels) / sizeof(kGemmKernels[0])};
}

} // namespace strata::runtime::hal
