//===- ConvTest.cpp - convolutions against a naive reference --------------===//

#include "Reference.h"

#include "strata/Kernels/Conv.h"

using namespace strata::kernels;
using namespace strata::kernels::test;

namespace {

/// Fills OH/OW from the rest.
Conv2dShape shape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                  int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t pt,
                  int64_t pl, int64_t pb, int64_t pr, int64_t dh, int64_t dw,
                  int64_t g) {
  Conv2dShape s;
  s.n = n, s.c = c, s.h = h, s.w = w, s.o = o, s.kh = kh, s.kw = kw;
  s.sh = sh, s.sw = sw, s.pt = pt, s.pl = pl, s.pb = pb, s.pr = pr;
  s.dh = dh, s.dw = dw, s.g = g;
  s.oh = (h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
  s.ow = (w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
  return s;
}

std::vector<double> referenceConv(const Conv2dShape &s,
                                  const std::vector<float> &x,
                                  const std::vector<float> &f,
                                  const std::vector<float> &bias,
                                  const Epilogue &e, const float *res) {
  int64_t cg = s.c / s.g, og = s.o / s.g;
  std::vector<double> y(size_t(s.n * s.o * s.oh * s.ow));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          double acc = e.biasMode == BiasMode::PerRow ? bias[o] : 0.0;
          int64_t g = o / og;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                int64_t iy = oy * s.sh - s.pt + ky * s.dh;
                int64_t ix = ox * s.sw - s.pl + kx * s.dw;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                  continue;
                acc +=
                    double(x[((n * s.c + g * cg + c) * s.h + iy) * s.w + ix]) *
                    double(f[((o * cg + c) * s.kh + ky) * s.kw + kx]);
              }
          size_t i = size_t(((n * s.o + o) * s.oh + oy) * s.ow + ox);
          if (res)
            acc += res[i];
          y[i] = refActivate(acc, e.act, e.p0, e.p1);
        }
  return y;
}

void runConv(const Conv2dShape &s, Isa isa, bool depthwise, bool packed,
             Activation act, bool residual, int64_t workgroups, unsigned seed,
             bool transposed = false, bool inPlace = false) {
  ASSERT_EQ(checkConv2dShape(s), "");
  std::vector<float> x = randomVector(size_t(s.n * s.c * s.h * s.w), seed);
  std::vector<float> f =
      randomVector(size_t(s.o * (s.c / s.g) * s.kh * s.kw), seed + 1);
  std::vector<float> bias = randomVector(size_t(s.o), seed + 2);
  std::vector<float> res =
      randomVector(size_t(s.n * s.o * s.oh * s.ow), seed + 3);
  Epilogue e;
  e.biasMode = BiasMode::PerRow;
  e.bias = bias.data();
  e.act = act;
  e.p0 = act == Activation::Clip ? 0.0f : 0.1f;
  e.p1 = 6.0f;
  if (residual) {
    e.residual = res.data();
  }
  std::vector<double> want =
      referenceConv(s, x, f, bias, e, residual ? res.data() : nullptr);
  std::vector<float> y(want.size(), 777.0f);
  if (residual && inPlace) {
    y = res; // the result written in place of the residual
    e.residual = y.data();
  }
  std::string what = std::string(isaName(isa)) +
                     (depthwise ? " depthwise"
                      : packed  ? " packed"
                                : " plain") +
                     " N" + std::to_string(s.n) + " C" + std::to_string(s.c) +
                     " H" + std::to_string(s.h) + " W" + std::to_string(s.w) +
                     " O" + std::to_string(s.o) + " K" + std::to_string(s.kh) +
                     "x" + std::to_string(s.kw) + " S" + std::to_string(s.sh) +
                     "," + std::to_string(s.sw) + " D" + std::to_string(s.dh) +
                     "," + std::to_string(s.dw) + " G" + std::to_string(s.g) +
                     " wg" + std::to_string(workgroups) +
                     (transposed ? " transposed" : "") +
                     (inPlace ? " in place" : "");
  if (depthwise) {
    int64_t planes = s.n * s.o;
    for (int64_t w = 0; w < workgroups; ++w)
      ASSERT_TRUE(conv2dDepthwise(s, x.data(), f.data(), e, y.data(),
                                  planes * w / workgroups,
                                  planes * (w + 1) / workgroups, isa));
  } else if (transposed) {
    std::vector<float> fp;
    if (packed) {
      fp.resize(packedConvFilterBytes(s, ConvGemmForm::Transposed) / 4);
      packConvFilter(s, f.data(), fp.data(), ConvGemmForm::Transposed);
    }
    int64_t units = conv2dGemmTransposedUnits(s, workgroups);
    for (int64_t w = 0; w < workgroups; ++w)
      conv2dGemmTransposed(s, x.data(), packed ? fp.data() : f.data(), packed,
                           e, y.data(), workgroups, units * w / workgroups,
                           units * (w + 1) / workgroups, isa);
  } else {
    std::vector<float> fp;
    if (packed) {
      fp.resize(packedConvFilterBytes(s) / 4);
      packConvFilter(s, f.data(), fp.data());
    }
    int64_t units = conv2dGemmUnits(s, workgroups);
    for (int64_t w = 0; w < workgroups; ++w)
      conv2dGemm(s, x.data(), packed ? fp.data() : f.data(), packed, e,
                 y.data(), workgroups, units * w / workgroups,
                 units * (w + 1) / workgroups, isa);
  }
  expectClose(y, want, 2e-6 * double(s.gemmK() + 8), what);
}

