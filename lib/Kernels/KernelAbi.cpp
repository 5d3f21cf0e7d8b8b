//===- KernelAbi.cpp - kernel names and workgroup counts ------------------===//

#include "strata/Kernels/KernelAbi.h"

#include <initializer_list>

namespace strata::kernels::kabi {

Conv2dShape convShapeFromParams(std::string_view kernel, const int64_t *p) {
  Conv2dShape s;
  if (kernel == kConv1x1 || kernel == kConv1x1I8 || kernel == kConv1x1Narrow) {
    s.n = p[0], s.c = p[1], s.h = s.oh = p[2], s.o = p[3];
    return s;
  }
  s.n = p[0], s.c = p[1], s.h = p[2], s.w = p[3], s.oh = p[4], s.ow = p[5];
  s.o = p[6], s.kh = p[7], s.kw = p[8], s.sh = p[9], s.sw = p[10];
  s.pt = p[11], s.pl = p[12], s.pb = p[13], s.pr = p[14];
  s.dh = p[15], s.dw = p[16], s.g = p[17];
  return s;
}

Pool2dShape poolShapeFromParams(const int64_t *p) {
  Pool2dShape s;
  s.n = p[0], s.c = p[1], s.h = p[2], s.w = p[3], s.oh = p[4], s.ow = p[5];
  s.kh = p[6], s.kw = p[7], s.sh = p[8], s.sw = p[9];
  s.pt = p[10], s.pl = p[11], s.pb = p[12], s.pr = p[13];
  s.dh = p[14], s.dw = p[15];
  return s;
}

bool isRuntimeKernel(std::string_view name) {
  for (const char *k : {kMatmulGemm, kMatmulGemv, kMatmulBatched, kConv1x1,
                        kConvIm2col, kConvDepthwise, kConvWinograd,
                        kMatmulGemmI8, kConv1x1I8, kConvIm2colI8,
                        kConvDepthwiseI8, kMatmulGemmBf16, kConvIm2colBf16,
                        kConvDepthwiseBf16,
                        kSoftmax, kLayerNorm, kMaxPool, kAvgPool,
                        kGlobalAvgPool, kDeconv, kAddRequantI8,
                        kInvertedResidual, kTableI8, kConvStem,
                        kConv1x1Narrow, kStemBlock, kMaxPoolI8,
                        kMaxPoolU8, kTable16I8})
    if (name == k)
      return true;
  for (const char *k : kBinaryKernels)
    if (name == k)
      return true;
  for (const char *k : kUnaryKernels)
    if (name == k)
      return true;
  if (name == kResize2d || name == kConcat)
    return true;
  return isOneDnnKernel(name);
}

bool isOneDnnKernel(std::string_view name) {
  return name == kOneDnnConv || name == kOneDnnMatmul;
}

int64_t suggestedOpWorkgroups(int64_t elements) {
  int64_t wg = 1;
  while (wg < 8 && elements >= (int64_t(1) << 14) * wg * 2)
    wg *= 2;
  return wg;
}

/// Multiply-accumulates of the dispatch, saturating; 0 when unknown.
static double macs(std::string_view kernel, const int64_t *p, int64_t count) {
  auto product = [&](std::initializer_list<int64_t> idx) {
    double v = 1;
    for (int64_t i : idx) {
      if (i >= count || p[i] < 0)
        return 0.0;
      v *= double(p[i]);
    }
    return v;
  };
  if (kernel == kMatmulGemm || kernel == kMatmulGemv ||
      kernel == kMatmulBatched || kernel == kMatmulGemmI8 ||
      kernel == kMatmulGemmBf16)
    return product({0, 1, 2, 3});
  if (kernel == kConv1x1 || kernel == kConv1x1I8 || kernel == kConv1x1Narrow)
    return product({0, 1, 2, 3});
  if (kernel == kInvertedResidual) {
    // N * (H * W * C * E + OH * OW * E * (9 + P))
    if (count < 13)
      return 0;
    return double(p[0]) * (double(p[2] * p[3]) * double(p[1] * p[4]) +
                           double(p[11] * p[12]) * double(p[4] * (9 + p[5])));
  }
  if (kernel == kStemBlock) {
    // N * (H1 * W1 * E * C * 9 + OH * OW * E * (9 + P))
    if (count < 19)
      return 0;
    return double(p[0]) *
           (double(p[6] * p[7]) * double(p[4] * p[1] * 9) +
            double(p[17] * p[18]) * double(p[4] * (9 + p[5])));
  }
  if (kernel == kDeconv) {
    // N * C * H * W * (O / G) * KH * KW
    if (count < kConvStrategyParams || p[17] < 1)
      return 0;
    return product({0, 1, 2, 3, 7, 8}) * double(p[6] / p[17]);
  }
  if (kernel == kConvIm2col || kernel == kConvDepthwise ||
      kernel == kConvWinograd || kernel == kConvIm2colI8 ||
      kernel == kConvDepthwiseI8 || kernel == kConvIm2colBf16 ||
      kernel == kConvDepthwiseBf16 || kernel == kConvStem) {
    // N * O * OH * OW * (C / G) * KH * KW
    if (count < kConvStrategyParams || p[17] < 1)
      return 0;
    return product({0, 6, 4, 5, 7, 8}) * double(p[1] / p[17]);
  }
  return 0;
}

int64_t suggestedWorkgroups(std::string_view kernel, const int64_t *params,
                            int64_t count) {
  if (isOneDnnKernel(kernel))
    return 1;
  double flops = 2 * macs(kernel, params, count);
  // A depthwise or matrix-vector multiply-add reads about one value from
  // memory: the kernel runs about 8 times fewer of them per second than a
  // GEMM.
  if (kernel == kConvDepthwise || kernel == kConvDepthwiseI8 ||
      kernel == kConvDepthwiseBf16 || kernel == kMatmulGemv)
    flops *= 8;
  int64_t wg = 1;
  while (wg < 8 && flops >= 1e6 * double(wg * 2))
    wg *= 2;
  return wg;
}

} // namespace strata::kernels::kabi
