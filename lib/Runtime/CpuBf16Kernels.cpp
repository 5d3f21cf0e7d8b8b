//===- CpuBf16Kernels.cpp - the bf16 matmul kernel ------------------------===//
//
// The kernel-table entries of the bf16 GEMM of lib/Kernels (Bf16Gemm.h):
// `conv2d_im2col_gemm_bf16` (any group-1 convolution, 1x1 included),
// `conv2d_depthwise_bf16` (the f32 depthwise kernel on widened planes) and
// `matmul_gemm_bf16`, params as the f32 matmul's (KernelAbi.h) with the
// weight always packed at compile time. `check` validates every param and,
// with overflow-checked arithmetic, the binding sizes. Workgroups split the
// rows in whole panels.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include "strata/Kernels/Bf16Gemm.h"
#include "strata/Kernels/KernelAbi.h"

#include <algorithm>
#include <vector>

namespace strata::runtime::hal {

namespace kn = strata::kernels;
namespace kabi = strata::kernels::kabi;

namespace {

enum Binding { kIn = 0, kWeight = 1, kBias = 2, kOut = 3 };

std::string str(int64_t v) { return std::to_string(v); }

int matmulKernel(void *const *bindings, const int64_t *p, int64_t id,
                 int64_t count) {
  int64_t m = p[1], n = p[2], k = p[3];
  const int64_t *ep = p + kabi::kMatmulStrategyParams + 3;
  int64_t rowPanels = (m + kn::kPanelRows - 1) / kn::kPanelRows;
  int64_t chunks = std::max<int64_t>(1, std::min(count, rowPanels));
  int64_t rowStep = (rowPanels + chunks - 1) / chunks * kn::kPanelRows;
  int64_t begin, end;
  split(chunks, id, count, begin, end);
  kn::Bf16GemmProblem g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.aPlain = static_cast<const uint16_t *>(bindings[kIn]);
  g.lda = k;
  g.bPacked = static_cast<const uint16_t *>(bindings[kWeight]);
  g.c = bindings[kOut];
  g.ldc = n;
  g.outBf16 = true;
  if (ep[0]) {
    g.biasMode = kn::BiasMode::PerCol;
    g.bias = static_cast<const float *>(bindings[kBias]);
  }
  g.act = kn::Activation(ep[1]);
  g.p0 = kabi::paramFloat(ep[2]);
  g.p1 = kabi::paramFloat(ep[3]);
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t r0 = unit * rowStep;
    kn::bf16Gemm(g, r0, std::min(m, r0 + rowStep), 0, n);
  }
  return 0;
}

bool matmulCheck(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  int64_t batch = p[0], m = p[1], n = p[2], k = p[3];
  if (batch != 1 || m < 0 || n < 0 || k < 0) {
    error = "B, M, N, K are " + str(batch) + ", " + str(m) + ", " + str(n) +
            ", " + str(k) + " (B = 1, the others >= 0)";
    return false;
  }
  if ((p[4] != 0 && p[4] != 1) || p[5] != 0 || p[6] != 0 || p[7] != 1) {
    error = "transpose_b, a_batched, b_batched, b_packed are " + str(p[4]) +
            ", " + str(p[5]) + ", " + str(p[6]) + ", " + str(p[7]) +
            " (0 or 1, 0, 0, 1: the bf16 matmul reads one packed weight)";
    return false;
  }
  const int64_t *ep = p.data() + kabi::kMatmulStrategyParams + 3;
  if ((ep[0] != 0 && ep[0] != 1) || ep[1] < 0 ||
      ep[1] >= kn::kActivationCount || ep[2] < 0 || ep[2] > UINT32_MAX ||
      ep[3] < 0 || ep[3] > UINT32_MAX) {
    error = "has_bias is " + str(ep[0]) + " and activation " + str(ep[1]) +
            " (0 or 1; an activation in [0, " +
            std::to_string(kn::kActivationCount) +
            ") with f32 bit patterns as params)";
    return false;
  }
  if (ep[4] != 0) {
    error = "has_residual is " + str(ep[4]) +
            " (0: the bf16 matmul takes no residual)";
    return false;
  }
  int64_t aCount, cCount;
  if (__builtin_mul_overflow(m, k, &aCount) ||
      __builtin_mul_overflow(m, n, &cCount)) {
    error = "an operand's element count overflows int64";
    return false;
  }
  uint64_t packed = kn::bf16PackedBElems(k, n);
  if ((packed == 0 && k && n) || packed > UINT64_MAX / 2 ||
      b[kWeight].size < packed * 2) {
    error = "binding 1 (packed weight) has " + std::to_string(b[kWeight].size) +
            " bytes, the params need " + std::to_string(packed * 2);
    return false;
  }
  return needBytes(b, kIn, aCount, 2, "A", error) &&
         needBytes(b, kOut, cCount, 2, "C", error) &&
         (!ep[0] || needBytes(b, kBias, n, 4, "bias", error));
}

/// The bf16 convolution: work units are (image, block of kBf16ConvCols
/// output columns), split over the workgroups.
int64_t convUnits(const kn::Conv2dShape &s) {
  return s.n * ((s.oh * s.ow + kn::kBf16ConvCols - 1) / kn::kBf16ConvCols);
}

int convKernel(void *const *bindings, const int64_t *p, int64_t id,
               int64_t count) {
  const int64_t *ep = p + kabi::kConvStrategyParams + 1;
  kn::Bf16ConvProblem c;
  c.s = kabi::convShapeFromParams(kabi::kConvIm2colBf16, p);
  c.x = static_cast<const uint16_t *>(bindings[kIn]);
  c.wPacked = static_cast<const uint16_t *>(bindings[kWeight]);
  c.bias = ep[0] ? static_cast<const float *>(bindings[kBias]) : nullptr;
  c.y = bindings[kOut];
  c.outBf16 = ep[5] != 0;
  c.act = kn::Activation(ep[1]);
  c.p0 = kabi::paramFloat(ep[2]);
  c.p1 = kabi::paramFloat(ep[3]);
  int64_t blocks =
      (c.s.oh * c.s.ow + kn::kBf16ConvCols - 1) / kn::kBf16ConvCols;
  int64_t begin, end;
  split(convUnits(c.s), id, count, begin, end);
  for (int64_t u = begin; u < end; ++u) {
    int64_t j0 = u % blocks * kn::kBf16ConvCols;
    kn::bf16Conv2d(c, u / blocks, j0,
                   std::min(c.s.oh * c.s.ow, j0 + kn::kBf16ConvCols));
  }
  return 0;
}

/// The depthwise kernel: units are the N*O output planes; each input
/// plane and its KH x KW filter are widened to f32 and run through the f32
/// depthwise kernel as a one-channel convolution.
int depthwiseKernel(void *const *bindings, const int64_t *p, int64_t id,
                    int64_t count) {
  const int64_t *ep = p + kabi::kConvStrategyParams + 1;
  kn::Conv2dShape s = kabi::convShapeFromParams(kabi::kConvDepthwiseBf16, p);
  kn::Conv2dShape one = s;
  one.n = one.c = one.o = one.g = 1;
  const auto *x = static_cast<const uint16_t *>(bindings[kIn]);
  const auto *w = static_cast<const uint16_t *>(bindings[kWeight]);
  const float *bias =
      ep[0] ? static_cast<const float *>(bindings[kBias]) : nullptr;
  int64_t hw = s.h * s.w, ohw = s.oh * s.ow, khw = s.kh * s.kw;
  thread_local std::vector<float> plane, filter, out;
  plane.resize(size_t(hw));
  filter.resize(size_t(khw));
  out.resize(size_t(ohw));
  int64_t begin, end;
  split(s.n * s.o, id, count, begin, end);
  for (int64_t u = begin; u < end; ++u) {
    int64_t img = u / s.o, o = u % s.o, ci = o / (s.o / s.c);
    const uint16_t *src = x + (img * s.c + ci) * hw;
    for (int64_t i = 0; i < hw; ++i)
      plane[i] = kn::fromBf16(src[i]);
    for (int64_t i = 0; i < khw; ++i)
      filter[i] = kn::fromBf16(w[o * khw + i]);
    kn::Epilogue e;
    if (bias) {
      e.biasMode = kn::BiasMode::PerRow;
      e.bias = bias + o;
    }
    e.act = kn::Activation(ep[1]);
    e.p0 = kabi::paramFloat(ep[2]);
    e.p1 = kabi::paramFloat(ep[3]);
    int64_t at = (img * s.o + o) * ohw;
    float *y = ep[5] ? out.data() : static_cast<float *>(bindings[kOut]) + at;
    if (!kn::conv2dDepthwise(one, plane.data(), filter.data(), e, y, 0, 1))
      return 1;
    if (ep[5]) {
      uint16_t *dst = static_cast<uint16_t *>(bindings[kOut]) + at;
      for (int64_t i = 0; i < ohw; ++i)
        dst[i] = kn::toBf16(out[i]);
    }
  }
  return 0;
}

bool convCheck(const std::vector<BufferInfo> &b, const std::vector<int64_t> &p,
               std::string &error, bool depthwise) {
  kn::Conv2dShape s =
      kabi::convShapeFromParams(kabi::kConvIm2colBf16, p.data());
  std::string why = kn::checkConv2dShape(s);
  if (!why.empty()) {
    error = why;
    return false;
  }
  if (depthwise ? s.g != s.c : s.g != 1) {
    error = "G is " + str(s.g) +
            (depthwise ? " (the bf16 depthwise convolution takes G = C = " +
                             str(s.c) + ")"
                       : std::string(" (the bf16 convolution takes group 1)"));
    return false;
  }
  const int64_t *ep = p.data() + kabi::kConvStrategyParams + 1;
  if (p[kabi::kConvStrategyParams] != (depthwise ? 0 : 1)) {
    error = "filter_packed is " + str(p[kabi::kConvStrategyParams]) +
            (depthwise ? " (0: the bf16 depthwise convolution reads its plain "
                         "filter)"
                       : " (1: the bf16 convolution reads its filter packed)");
    return false;
  }
  if ((ep[0] != 0 && ep[0] != 1) || ep[1] < 0 ||
      ep[1] >= kn::kActivationCount || ep[2] < 0 || ep[2] > UINT32_MAX ||
      ep[3] < 0 || ep[3] > UINT32_MAX || ep[4] != 0 ||
      (ep[5] != 0 && ep[5] != 1)) {
    error = "has_bias, activation, has_residual, out_bf16 are " + str(ep[0]) +
            ", " + str(ep[1]) + ", " + str(ep[4]) + ", " + str(ep[5]) +
            " (0 or 1; an activation in [0, " +
            std::to_string(kn::kActivationCount) +
            ") with f32 bit patterns as params; 0; 0 or 1)";
    return false;
  }
  uint64_t packed = depthwise ? uint64_t(s.o * s.kh * s.kw)
                              : kn::bf16PackedAElems(s.o, s.gemmK());
  if ((packed == 0 && s.o && s.gemmK()) || packed > UINT64_MAX / 2 ||
      b[kWeight].size < packed * 2) {
    error = "binding 1 (packed filter) has " + std::to_string(b[kWeight].size) +
            " bytes, the params need " + std::to_string(packed * 2);
    return false;
  }
  return needBytes(b, kIn, s.n * s.c * s.h * s.w, 2, "input", error) &&
         needBytes(b, kOut, s.n * s.o * s.oh * s.ow, ep[5] ? 2 : 4, "output",
                   error) &&
         (!ep[0] || needBytes(b, kBias, s.o, 4, "bias", error));
}

constexpr unsigned kWritesOut = 1u << kOut;
const CpuKernel kBf16Kernels[] = {
    {kabi::kMatmulGemmBf16, 4, kabi::kMatmulParams, kWritesOut, matmulCheck,
     matmulKernel},
    {kabi::kConvIm2colBf16, 4, kabi::kConvBf16Params, kWritesOut,
     [](const std::vector<BufferInfo> &b, const std::vector<int64_t> &p,
        std::string &error) { return convCheck(b, p, error, false); },
     convKernel},
    {kabi::kConvDepthwiseBf16, 4, kabi::kConvBf16Params, kWritesOut,
     [](const std::vector<BufferInfo> &b, const std::vector<int64_t> &p,
        std::string &error) { return convCheck(b, p, error, true); },
     depthwiseKernel},
};

} // namespace

CpuKernelList bf16Kernels() {
  return {kBf16Kernels, sizeof(kBf16Kernels) / sizeof(kBf16Kernels[0])};
}

} // namespace strata::runtime::hal