TEST(Conv, GemmGeometriesEveryIsa) {
  const Conv2dShape shapes[] = {
      shape(1, 3, 7, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1),
      shape(2, 8, 10, 11, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1), // 1x1
      shape(1, 16, 9, 9, 13, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1),  // 1x1 s2
      shape(1, 4, 12, 13, 6, 3, 2, 2, 3, 1, 0, 2, 1, 1, 1, 1),
      shape(1, 6, 11, 12, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 3), // dil, grp
      shape(2, 8, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2),
      shape(1, 1, 5, 5, 1, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1, 1), // K = 25
      shape(1, 32, 17, 19, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1),
      shape(1, 3, 30, 30, 16, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1),
      shape(1, 64, 6, 6, 20, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1), // K = 64
      shape(1, 300, 3, 5, 7, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1), // K = 300
      // Strides over 1 read the column-phase split input: odd widths,
      // pads wider than the stride, dilation and groups with a stride.
      shape(1, 6, 11, 15, 9, 3, 3, 2, 2, 2, 3, 1, 2, 2, 2, 3),
      shape(2, 3, 9, 23, 5, 3, 5, 1, 4, 1, 5, 1, 6, 1, 2, 1),
      shape(1, 5, 8, 8, 4, 2, 2, 3, 3, 0, 0, 1, 1, 1, 1, 1),
      shape(1, 8, 17, 17, 16, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1), // 1x1 s2
  };
  unsigned seed = 1;
  for (Isa isa : supportedIsas())
    for (const Conv2dShape &s : shapes)
      for (bool packed : {false, true})
        for (int64_t wg : {1, 3})
          runConv(s, isa, false, packed, Activation::Relu, false, wg, seed++);
}

/// The implicit GEMM (every windowed or strided convolution whose 16-column
/// panels span at most two output rows): B read from a padded,
/// column-phase split copy of the input on AVX-512, packed on the other
/// ISAs. Output rows of whole panels and panels crossing a row (14, 19 and
/// 28 columns), a last panel of fewer than 16 columns, strides 1 to 3, odd
/// widths, asymmetric pads, dilation, groups, several images, column
/// chunks over workgroups, every kind of epilogue. (GemmGeometriesEveryIsa
/// covers more: its 17x19 and 12-column outputs take this path too.)
TEST(Conv, ImplicitGemmEveryIsa) {
  const Conv2dShape shapes[] = {
      shape(1, 3, 20, 64, 20, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1), // a stem
      shape(2, 3, 9, 32, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1),
      shape(1, 3, 12, 33, 8, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1),
      shape(1, 8, 10, 20, 6, 3, 3, 1, 1, 2, 0, 1, 0, 2, 2, 2),
      shape(1, 1, 7, 48, 5, 2, 3, 1, 3, 0, 0, 0, 0, 1, 1, 1),
      shape(1, 16, 11, 19, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1), // crossing
      shape(2, 9, 28, 27, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1),   // 14x14
      shape(1, 5, 57, 56, 13, 3, 3, 2, 2, 1, 0, 1, 1, 1, 1, 1),  // 28x28
  };
  unsigned seed = 900;
  for (Isa isa : supportedIsas())
    for (const Conv2dShape &s : shapes)
      for (bool packed : {false, true})
        for (int64_t wg : {1, 3})
          runConv(s, isa, false, packed, Activation::Relu, false, wg, seed++);
  Conv2dShape s = shape(1, 3, 10, 35, 24, 5, 5, 2, 2, 2, 1, 2, 0, 1, 1, 1);
  for (Isa isa : supportedIsas())
    for (Activation a : {Activation::None, Activation::Clip, Activation::SiLU})
      for (bool residual : {false, true})
        runConv(s, isa, false, true, a, residual, 2, seed++);
}

