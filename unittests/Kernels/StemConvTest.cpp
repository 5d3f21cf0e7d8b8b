//===- StemConvTest.cpp - the direct stem convolution kernel --------------===//
//
// Against a double direct convolution: 1 to 4 input channels, odd and even
// sizes, rows of 1 to 3 column vectors and their tails, every pad parity,
// output channels that are and are not multiples of the register tile,
// every activation form, with and without bias, units split across calls,
// every ISA this CPU runs.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/StemConv.h"

#include "Reference.h"

namespace strata::kernels::test {
namespace {

Conv2dShape stemShape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                      int64_t pt, int64_t pl, int64_t pb, int64_t pr) {
  Conv2dShape s;
  s.n = n, s.c = c, s.h = h, s.w = w, s.o = o, s.kh = s.kw = 3;
  s.sh = s.sw = 2, s.pt = pt, s.pl = pl, s.pb = pb, s.pr = pr;
  s.oh = (h + pt + pb - 3) / 2 + 1;
  s.ow = (w + pl + pr - 3) / 2 + 1;
  return s;
}

struct Case {
  Conv2dShape s;
  bool bias;
  Activation act;
};

void runCase(const Case &k, int64_t calls, Isa isa) {
  const Conv2dShape &s = k.s;
  ASSERT_EQ(checkStemConvShape(s), "");
  auto x = randomVector(size_t(s.n * s.c * s.h * s.w), 11);
  auto w = randomVector(size_t(s.o * s.c * 9), 12);
  auto b = randomVector(size_t(s.o), 13);
  for (float &v : w)
    v *= 3; // reach both ends of a clip to [0, 6]
  Epilogue e;
  if (k.bias)
    e.biasMode = BiasMode::PerRow, e.bias = b.data();
  e.act = k.act;
  e.p0 = k.act == Activation::Clip ? 0.0f : 0.1f;
  e.p1 = k.act == Activation::Clip ? 6.0f : 0.0f;
  std::vector<float> y(size_t(s.n * s.o * s.oh * s.ow), -7.0f);
  int64_t units = stemConvUnits(s);
  for (int64_t i = 0; i < calls; ++i)
    conv2dStem(s, x.data(), w.data(), e, y.data(), units * i / calls,
               units * (i + 1) / calls, isa);
  std::vector<double> want(y.size());
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          double acc = k.bias ? b[o] : 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                int64_t iy = oy * 2 - s.pt + ky, ix = ox * 2 - s.pl + kx;
                if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w)
                  acc += double(w[((o * s.c + c) * 3 + ky) * 3 + kx]) *
                         x[((n * s.c + c) * s.h + iy) * s.w + ix];
              }
          want[size_t(((n * s.o + o) * s.oh + oy) * s.ow + ox)] =
              refActivate(acc, k.act, e.p0, e.p1);
        }
  // Sums of up to 36 |products| below 3: f32 error far under 1e-5 of it.
  expectClose(y, want, 1e-5 * 36,
              std::string(isaName(isa)) + " calls " + std::to_string(calls) +
                  " " + std::to_string(s.c) + "x" + std::to_string(s.h) + "x" +
                  std::to_string(s.w) + " -> " + std::to_string(s.o) +
                  " pads " + std::to_string(s.pt) + std::to_string(s.pl) +
                  std::to_string(s.pb) + std::to_string(s.pr));
}

TEST(StemConv, EveryIsaShapeAndSplit) {
  std::vector<Case> cases = {
      {stemShape(1, 3, 32, 32, 32, 0, 0, 1, 1), true, Activation::Clip},
      {stemShape(1, 3, 33, 35, 16, 1, 1, 1, 1), true, Activation::Clip},
      {stemShape(2, 1, 9, 7, 5, 1, 1, 1, 1), false, Activation::None},
      {stemShape(1, 2, 17, 70, 9, 1, 2, 0, 1), true, Activation::Relu},
      {stemShape(1, 4, 12, 97, 17, 2, 0, 2, 0), true, Activation::HardSwish},
      {stemShape(1, 3, 5, 130, 24, 1, 1, 1, 1), false, Activation::Sigmoid},
      {stemShape(1, 3, 1, 1, 8, 1, 1, 1, 1), true, Activation::LeakyRelu},
      {stemShape(3, 3, 20, 20, 33, 1, 1, 1, 1), true, Activation::Clip},
  };
  for (Isa isa : supportedIsas())
    for (const Case &k : cases)
      for (int64_t calls : {1, 3, 7}) {
        runCase(k, calls, isa);
        if (HasFailure())
          return;
      }
}

