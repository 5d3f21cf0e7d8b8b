//===- MicrokernelPortable.cpp - 6x16 f32 microkernel in plain C++ --------===//
//
// The path for CPUs without AVX2 (and the one tests compare the others
// with): the same tile as the AVX2 kernel, written as loops the compiler
// vectorizes for the baseline ISA.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"

#include <algorithm>

namespace strata::kernels::detail {

namespace {

constexpr int kMR = 6, kNR = 16, kAStride = 12;

float activateScalar(float v, const TileEpilogue &ep) {
  switch (ep.act) {
  case 1:
    return std::max(v, 0.0f);
  case 2:
    return std::min(std::max(v, ep.p0), ep.p1);
  case 3:
    return v < 0.0f ? v * ep.p0 : v;
  case 6:
    return v * std::min(std::max(v * (1.0f / 6.0f) + 0.5f, 0.0f), 1.0f);
  case 7:
    return std::min(std::max(ep.p0 * v + ep.p1, 0.0f), 1.0f);
  default:
    return v;
  }
}

void microkernel(int64_t kc, const float *a, const float *b, int64_t, float *c,
                 int64_t ldc, int64_t mr, int64_t nr, bool accumulate,
                 const TileEpilogue *ep, const TilePrefetch *) {
  float acc[kMR][kNR] = {};
  for (int64_t k = 0; k < kc; ++k) {
    const float *bk = b + k * kNR;
    const float *ak = a + k * kAStride;
    for (int i = 0; i < kMR; ++i)
      for (int j = 0; j < kNR; ++j)
        acc[i][j] += ak[i] * bk[j];
  }
  for (int64_t i = 0; i < mr; ++i) {
    float *ci = c + i * ldc;
    for (int64_t j = 0; j < nr; ++j) {
      float v = acc[i][j];
      if (accumulate)
        v += ci[j];
      if (ep) {
        if (ep->rowBias)
          v += ep->rowBias[i];
        if (ep->colBias)
          v += ep->colBias[j];
        if (ep->residual)
          v += ep->residual[i * ep->ldr + j];
        v = activateScalar(v, *ep);
      }
      ci[j] = v;
    }
  }
}

} // namespace

MicrokernelInfo portableMicrokernel() { return {kMR, kNR, microkernel}; }

} // namespace strata::kernels::detail
