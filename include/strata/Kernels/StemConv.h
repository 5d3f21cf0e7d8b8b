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

/// A 1x1 convolution with few output channels (MobileNetV2's 192 -> 32 at
/// 28x28) by the same register tiles, straight from the NCHW input: the
/// GEMM would pack all of its input (K x HW) to do only O multiply-adds per
/// packed value. Units of `chunk` pixels per image (conv1x1NarrowChunk: at
/// most kPointwiseChunk).
inline constexpr int64_t kPointwiseChunk = 512;
/// The most output channels conv1x1Narrow is meant for (the strategy's
/// bound; any count computes correctly).
inline constexpr int64_t kPointwiseNarrowMaxOutputs = 32;
/// Pixels per unit for `workgroups` workgroups: a multiple of 16, at most
/// kPointwiseChunk, over as few chunks per image as make the units a
/// multiple of the workgroups where the chunks allow it (784 pixels over 2
/// workgroups: 400 + 384, where 512 + 272 left one workgroup 65% of the
/// work).
int64_t conv1x1NarrowChunk(int64_t n, int64_t hw, int64_t workgroups);
inline int64_t conv1x1NarrowUnits(int64_t n, int64_t hw, int64_t chunk) {
  return n * ((hw + chunk - 1) / chunk);
}
/// Units [begin, end) of conv1x1NarrowUnits(n, hw, chunk): y[N, O, HW] =
/// act(filter[O, K] * x[N, K, HW] + bias + residual): `e` takes a PerRow
/// bias or none, a residual shaped as y (it may be y itself) or none, any
/// activation. `chunk` is a positive multiple of 16 (conv1x1NarrowChunk).
void conv1x1Narrow(int64_t k, int64_t hw, int64_t o, const float *x,
                   const float *filter, const Epilogue &e, float *y,
                   int64_t chunk, int64_t begin, int64_t end,
                   Isa isa = activeIsa());

/// A network's first block fused (MobileNetV2: the 3 -> 32 stem, a 3x3
/// depthwise, a 1x1 projection to 16): strips of output rows, the stem's
/// rows (E channels) computed into a per-thread buffer (the rows a strip
/// shares with the previous one kept), the depthwise over them into a
/// second one, the projection from it into the output: the two E x H1 x W1
/// tensors between them never leave the cache.
struct StemBlockShape {
  int64_t n = 1, c = 1, h = 1, w = 1; ///< input N x C x H x W
  int64_t e = 1;                      ///< the stem's output channels
  int64_t p = 1;                      ///< the projection's output channels
  int64_t h1 = 1, w1 = 1;             ///< the stem's output rows, columns
  int64_t pt1 = 0, pl1 = 0, pb1 = 0, pr1 = 0; ///< the stem's pads
  int64_t stride = 1; ///< the depthwise's, 1 or 2 in both directions
  int64_t pt = 0, pl = 0, pb = 0, pr = 0; ///< the depthwise's pads
  int64_t oh = 1, ow = 1;                 ///< the output's rows, columns

  /// The stem convolution (3x3 stride 2) and the depthwise one.
  Conv2dShape stemShape() const;
  Conv2dShape depthwiseShape() const;
};

/// Filters plain: w1 E x C x 3 x 3, dw E x 1 x 3 x 3, w3 P x E. Biases (E,
/// E, P floats) may be null. Each stage's activation from its epilogue
/// (their bias and residual fields are not read).
struct StemBlockWeights {
  const float *w1 = nullptr, *b1 = nullptr;
  const float *dw = nullptr, *b2 = nullptr;
  const float *w3 = nullptr, *b3 = nullptr;
  Epilogue e1, e2, e3;
};

/// Empty when the fused stem block takes the shape (the stem passes
/// checkStemConvShape, the depthwise is 3x3 stride 1 or 2 over its output,
/// every size positive), else why not.
std::string checkStemBlockShape(const StemBlockShape &s);
/// Output rows per strip: about 1024 output pixels (the two buffers in
/// the L2 cache), at least 1, at most OH.
int64_t stemBlockStripRows(const StemBlockShape &s);
/// The (image, strip) units workgroups split.
inline int64_t stemBlockUnits(const StemBlockShape &s, int64_t stripRows) {
  return s.n * ((s.oh + stripRows - 1) / stripRows);
}
/// Units [begin, end); false only when a buffer cannot be allocated.
bool stemBlock(const StemBlockShape &s, const StemBlockWeights &wt,
               const float *x, float *y, int64_t stripRows, int64_t begin,
               int64_t end, Isa isa = activeIsa());

} // namespace strata::kernels

#endif // STRATA_KERNELS_STEMCONV_H