/// The narrow 1x1 convolution against a double reference: output channel
/// counts covering every block width (16, 8, 4, 2, 1 and their sums),
/// pixel counts under one vector, with tails, over several chunks; the
/// residual separate and in place of the output.
TEST(StemConv, NarrowPointwiseEveryIsaShapeAndSplit) {
  struct PwCase {
    int64_t n, k, hw, o;
    bool bias, residual, inPlace;
    Activation act;
  };
  const PwCase cases[] = {
      {1, 32, 12544 / 16, 16, true, false, false, Activation::None},
      {2, 7, 9, 3, false, true, false, Activation::Relu},
      {1, 13, 300, 15, true, true, true, Activation::Clip},
      {1, 1, 17, 1, true, false, false, Activation::HardSwish},
      {3, 24, 529, 31, true, true, false, Activation::Sigmoid},
      {1, 96, 256, 24, false, false, false, Activation::LeakyRelu},
  };
  for (Isa isa : supportedIsas())
    for (const PwCase &c : cases)
      for (int64_t calls : {1, 2, 3, 4}) {
        auto x = randomVector(size_t(c.n * c.k * c.hw), 21);
        auto w = randomVector(size_t(c.o * c.k), 22);
        auto b = randomVector(size_t(c.o), 23);
        auto r = randomVector(size_t(c.n * c.o * c.hw), 24);
        Epilogue e;
        if (c.bias)
          e.biasMode = BiasMode::PerRow, e.bias = b.data();
        e.act = c.act;
        e.p0 = c.act == Activation::Clip ? -0.5f : 0.1f;
        e.p1 = c.act == Activation::Clip ? 0.5f : 0.0f;
        std::vector<float> y = c.inPlace ? r : std::vector<float>(r.size(), 9);
        if (c.residual)
          e.residual = c.inPlace ? y.data() : r.data();
        // The chunks sized for `calls` workgroups, each call a workgroup.
        int64_t chunk = conv1x1NarrowChunk(c.n, c.hw, calls);
        int64_t units = conv1x1NarrowUnits(c.n, c.hw, chunk);
        for (int64_t i = 0; i < calls; ++i)
          conv1x1Narrow(c.k, c.hw, c.o, x.data(), w.data(), e, y.data(), chunk,
                        units * i / calls, units * (i + 1) / calls, isa);
        std::vector<double> want(y.size());
        for (int64_t n = 0; n < c.n; ++n)
          for (int64_t o = 0; o < c.o; ++o)
            for (int64_t i = 0; i < c.hw; ++i) {
              double acc = c.bias ? b[o] : 0;
              for (int64_t k = 0; k < c.k; ++k)
                acc += double(w[o * c.k + k]) * x[(n * c.k + k) * c.hw + i];
              size_t at = size_t((n * c.o + o) * c.hw + i);
              if (c.residual)
                acc += r[at];
              want[at] = refActivate(acc, c.act, e.p0, e.p1);
            }
        expectClose(y, want, 1e-6 * double(c.k + 2),
                    std::string(isaName(isa)) + " narrow 1x1 k " +
                        std::to_string(c.k) + " hw " + std::to_string(c.hw) +
                        " o " + std::to_string(c.o) + " calls " +
                        std::to_string(calls));
        if (HasFailure())
          return;
      }
}

/// conv1x1Narrow's chunks: multiples of 16 pixels up to kPointwiseChunk,
/// covering the image, and as many units as split evenly over the
/// workgroups on the shapes that have the pixels for it (MobileNetV2's
/// 784-pixel layers over 2 workgroups: 400 + 384, not 512 + 272).
TEST(StemConv, NarrowPointwiseChunksSplitEvenly) {
  EXPECT_EQ(conv1x1NarrowChunk(1, 784, 2), 400);
  EXPECT_EQ(conv1x1NarrowChunk(1, 784, 1), 400); // 2 chunks of 512 at most
  EXPECT_EQ(conv1x1NarrowChunk(1, 12544, 1), 512);
  for (int64_t n : {1, 2, 3})
    for (int64_t hw : {1, 9, 16, 17, 300, 529, 784, 3136, 12544, 25600})
      for (int64_t wg : {1, 2, 3, 4, 8}) {
        int64_t chunk = conv1x1NarrowChunk(n, hw, wg);
        std::string what = "n " + std::to_string(n) + " hw " +
                           std::to_string(hw) + " workgroups " +
                           std::to_string(wg);
        EXPECT_EQ(chunk % 16, 0) << what;
        EXPECT_GE(chunk, 16) << what;
        EXPECT_LE(chunk, kPointwiseChunk) << what;
        int64_t units = conv1x1NarrowUnits(n, hw, chunk);
        EXPECT_GE(units * chunk, n * hw) << what;
        if (hw >= 784 && wg <= 4)
          EXPECT_EQ(units % wg, 0) << what;
      }
}