TEST(Conv, ImplicitGemmWorkgroupRowWindows) {
  // Each workgroup copies only the padded input rows its output rows read:
  // windows clipped by the top and bottom pads, dilated and strided rows,
  // chunks starting inside an output row, 1 to 7 workgroups.
  const Conv2dShape shapes[] = {
      shape(1, 4, 13, 16, 18, 3, 3, 2, 1, 2, 1, 2, 1, 2, 1, 1),
      shape(1, 5, 30, 28, 9, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 1),
      shape(2, 3, 31, 34, 16, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1),
      shape(1, 6, 12, 17, 8, 3, 3, 1, 1, 0, 1, 3, 1, 1, 1, 2),
  };
  unsigned seed = 1500;
  for (Isa isa : supportedIsas())
    for (const Conv2dShape &s : shapes)
      for (int64_t wg : {1, 2, 3, 4, 5, 7})
        runConv(s, isa, false, true, Activation::Relu, wg % 2 == 0, wg,
                seed++);
}

TEST(Conv, GemmColumnChunksWithTheRestInTheLast) {
  // 196 output columns (14x14, ResNet-50's stage 3) in 2 or 4 workgroups:
  // whole panels rounded down, the last chunk taking the rest (96 + 100,
  // 48 x 3 + 52).
  const Conv2dShape shapes[] = {
      shape(1, 24, 14, 14, 20, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1),
      shape(1, 8, 14, 14, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1),
  };
  unsigned seed = 50;
  for (Isa isa : supportedIsas())
    for (const Conv2dShape &s : shapes)
      for (int64_t wg : {2, 4})
        runConv(s, isa, false, true, Activation::Relu, true, wg, seed++);
}

TEST(Conv, SmallKExpansionTiles) {
  // 1x1 convolutions with K <= 48 and whole 12-row panels of output
  // channels run the fused blocks' AVX-512 tile loop (expandTilesAvx512):
  // column chunks over 1-3 workgroups, widths with 32-column tiles, a
  // partial tile and under 16 columns, bias, none / relu / clip; K = 96,
  // M * K over 16384, a residual or an activation outside relu / clip keep
  // the GEMM.
  const Conv2dShape shapes[] = {
      shape(1, 32, 7, 10, 192, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1),
      shape(2, 16, 5, 7, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1),
      shape(1, 48, 3, 3, 36, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1),
      shape(1, 96, 4, 5, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1),
      shape(1, 5, 14, 14, 12, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1),
      shape(1, 48, 2, 3, 336, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1), // A 64 KiB
      shape(1, 48, 2, 3, 348, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1), // over
  };
  unsigned seed = 300;
  for (Isa isa : supportedIsas())
    for (const Conv2dShape &s : shapes)
      for (int64_t wg : {1, 2, 3}) {
        for (Activation a :
             {Activation::None, Activation::Relu, Activation::Clip})
          runConv(s, isa, false, true, a, false, wg, seed++);
        runConv(s, isa, false, true, Activation::HardSwish, false, wg, seed++);
        runConv(s, isa, false, true, Activation::Clip, true, wg, seed++);
        runConv(s, isa, false, false, Activation::Clip, false, wg, seed++);
      }
}

TEST(Conv, GemmEpilogues) {
  Conv2dShape s = shape(1, 8, 9, 10, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);
  unsigned seed = 100;
  for (Isa isa : supportedIsas())
    for (Activation a :
         {Activation::None, Activation::Clip, Activation::LeakyRelu,
          Activation::SiLU, Activation::HardSwish})
      for (bool residual : {false, true})
        runConv(s, isa, false, true, a, residual, 2, seed++);
}

