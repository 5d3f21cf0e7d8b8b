//===- StemConv.h - direct 3x3 stride-2 convolution of few channels -*- C++
//-*-===//
//
// A network's first convolution (MobileNetV2's stem: 3 -> 32 channels, 3x3,
// stride 2) has K = C * 9 = 27: the im2col GEMM spends as long building its
// matrix as multiplying it, and its 12-row filter panels fit 32 output
// channels badly. This kernel computes the output rows directly: each input
// row is split once into its even and odd padded columns, so every tap of
// 16 consecutive outputs is one contiguous vector load, and blocks of output
// channels x 16-column vectors accumulate in registers (docs/cpu-kernels.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_STEMCONV_H
#define STRATA_KERNELS_STEMCONV_H

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/Isa.h"

#include <cstdint>
#include <string>

namespace strata::kernels {

/// The most input channels the direct stem kernel takes.
inline constexpr int64_t kStemMaxChannels = 4;

/// Empty when conv2dStem takes the shape (checkConv2dShape holds, group 1,
/// 3x3 filter, stride 2, dilation 1, C <= kStemMaxChannels), else why not.
std::string checkStemConvShape(const Conv2dShape &s);

/// The work units workgroups split: one per (image, output row).
inline int64_t stemConvUnits(const Conv2dShape &s) { return s.n * s.oh; }

/// Output rows [begin, end) of the (image, output row) units: y = act(conv(x,
/// filter) + bias), the filter plain OIHW; `e` takes a PerRow bias (one per
/// output channel) or none and any activation, no residual.
void conv2dStem(const Conv2dShape &s, const float *x, const float *filter,
                const Epilogue &e, float *y, int64_t begin, int64_t end,
                Isa isa = activeIsa());

/// A 1x1 convolution with few output channels (MobileNetV2's 32 -> 16 at
/// 112x112) by the same register tiles, straight from the NCHW input: the
/// GEMM would pack all of its input (K x HW) to do only O multiply-adds per
/// packed value. Units of kPointwiseChunk pixels per image.
inline constexpr int64_t kPointwiseChunk = 512;
/// The most output channels conv1x1Narrow is meant for (the strategy's
/// bound; any count computes correctly).
inline constexpr int64_t kPointwiseNarrowMaxOutputs = 16;
inline int64_t conv1x1NarrowUnits(int64_t n, int64_t hw) {
  return n * ((hw + kPointwiseChunk - 1) / kPointwiseChunk);
}
/// Units [begin, end) of conv1x1NarrowUnits: y[N, O, HW] = act(filter[O, K] *
/// x[N, K, HW] + bias
/// + residual): `e` takes a PerRow bias or none, a residual shaped as y
/// (it may be y itself) or none, any activation.
void conv1x1Narrow(int64_t k, int64_t hw, int64_t o, const float *x,
                   const float *filter, const Epilogue &e, float *y,
                   int64_t begin, int64_t end, Isa isa = activeIsa());

} // namespace strata::kernels

#endif // STRATA_KERNELS_STEMCONV_H