/// The fused stem block against the three convolutions in double, one after
/// the other on whole tensors: strides 1 and 2 of the depthwise, odd sizes,
/// asymmetric pads, with and without biases, strips of one row to the whole
/// image, units split across calls.
TEST(StemConv, FusedBlockEveryIsaStripAndSplit) {
  struct BlockCase {
    int64_t n, c, h, w, e, p, stride, pt, pl, pb, pr;
    bool bias;
  };
  const BlockCase cases[] = {
      {1, 3, 32, 32, 32, 16, 1, 1, 1, 1, 1, true},
      {2, 3, 23, 37, 11, 5, 1, 1, 1, 1, 1, false},
      {1, 2, 30, 41, 9, 17, 2, 1, 1, 1, 1, true},
      {1, 4, 17, 20, 8, 3, 2, 0, 0, 1, 1, true},
      {1, 1, 9, 9, 5, 2, 1, 2, 0, 0, 2, true},
  };
  for (Isa isa : supportedIsas())
    for (const BlockCase &k : cases) {
      StemBlockShape s;
      s.n = k.n, s.c = k.c, s.h = k.h, s.w = k.w, s.e = k.e, s.p = k.p;
      s.pt1 = s.pl1 = s.pb1 = s.pr1 = 1;
      s.h1 = (s.h - 1) / 2 + 1, s.w1 = (s.w - 1) / 2 + 1;
      s.stride = k.stride, s.pt = k.pt, s.pl = k.pl, s.pb = k.pb, s.pr = k.pr;
      s.oh = (s.h1 + s.pt + s.pb - 3) / s.stride + 1;
      s.ow = (s.w1 + s.pl + s.pr - 3) / s.stride + 1;
      ASSERT_EQ(checkStemBlockShape(s), "");
      auto x = randomVector(size_t(s.n * s.c * s.h * s.w), 31);
      auto w1 = randomVector(size_t(s.e * s.c * 9), 32);
      auto b1 = randomVector(size_t(s.e), 33);
      auto dw = randomVector(size_t(s.e * 9), 34);
      auto b2 = randomVector(size_t(s.e), 35);
      auto w3 = randomVector(size_t(s.p * s.e), 36);
      auto b3 = randomVector(size_t(s.p), 37);
      for (float &v : w1)
        v *= 3; // reach both ends of relu6
      StemBlockWeights wt;
      wt.w1 = w1.data(), wt.dw = dw.data(), wt.w3 = w3.data();
      if (k.bias)
        wt.b1 = b1.data(), wt.b2 = b2.data(), wt.b3 = b3.data();
      for (Epilogue *e : {&wt.e1, &wt.e2})
        e->act = Activation::Clip, e->p0 = 0, e->p1 = 6;
      // The double reference, stage by stage.
      auto relu6 = [](double v) { return std::min(std::max(v, 0.0), 6.0); };
      int64_t hw1 = s.h1 * s.w1, ohw = s.oh * s.ow;
      std::vector<double> want(size_t(s.n * s.p * ohw));
      for (int64_t n = 0; n < s.n; ++n) {
        std::vector<double> t(size_t(s.e * hw1)), u(size_t(s.e * ohw));
        for (int64_t e = 0; e < s.e; ++e)
          for (int64_t y = 0; y < s.h1; ++y)
            for (int64_t xx = 0; xx < s.w1; ++xx) {
              double acc = k.bias ? b1[e] : 0;
              for (int64_t c = 0; c < s.c; ++c)
                for (int64_t ky = 0; ky < 3; ++ky)
                  for (int64_t kx = 0; kx < 3; ++kx) {
                    int64_t iy = y * 2 - 1 + ky, ix = xx * 2 - 1 + kx;
                    if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w)
                      acc += double(w1[((e * s.c + c) * 3 + ky) * 3 + kx]) *
                             x[((n * s.c + c) * s.h + iy) * s.w + ix];
                  }
              t[e * hw1 + y * s.w1 + xx] = relu6(acc);
            }
        for (int64_t e = 0; e < s.e; ++e)
          for (int64_t oy = 0; oy < s.oh; ++oy)
            for (int64_t ox = 0; ox < s.ow; ++ox) {
              double acc = k.bias ? b2[e] : 0;
              for (int64_t ky = 0; ky < 3; ++ky)
                for (int64_t kx = 0; kx < 3; ++kx) {
                  int64_t iy = oy * s.stride - s.pt + ky;
                  int64_t ix = ox * s.stride - s.pl + kx;
                  if (iy >= 0 && iy < s.h1 && ix >= 0 && ix < s.w1)
                    acc += double(dw[e * 9 + ky * 3 + kx]) *
                           t[e * hw1 + iy * s.w1 + ix];
                }
              u[e * ohw + oy * s.ow + ox] = relu6(acc);
            }
        for (int64_t p = 0; p < s.p; ++p)
          for (int64_t i = 0; i < ohw; ++i) {
            double acc = k.bias ? b3[p] : 0;
            for (int64_t e = 0; e < s.e; ++e)
              acc += double(w3[p * s.e + e]) * u[e * ohw + i];
            want[size_t((n * s.p + p) * ohw + i)] = acc;
          }
      }
      for (int64_t strip :
           {int64_t(1), int64_t(2), int64_t(3), stemBlockStripRows(s), s.oh})
        for (int64_t calls : {1, 3}) {
          int64_t rows = std::min(strip, s.oh);
          std::vector<float> y(want.size(), -7.0f);
          int64_t units = stemBlockUnits(s, rows);
          for (int64_t i = 0; i < calls; ++i)
            ASSERT_TRUE(stemBlock(s, wt, x.data(), y.data(), rows,
                                  units * i / calls, units * (i + 1) / calls,
                                  isa));
          // Sums of |products| reach ~100 here (see InvertedResidualTest).
          expectClose(y, want, 2e-5 * 100,
                      std::string(isaName(isa)) + " stem block strip " +
                          std::to_string(rows) + " calls " +
                          std::to_string(calls) + " stride " +
                          std::to_string(s.stride) + " " + std::to_string(s.h) +
                          "x" + std::to_string(s.w));
          if (HasFailure())
            return;
        }
    }
}