TEST(Conv, DepthwiseEveryIsa) {
  const Conv2dShape shapes[] = {
      shape(1, 8, 9, 10, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8),
      shape(2, 5, 13, 17, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5),
      shape(1, 4, 12, 40, 8, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 4), // mult 2
      shape(1, 3, 11, 11, 3, 3, 3, 1, 2, 2, 2, 2, 2, 2, 2, 3), // dilation
      shape(1, 2, 7, 7, 2, 7, 7, 1, 1, 0, 0, 0, 0, 1, 1, 2),
      shape(1, 3, 4, 33, 3, 3, 3, 3, 1, 0, 4, 1, 0, 1, 1, 3),  // big pad
      shape(1, 2, 9, 40, 2, 3, 3, 1, 3, 1, 1, 1, 1, 1, 1, 2),  // stride 3
      shape(1, 2, 12, 20, 2, 9, 9, 1, 1, 4, 4, 4, 4, 1, 1, 2), // 81 taps
      // A stride so large the padded plane would dwarf the input: the
      // bounds-checked path.
      shape(1, 2, 40, 8000, 2, 3, 3, 1, 4000, 1, 1, 1, 1, 1, 1, 2),
  };
  unsigned seed = 200;
  for (Isa isa : supportedIsas())
    for (const Conv2dShape &s : shapes)
      for (Activation a : {Activation::None, Activation::Clip,
                           Activation::HardSwish, Activation::Sigmoid})
        runConv(s, isa, true, false, a, false, 3, seed++);
}

/// The dedicated 3x3 dilation-1 path (stride 1 or 2 in both directions):
/// widths below, at and across the 16-column blocks (tails that store past
/// a row's end inside the plane, and the plane's last row that must not),
/// odd and even left pads (the stride-2 even/odd column split), asymmetric
/// pads, a channel multiplier, split workgroups and every activation the
/// path applies in registers plus one it applies afterwards.
TEST(Conv, Depthwise3x3EveryIsa) {
  const Conv2dShape shapes[] = {
      shape(1, 3, 7, 7, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3),
      shape(1, 4, 14, 14, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4),
      shape(2, 3, 5, 17, 3, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 3),
      shape(1, 2, 9, 33, 4, 3, 3, 1, 1, 1, 2, 0, 1, 1, 1, 2), // mult 2
      shape(1, 3, 3, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 3),  // 1x1 output
      shape(1, 3, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3),  // 1x1 input
      shape(1, 3, 14, 14, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3),
      shape(1, 3, 15, 15, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3),
      shape(2, 2, 13, 70, 2, 3, 3, 2, 2, 0, 1, 1, 0, 1, 1, 2),
      shape(1, 2, 12, 49, 2, 3, 3, 2, 2, 1, 0, 0, 2, 1, 1, 2),
      shape(1, 3, 8, 112, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3),
      shape(1, 2, 9, 37, 4, 3, 3, 2, 2, 2, 3, 2, 3, 1, 1, 2), // mult 2
      // Narrow stride-2 rows filled in one 32-column step past the row's
      // end: the right pads outputs read (two columns) zeroed again.
      shape(1, 2, 9, 13, 2, 3, 3, 2, 2, 1, 2, 1, 2, 1, 1, 2),
      shape(1, 2, 28, 28, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2),
      // Output heights 13 and 6: groups of four rows (AVX-512) and the
      // rest.
      shape(1, 2, 13, 20, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2),
      shape(1, 2, 6, 40, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2),
      // Stride 1, pads 1, rows of at most 8 (the flattened narrow-plane
      // path): 7x7 with a multiplier and two images, 3x3 (one vector),
      // 20x8 (ten vectors), 5x1 and 5x2 (every lane at a row's edge); then
      // 5x9 with asymmetric pads and 14x14, which keep the rows.
      shape(2, 3, 7, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3),
      shape(1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3),
      shape(1, 2, 20, 8, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2),
      shape(1, 2, 5, 1, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2),
      shape(1, 2, 5, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2),
      shape(1, 2, 5, 9, 2, 3, 3, 1, 1, 0, 2, 2, 0, 1, 1, 2),
      shape(1, 2, 14, 14, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2),
  };
  unsigned seed = 400;
  for (Isa isa : supportedIsas())
    for (const Conv2dShape &s : shapes)
      for (Activation a : {Activation::None, Activation::Relu, Activation::Clip,
                           Activation::LeakyRelu, Activation::HardSwish,
                           Activation::HardSigmoid, Activation::SiLU})
        for (int64_t wg : {1, 2})
          runConv(s, isa, true, false, a, false, wg, seed++);
}

