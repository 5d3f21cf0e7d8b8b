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
      for (int64_t calls : {1, 4}) {
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
        int64_t units = conv1x1NarrowUnits(c.n, c.hw);
        for (int64_t i = 0; i < calls; ++i)
          conv1x1Narrow(c.k, c.hw, c.o, x.data(), w.data(), e, y.data(),
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