TEST(StemConv, FusedBlockCheckRejectsBadShapes) {
  StemBlockShape s;
  s.c = 3, s.h = s.w = 16, s.e = 8, s.p = 4, s.h1 = s.w1 = 8;
  s.pt1 = s.pl1 = s.pb1 = s.pr1 = 1, s.pt = s.pl = s.pb = s.pr = 1;
  s.oh = s.ow = 8;
  EXPECT_EQ(checkStemBlockShape(s), "");
  StemBlockShape bad = s;
  bad.stride = 3;
  EXPECT_NE(checkStemBlockShape(bad).find("stride 3"), std::string::npos);
  bad = s, bad.c = 6;
  EXPECT_NE(checkStemBlockShape(bad).find("the stem: input channels 6"),
            std::string::npos);
  bad = s, bad.oh = 9;
  EXPECT_NE(checkStemBlockShape(bad).find("the depthwise"), std::string::npos);
  bad = s, bad.p = 0;
  EXPECT_NE(checkStemBlockShape(bad).find("output channels 0"),
            std::string::npos);
}

TEST(StemConv, CheckRejectsOtherShapes) {
  Conv2dShape s = stemShape(1, 3, 16, 16, 8, 1, 1, 1, 1);
  EXPECT_EQ(checkStemConvShape(s), "");
  Conv2dShape bad = s;
  bad.c = 5;
  EXPECT_NE(checkStemConvShape(bad).find("input channels 5"),
            std::string::npos);
  bad = s, bad.sh = bad.sw = 1, bad.oh = bad.ow = 16;
  EXPECT_NE(checkStemConvShape(bad).find("strides"), std::string::npos);
  bad = s, bad.g = 3, bad.c = 3, bad.o = 9;
  EXPECT_NE(checkStemConvShape(bad).find("group"), std::string::npos);
  bad = s, bad.oh = 9;
  EXPECT_NE(checkStemConvShape(bad), "");
}

} // namespace
} // namespace strata::kernels::test