/// The transposed GEMM form (output pixels as rows, the filter as B): 1x1
/// and windowed, strided, padded, dilated and grouped shapes, output
/// channels that are and are not multiples of 16, pixel counts below and
/// across the 12-row panels, plain and packed filters, channel chunks over
/// workgroups, the residual separate and in place, every kind of epilogue.
TEST(Conv, GemmTransposedEveryIsa) {
  const Conv2dShape shapes[] = {
      shape(1, 40, 7, 7, 48, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1),
      shape(2, 24, 7, 7, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1),
      shape(1, 16, 13, 13, 32, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1), // s2 -> 7x7
      shape(1, 12, 14, 14, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1),
      shape(1, 8, 9, 9, 64, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2),   // dil, grp
      shape(1, 300, 3, 5, 17, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1), // K = 300
      shape(1, 5, 1, 1, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1),   // 1 pixel
  };
  unsigned seed = 600;
  for (Isa isa : supportedIsas())
    for (const Conv2dShape &s : shapes)
      for (bool packed : {false, true})
        for (int64_t wg : {1, 3})
          runConv(s, isa, false, packed, Activation::Relu, false, wg, seed++,
                  /*transposed=*/true);
  Conv2dShape s = shape(1, 24, 7, 7, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);
  for (Isa isa : supportedIsas())
    for (Activation a :
         {Activation::None, Activation::Relu, Activation::Clip,
          Activation::LeakyRelu, Activation::SiLU, Activation::HardSwish})
      for (bool residual : {false, true})
        for (bool inPlace : {false, true}) {
          if (inPlace && !residual)
            continue;
          runConv(s, isa, false, true, a, residual, 2, seed++,
                  /*transposed=*/true, inPlace);
        }
}

TEST(Conv, PreferredGemmForm) {
  // 7x7 outputs fill 16-lane vectors badly (49 of 64): transposed.
  EXPECT_EQ(preferredConvGemmForm(
                shape(1, 512, 7, 7, 2048, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1)),
            ConvGemmForm::Transposed);
  EXPECT_EQ(preferredConvGemmForm(
                shape(1, 512, 9, 9, 512, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1)),
            ConvGemmForm::Transposed);
  // 56x56 = 196 x 16 pixels: normal; few output channels: normal.
  EXPECT_EQ(preferredConvGemmForm(
                shape(1, 64, 56, 56, 64, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1)),
            ConvGemmForm::Normal);
  EXPECT_EQ(preferredConvGemmForm(
                shape(1, 64, 7, 7, 8, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1)),
            ConvGemmForm::Normal);
  // Over kMaxTransposedPixels: normal.
  EXPECT_EQ(preferredConvGemmForm(
                shape(1, 8, 33, 33, 64, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1)),
            ConvGemmForm::Normal);
}

TEST(Conv, CheckRejectsBadGeometry) {
  Conv2dShape s = shape(1, 8, 9, 10, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);
  EXPECT_EQ(checkConv2dShape(s), "");
  Conv2dShape bad = s;
  bad.oh += 1;
  EXPECT_NE(checkConv2dShape(bad).find("does not follow"), std::string::npos);
  bad = s;
  bad.g = 3;
  EXPECT_NE(checkConv2dShape(bad).find("does not divide"), std::string::npos);
  bad = s;
  bad.sh = 0;
  EXPECT_NE(checkConv2dShape(bad).find("SH is 0"), std::string::npos);
  bad = s;
  bad.pl = -1;
  EXPECT_NE(checkConv2dShape(bad).find("PL is -1"), std::string::npos);
  bad = s;
  bad.n = INT64_MAX / 2;
  EXPECT_NE(checkConv2dShape(bad).find("overflows"), std::string::npos);
}

} // namespace
