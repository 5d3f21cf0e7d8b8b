//===- Bf16ConvTest.cpp - the bf16 convolution against an f64 reference ---===//
//
// bf16Conv2d on every bf16 path this CPU runs: 1x1 (the row-copy packing),
// strided and padded (asymmetric) windows, dilation, odd C/O/H/W, K odd,
// more than one 256-column block, bias, relu / clip, f32 and bf16 output.
// Three checks per case:
//   - against a direct f64 convolution of the same bf16 values, within f32
//     accumulation's bound (K + 2) * 2^-24 * (sum |x w| + |bias|), plus half
//     a bf16 ulp (2^-8 relative) for a bf16 output;
//   - bit for bit against bf16Gemm on an explicitly built im2col matrix
//     (the documented sum order: the GEMM's, K rows in ascending pairs);
//   - bit for bit across the paths (portable, AVX512-BF16).
//
//===----------------------------------------------------------------------===//

#include "Bf16TestUtil.h"
#include "strata/Kernels/Bf16Gemm.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"

using namespace strata::kernels;
using strata::kernels::testing::randomBf16;

namespace {

Conv2dShape shape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                  int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t pt,
                  int64_t pl, int64_t pb, int64_t pr, int64_t dh, int64_t dw) {
  Conv2dShape s;
  s.n = n, s.c = c, s.h = h, s.w = w, s.o = o, s.kh = kh, s.kw = kw;
  s.sh = sh, s.sw = sw, s.pt = pt, s.pl = pl, s.pb = pb, s.pr = pr;
  s.dh = dh, s.dw = dw;
  s.oh = (h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
  s.ow = (w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
  return s;
}

std::vector<float> readOut(const std::vector<float> &o32,
                           const std::vector<uint16_t> &o16, bool outBf16) {
  if (!outBf16)
    return o32;
  std::vector<float> r(o16.size());
  for (size_t i = 0; i < o16.size(); ++i)
    r[i] = fromBf16(o16[i]);
  return r;
}

void runCase(const Conv2dShape &s, Activation act, bool withBias, bool outBf16,
             unsigned seed) {
  SCOPED_TRACE(::testing::Message()
               << "N" << s.n << " C" << s.c << " " << s.h << "x" << s.w << " O"
               << s.o << " k" << s.kh << "x" << s.kw << " s" << s.sh << s.sw
               << " p" << s.pt << s.pl << s.pb << s.pr << " d" << s.dh << s.dw
               << " act " << int(act) << " bf16out " << outBf16);
  int64_t k = s.gemmK(), ohw = s.oh * s.ow;
  std::vector<uint16_t> x = randomBf16(size_t(s.n * s.c * s.h * s.w), seed);
  std::vector<uint16_t> w = randomBf16(size_t(s.o * k), seed + 1);
  std::vector<float> bias(size_t(s.o));
  std::mt19937 gen(seed + 2);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  for (float &b : bias)
    b = d(gen);
  std::vector<uint16_t> wp(bf16PackedAElems(s.o, k));
  bf16PackA(w.data(), k, s.o, k, wp.data());
  size_t outCount = size_t(s.n * s.o * ohw);

  // The explicit im2col matrix of each image and bf16Gemm on it.
  std::vector<float> viaGemm;
  {
    std::vector<float> o32(outCount);
    std::vector<uint16_t> o16(outCount);
    for (int64_t img = 0; img < s.n; ++img) {
      std::vector<uint16_t> cols(size_t(k * ohw), 0);
      for (int64_t c = 0; c < s.c; ++c)
        for (int64_t ky = 0; ky < s.kh; ++ky)
          for (int64_t kx = 0; kx < s.kw; ++kx)
            for (int64_t oy = 0; oy < s.oh; ++oy)
              for (int64_t ox = 0; ox < s.ow; ++ox) {
                int64_t iy = oy * s.sh - s.pt + ky * s.dh;
                int64_t ix = ox * s.sw - s.pl + kx * s.dw;
                if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w)
                  cols[size_t(((c * s.kh + ky) * s.kw + kx) * ohw + oy * s.ow +
                              ox)] =
                      x[size_t(((img * s.c + c) * s.h + iy) * s.w + ix)];
              }
      std::vector<uint16_t> bp(bf16PackedBElems(k, ohw));
      bf16PackB(cols.data(), ohw, false, k, ohw, bp.data());
      Bf16GemmProblem g;
      g.m = s.o, g.n = ohw, g.k = k;
      g.aPacked = wp.data();
      g.bPacked = bp.data();
      g.c = outBf16 ? static_cast<void *>(o16.data() + img * s.o * ohw)
                    : static_cast<void *>(o32.data() + img * s.o * ohw);
      g.ldc = ohw;
      g.outBf16 = outBf16;
      if (withBias) {
        g.biasMode = BiasMode::PerRow;
        g.bias = bias.data();
      }
      g.act = act;
      g.p0 = -0.5f;
      g.p1 = 0.75f;
      bf16Gemm(g, 0, s.o, 0, ohw, Bf16Path::Portable);
    }
    viaGemm = readOut(o32, o16, outBf16);
  }

  std::vector<std::vector<float>> results;
  for (Bf16Path path : {Bf16Path::Portable, Bf16Path::Avx512Bf16}) {
    if (!bf16PathSupported(path))
      continue;
    SCOPED_TRACE(bf16PathName(path));
    std::vector<float> o32(outCount, -7.0f);
    std::vector<uint16_t> o16(outCount, 0xffff);
    Bf16ConvProblem p;
    p.s = s;
    p.x = x.data();
    p.wPacked = wp.data();
    p.bias = withBias ? bias.data() : nullptr;
    p.y = outBf16 ? static_cast<void *>(o16.data())
                  : static_cast<void *>(o32.data());
    p.outBf16 = outBf16;
    p.act = act;
    p.p0 = -0.5f;
    p.p1 = 0.75f;
    // Uneven column ranges, as workgroups split the blocks.
    for (int64_t img = 0; img < s.n; ++img) {
      int64_t mid = std::min<int64_t>(ohw, 37);
      bf16Conv2d(p, img, 0, mid, path);
      bf16Conv2d(p, img, mid, ohw, path);
    }
    std::vector<float> got = readOut(o32, o16, outBf16);
    double worst = 0;
    for (int64_t img = 0; img < s.n; ++img)
      for (int64_t o = 0; o < s.o; ++o)
        for (int64_t oy = 0; oy < s.oh; ++oy)
          for (int64_t ox = 0; ox < s.ow; ++ox) {
            double sum = withBias ? bias[size_t(o)] : 0.0;
            double mag = std::fabs(sum);
            for (int64_t c = 0; c < s.c; ++c)
              for (int64_t ky = 0; ky < s.kh; ++ky)
                for (int64_t kx = 0; kx < s.kw; ++kx) {
                  int64_t iy = oy * s.sh - s.pt + ky * s.dh;
                  int64_t ix = ox * s.sw - s.pl + kx * s.dw;
                  if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                    continue;
                  double t =
                      double(fromBf16(
                          x[size_t(((img * s.c + c) * s.h + iy) * s.w + ix)])) *
                      fromBf16(
                          w[size_t(((o * s.c + c) * s.kh + ky) * s.kw + kx)]);
                  sum += t;
                  mag += std::fabs(t);
                }
            double want = sum;
            if (act == Activation::Relu)
              want = std::max(want, 0.0);
            else if (act == Activation::Clip)
              want = std::min(std::max(want, -0.5), 0.75);
            double tol = double(k + 2) * std::ldexp(1.0, -24) * mag;
            if (outBf16)
              tol += std::fabs(want) * std::ldexp(1.0, -8);
            size_t at = size_t((img * s.o + o) * ohw + oy * s.ow + ox);
            ASSERT_NEAR(got[at], want, tol) << "at " << at;
            worst = std::max(worst, std::fabs(got[at] - want));
          }
    ASSERT_EQ(std::memcmp(got.data(), viaGemm.data(), got.size() * 4), 0)
        << "not the bits of bf16Gemm on the explicit im2col matrix";
    results.push_back(std::move(got));
  }
  for (size_t r = 1; r < results.size(); ++r)
    EXPECT_EQ(std::memcmp(results[r].data(), results[0].data(),
                          results[0].size() * 4),
              0)
        << "paths differ";
}

TEST(Bf16Conv, Pointwise) {
  // 1x1 stride 1: rows copied; O and HW not multiples of the panels, two
  // column blocks.
  runCase(shape(2, 19, 17, 19, 29, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1),
          Activation::None, true, true, 1);
  runCase(shape(1, 64, 7, 7, 40, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1),
          Activation::Relu, true, false, 2);
  // K odd, no bias.
  runCase(shape(1, 7, 5, 5, 13, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1), Activation::None,
          false, true, 3);
}

TEST(Bf16Conv, StridedPointwise) {
  runCase(shape(1, 33, 15, 13, 24, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1),
          Activation::Relu, true, true, 4);
}

TEST(Bf16Conv, Windowed) {
  // 3x3 pad 1 (ResNet's), 7x7 stride 2 pad 3 on 3 channels (its stem, K
  // odd), asymmetric pads, dilation, a 1-row output.
  runCase(shape(1, 16, 18, 18, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1),
          Activation::Relu, true, true, 5);
  runCase(shape(1, 3, 23, 21, 17, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1),
          Activation::None, true, false, 6);
  runCase(shape(2, 5, 9, 11, 7, 3, 2, 2, 1, 0, 2, 1, 0, 1, 1), Activation::Clip,
          true, true, 7);
  runCase(shape(1, 6, 12, 12, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2),
          Activation::None, false, true, 8);
  runCase(shape(1, 4, 3, 40, 5, 3, 3, 1, 1, 0, 1, 0, 1, 1, 1), Activation::Relu,
          true, false, 9);
}

TEST(Bf16Conv, ManyChannels) {
  // K > 512: more than one K block of the GEMM.
  runCase(shape(1, 72, 6, 6, 26, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1),
          Activation::None, true, true, 10);
}

} // namespace
