//===- WinogradTest.cpp - Winograd F(4x4, 3x3) against a float64 reference ===//
//
// Every ISA path, odd sizes (partial tiles, blocks not a multiple of 16
// tiles), asymmetric pads, the transformed and plain filter, every
// epilogue; and the error over ResNet-50's four 3x3 layer shapes, printed
// (max abs / max rel to the largest output) and bounded.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include "strata/Kernels/Winograd.h"

#include <cstdio>

using namespace strata::kernels;
using namespace strata::kernels::test;

namespace {

Conv2dShape shape3x3(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                     int64_t pt, int64_t pl, int64_t pb, int64_t pr) {
  Conv2dShape s;
  s.n = n, s.c = c, s.h = h, s.w = w, s.o = o, s.kh = s.kw = 3;
  s.pt = pt, s.pl = pl, s.pb = pb, s.pr = pr;
  s.oh = h + pt + pb - 2;
  s.ow = w + pl + pr - 2;
  return s;
}

/// A 3x3 stride-2 shape: the output is floor((H + pads - 3) / 2) + 1.
Conv2dShape shape3x3s2(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                       int64_t pt, int64_t pl, int64_t pb, int64_t pr) {
  Conv2dShape s = shape3x3(n, c, h, w, o, pt, pl, pb, pr);
  s.sh = s.sw = 2;
  s.oh = (h + pt + pb - 3) / 2 + 1;
  s.ow = (w + pl + pr - 3) / 2 + 1;
  return s;
}

/// Direct 3x3 convolution (any stride) in double, with bias and activation.
std::vector<double> direct3x3(const Conv2dShape &s, const std::vector<float> &x,
                              const std::vector<float> &f,
                              const std::vector<float> &bias,
                              const Epilogue &e) {
  std::vector<double> y(size_t(s.n * s.o * s.oh * s.ow));
  std::vector<double> acc(size_t(s.ow));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t oy = 0; oy < s.oh; ++oy) {
        std::fill(acc.begin(), acc.end(),
                  e.biasMode == BiasMode::PerRow ? bias[o] : 0.0);
        for (int64_t c = 0; c < s.c; ++c)
          for (int64_t ky = 0; ky < 3; ++ky) {
            int64_t iy = oy * s.sh - s.pt + ky;
            if (iy < 0 || iy >= s.h)
              continue;
            const float *xr = &x[size_t(((n * s.c + c) * s.h + iy) * s.w)];
            for (int64_t kx = 0; kx < 3; ++kx) {
              double wv = f[size_t(((o * s.c + c) * 3 + ky) * 3 + kx)];
              for (int64_t ox = 0; ox < s.ow; ++ox) {
                int64_t ix = ox * s.sw - s.pl + kx;
                if (ix >= 0 && ix < s.w)
                  acc[size_t(ox)] += wv * xr[ix];
              }
            }
          }
        for (int64_t ox = 0; ox < s.ow; ++ox)
          y[size_t(((n * s.o + o) * s.oh + oy) * s.ow + ox)] =
              refActivate(acc[size_t(ox)], e.act, e.p0, e.p1);
      }
  return y;
}

std::vector<float>
runWinograd(const Conv2dShape &s, const std::vector<float> &x,
            const std::vector<float> &f, const Epilogue &e, bool transformed,
            int64_t tileHw, int64_t workgroups, Isa isa, int64_t tileOut = 0) {
  WinogradSplit split = winogradSplit(s, tileHw, workgroups, tileOut);
  std::vector<float> u;
  if (transformed) {
    u.resize(winogradFilterBytes(s, split.tileOut) / sizeof(float));
    winogradTransformFilter(s, f.data(), u.data(), split.tileOut);
  }
  std::vector<float> y(size_t(s.n * s.o * s.oh * s.ow), -777.0f);
  int64_t units = winogradUnits(s, split);
  for (int64_t id = 0; id < workgroups; ++id) {
    int64_t begin = units * id / workgroups,
            end = units * (id + 1) / workgroups;
    EXPECT_TRUE(conv2dWinograd(s, x.data(), transformed ? u.data() : f.data(),
                               transformed, e, y.data(), split, begin, end,
                               isa));
  }
  return y;
}

/// Random input, filter, bias and residual (seeds seed .. seed + 3) for
/// `y = relu(conv(x) + bias + residual)`, and its float64 reference.
struct ResidualReluCase {
  std::vector<float> x, f, bias, res;
  std::vector<double> want;
  ResidualReluCase(const Conv2dShape &s, unsigned seed)
      : x(randomVector(size_t(s.n * s.c * s.h * s.w), seed)),
        f(randomVector(size_t(s.o * s.c * 9), seed + 1)),
        bias(randomVector(size_t(s.o), seed + 2)),
        res(randomVector(size_t(s.n * s.o * s.oh * s.ow), seed + 3)) {
    Epilogue plain;
    plain.biasMode = BiasMode::PerRow;
    plain.bias = bias.data();
    want = direct3x3(s, x, f, bias, plain);
    for (size_t i = 0; i < want.size(); ++i)
      want[i] = std::max(want[i] + res[i], 0.0);
  }
  /// Bias, residual and relu, pointing into this case's vectors.
  Epilogue epilogue() const {
    Epilogue e;
    e.biasMode = BiasMode::PerRow;
    e.bias = bias.data();
    e.residual = res.data();
    e.act = Activation::Relu;
    return e;
  }
};

TEST(Winograd, OddSizesEveryIsa) {
  struct Case {
    Conv2dShape s;
    int64_t tileHw, workgroups;
  };
  Case cases[] = {
      {shape3x3(1, 3, 5, 7, 5, 1, 1, 1, 1), 16, 1},
      {shape3x3(2, 17, 13, 11, 19, 1, 1, 1, 1), 7, 3},
      {shape3x3(1, 8, 9, 22, 12, 0, 2, 1, 0), 64, 2},
      {shape3x3(1, 24, 3, 3, 33, 0, 0, 0, 0), 16, 1},
      {shape3x3(3, 5, 18, 6, 4, 2, 1, 0, 2), 33, 4},
  };
  unsigned seed = 1;
  for (const Case &c : cases) {
    const Conv2dShape &s = c.s;
    ASSERT_EQ(checkWinogradShape(s), "");
    std::vector<float> x = randomVector(size_t(s.n * s.c * s.h * s.w), seed++);
    std::vector<float> f = randomVector(size_t(s.o * s.c * 9), seed++);
    std::vector<float> bias = randomVector(size_t(s.o), seed++);
    Epilogue e;
    e.biasMode = BiasMode::PerRow;
    e.bias = bias.data();
    e.act = Activation::Relu;
    std::vector<double> want = direct3x3(s, x, f, bias, e);
    for (Isa isa : supportedIsas())
      for (int64_t m : {kWinogradOut, kWinogradOutSmall})
        for (bool transformed : {true, false}) {
          std::vector<float> y = runWinograd(s, x, f, e, transformed, c.tileHw,
                                             c.workgroups, isa, m);
          expectClose(y, want, 1e-4,
                      std::string(isaName(isa)) + " F(" + std::to_string(m) +
                          ") C=" + std::to_string(s.c) +
                          (transformed ? " transformed" : " plain"));
        }
  }
}

/// Every activation, with and without a bias, on every ISA for each of
/// the tile sides `ms` (0: the shape's own).
void checkEpilogues(const Conv2dShape &s, unsigned seed,
                    std::initializer_list<int64_t> ms) {
  std::vector<float> x = randomVector(size_t(s.c * s.h * s.w), seed);
  std::vector<float> f = randomVector(size_t(s.o * s.c * 9), seed + 1);
  std::vector<float> bias = randomVector(size_t(s.o), seed + 2);
  for (int a = 0; a < kActivationCount; ++a) {
    Epilogue e;
    e.biasMode = a % 2 ? BiasMode::PerRow : BiasMode::None;
    e.bias = bias.data();
    e.act = Activation(a);
    e.p0 = Activation(a) == Activation::Clip ? -0.5f : 0.2f;
    e.p1 = 0.6f;
    std::vector<double> want = direct3x3(s, x, f, bias, e);
    for (Isa isa : supportedIsas())
      for (int64_t m : ms)
        expectClose(runWinograd(s, x, f, e, true, 16, 1, isa, m), want, 1e-4,
                    std::string(isaName(isa)) + " stride " +
                        std::to_string(s.sh) + " F(" + std::to_string(m) +
                        ") activation " + std::to_string(a));
  }
}

TEST(Winograd, Epilogues) {
  checkEpilogues(shape3x3(1, 6, 10, 9, 7, 1, 1, 1, 1), 40,
                 {kWinogradOut, kWinogradOutSmall});
}

TEST(Winograd, SharesPerWorkgroup) {
  // 1 image of 9 x 9 = 81 F(4x4) tiles in 16-tile blocks: 2 workgroups
  // take 41 + 40 tiles (blocks 16 + 16 + 9 and 16 + 16 + 8), 3 take
  // 27 + 27 + 27 (16 + 11 each); 5 or more would make shares under one
  // 16-column panel, so the blocks stay whole and unshared.
  Conv2dShape s = shape3x3(1, 5, 34, 36, 14, 1, 1, 1, 0);
  ASSERT_EQ(s.oh, 34);
  ASSERT_EQ(s.ow, 35);
  EXPECT_EQ(winogradSplit(s, 16, 2).shareTiles, 41);
  EXPECT_EQ(winogradUnits(s, winogradSplit(s, 16, 2)), 6);
  EXPECT_EQ(winogradSplit(s, 16, 3).shareTiles, 27);
  EXPECT_EQ(winogradUnits(s, winogradSplit(s, 16, 3)), 6);
  EXPECT_EQ(winogradSplit(s, 16, 6).shareTiles, 0);
  EXPECT_EQ(winogradSplit(s, 16, 1).shareTiles, 0);
  EXPECT_EQ(winogradSplit(s, 128, 2).shareTiles, 0); // one block
  ResidualReluCase c(s, 60);
  Epilogue e = c.epilogue();
  for (Isa isa : supportedIsas()) {
    std::vector<float> one = runWinograd(s, c.x, c.f, e, true, 16, 1, isa);
    for (int64_t wg : {2, 3, 6}) {
      std::vector<float> y = runWinograd(s, c.x, c.f, e, true, 16, wg, isa);
      expectClose(y, c.want, 1e-4,
                  std::string(isaName(isa)) + " " + std::to_string(wg) +
                      " workgroups");
      EXPECT_EQ(y, one) << isaName(isa) << " " << wg
                        << " workgroups: not the 1-workgroup bits";
    }
  }
}

TEST(Winograd, ResidualAndChannelChunks) {
  Conv2dShape s = shape3x3(1, 9, 20, 18, 26, 1, 1, 1, 1);
  // 1 image of 5x5 tiles in one block: the 26 output channels split in
  // two chunks (24 + 2 rows) for two or more workgroups.
  EXPECT_EQ(winogradSplit(s, 32, 8).oChunks, 2);
  EXPECT_EQ(winogradSplit(s, 32, 1).oChunks, 1);
  EXPECT_EQ(winogradSplit(s, 16, 8).oChunks, 1);
  EXPECT_EQ(winogradUnits(s, winogradSplit(s, 32, 8)), 2);
  ResidualReluCase c(s, 50);
  Epilogue e = c.epilogue();
  for (Isa isa : supportedIsas())
    expectClose(runWinograd(s, c.x, c.f, e, true, 32, 8, isa), c.want, 1e-4,
                std::string(isaName(isa)) + " residual");
  // F(2x2, 3x3): 10 x 9 tiles, in blocks of 32 (a partial last block).
  for (Isa isa : supportedIsas())
    expectClose(
        runWinograd(s, c.x, c.f, e, true, 32, 3, isa, kWinogradOutSmall),
        c.want, 1e-4, std::string(isaName(isa)) + " F(2) residual");
}

TEST(Winograd, TileSizeByShape) {
  // The tile side with less GEMM work: points x tiles rounded up to 16.
  EXPECT_EQ(winogradTileOut(shape3x3(1, 8, 14, 14, 8, 1, 1, 1, 1)), 4);
  EXPECT_EQ(winogradTileOut(shape3x3(1, 8, 12, 12, 8, 1, 1, 1, 1)), 4);
  EXPECT_EQ(winogradTileOut(shape3x3(1, 8, 11, 11, 8, 1, 1, 1, 1)), 4);
  EXPECT_EQ(winogradTileOut(shape3x3(1, 8, 10, 10, 8, 1, 1, 1, 1)), 2);
  EXPECT_EQ(winogradTileOut(shape3x3(1, 8, 7, 7, 8, 1, 1, 1, 1)), 2);
  EXPECT_EQ(winogradTileOut(shape3x3(1, 8, 4, 4, 8, 1, 1, 1, 1)), 2);
  EXPECT_EQ(winogradTileOut(shape3x3(1, 8, 7, 60, 8, 1, 1, 1, 1)), 4);
  // The filter bytes follow the tile size: (m+2)^2 packed O x C matrices.
  Conv2dShape s7 = shape3x3(1, 24, 7, 7, 20, 1, 1, 1, 1);
  EXPECT_EQ(winogradFilterBytes(s7), 16 * packedABytes(20, 24));
  EXPECT_EQ(winogradFilterBytes(s7, 4), 36 * packedABytes(20, 24));
  EXPECT_EQ(winogradSplit(s7, 32, 1).tileOut, 2);
  EXPECT_EQ(winogradUnits(s7, winogradSplit(s7, 32, 1)), 1);
  EXPECT_EQ(winogradUnits(s7, winogradSplit(s7, 32, 1, 4)), 1);
}

TEST(Winograd, RejectsOtherGeometries) {
  Conv2dShape s = shape3x3(1, 4, 8, 8, 4, 1, 1, 1, 1);
  s.sh = 2;
  s.oh = 4;
  EXPECT_NE(checkWinogradShape(s).find("stride 1 or 2"), std::string::npos);
  Conv2dShape s3 = shape3x3(1, 4, 9, 9, 4, 0, 0, 0, 0);
  s3.sh = s3.sw = 3;
  s3.oh = s3.ow = 3;
  EXPECT_NE(checkWinogradShape(s3).find("SH, SW = 3, 3"), std::string::npos);
  // The stride-2 form has 2x2 tiles only: F(4x4) is refused, not run.
  Conv2dShape s2 = shape3x3s2(1, 4, 9, 9, 4, 1, 1, 1, 1);
  EXPECT_EQ(checkWinogradShape(s2), "");
  EXPECT_EQ(winogradFilterBytes(s2, kWinogradOut), 0u);
  std::vector<float> x(size_t(4 * 81)), f(size_t(4 * 4 * 9)), y(size_t(4 * 25));
  EXPECT_FALSE(conv2dWinograd(s2, x.data(), f.data(), false, Epilogue{},
                              y.data(), winogradSplit(s2, 16, 1, kWinogradOut),
                              0, 1));
  Conv2dShape k5 = shape3x3(1, 4, 8, 8, 4, 0, 0, 0, 0);
  k5.kh = k5.kw = 5;
  k5.oh = k5.ow = 4;
  EXPECT_NE(checkWinogradShape(k5).find("KH, KW = 5, 5"), std::string::npos);
}

/// The stride-2 form (5 x 5 input tiles 4 apart, 2x2 output tiles, 25
/// points): odd and even sizes, every pad from 0 to 2 (asymmetric), partial
/// tiles and blocks, workgroups, shares and channel chunks, the plain and
/// the transformed filter, residual and relu, every ISA.
TEST(Winograd, Stride2EveryIsa) {
  struct Case {
    Conv2dShape s;
    int64_t tileHw, workgroups;
  };
  Case cases[] = {
      {shape3x3s2(1, 3, 5, 7, 5, 1, 1, 1, 1), 16, 1},
      {shape3x3s2(2, 17, 13, 11, 19, 1, 1, 1, 1), 7, 3},
      {shape3x3s2(1, 8, 9, 22, 12, 0, 2, 1, 0), 64, 2},
      {shape3x3s2(1, 24, 3, 3, 33, 0, 0, 0, 0), 16, 1},
      {shape3x3s2(3, 5, 18, 6, 4, 2, 1, 0, 2), 33, 4},
      {shape3x3s2(1, 16, 56, 56, 20, 1, 1, 1, 1), 32, 2}, // ResNet-50's pads
      {shape3x3s2(1, 9, 14, 14, 26, 1, 1, 1, 1), 64, 8},  // channel chunks
      {shape3x3s2(1, 6, 10, 12, 7, 0, 0, 1, 1), 16, 1},   // ONNX SAME_UPPER
      {shape3x3s2(1, 5, 4, 31, 3, 0, 1, 0, 0), 5, 1},
      {shape3x3s2(2, 4, 2, 3, 5, 3, 0, 2, 3), 16, 2}, // pads past the input
  };
  unsigned seed = 300;
  for (const Case &c : cases) {
    const Conv2dShape &s = c.s;
    ASSERT_EQ(checkWinogradShape(s), "");
    ASSERT_EQ(winogradTileOut(s), kWinogradOutSmall);
    ASSERT_EQ(winogradFilterBytes(s), 16 * packedABytes(s.o, s.c));
    ResidualReluCase rc(s, seed);
    seed += 4;
    Epilogue e = rc.epilogue();
    for (Isa isa : supportedIsas())
      for (bool transformed : {true, false}) {
        std::vector<float> y = runWinograd(s, rc.x, rc.f, e, transformed,
                                           c.tileHw, c.workgroups, isa);
        expectClose(y, rc.want, 1e-4,
                    std::string(isaName(isa)) +
                        " stride 2 C=" + std::to_string(s.c) + " " +
                        std::to_string(s.h) + "x" + std::to_string(s.w) +
                        (transformed ? " transformed" : " plain"));
      }
  }
}

TEST(Winograd, Stride2SplitTakesNoShares) {
  // 14 x 14 tiles at 2 workgroups: stride 1 shares them (98 each), the
  // stride-2 form splits whole blocks (its GEMMs compute whole panels).
  Conv2dShape s1 = shape3x3(1, 8, 28, 28, 8, 1, 1, 1, 1);
  Conv2dShape s2 = shape3x3s2(1, 8, 56, 56, 8, 1, 1, 1, 1);
  EXPECT_EQ(winogradSplit(s1, 32, 2, kWinogradOutSmall).shareTiles, 98);
  EXPECT_EQ(winogradSplit(s2, 32, 2).shareTiles, 0);
  EXPECT_EQ(winogradUnits(s2, winogradSplit(s2, 32, 2)), 7);
  // One block for two workgroups: the output channels split instead.
  Conv2dShape s3 = shape3x3s2(1, 8, 14, 14, 30, 1, 1, 1, 1);
  EXPECT_EQ(winogradSplit(s3, 32, 2).oChunks, 2);
}

TEST(Winograd, Stride2Epilogues) {
  checkEpilogues(shape3x3s2(1, 6, 11, 9, 7, 1, 1, 1, 1), 340, {0});
}

/// A ResNet-50 layer's error case: inputs uniform in [-1, 1], weights
/// scaled as He-initialized ones, no bias; the float64 output and its
/// largest magnitude.
struct HeScaledCase {
  std::vector<float> x, f;
  std::vector<double> want;
  double maxRef = 0;
  HeScaledCase(const Conv2dShape &s, unsigned seed)
      : x(randomVector(size_t(s.c * s.h * s.w), seed)),
        f(randomVector(size_t(s.o * s.c * 9), seed + 1)) {
    float scale = float(std::sqrt(6.0 / double(s.c * 9)));
    for (float &v : f)
      v *= scale;
    want = direct3x3(s, x, f, {}, Epilogue{});
    for (double v : want)
      maxRef = std::max(maxRef, std::fabs(v));
  }
  /// Prints `y`'s max abs error, that over max |y| and the max rel error
  /// (per element, |error| / (|y| + 1e-3 max |y|)); returns the max abs.
  double report(const std::vector<float> &y, const std::string &what) const {
    double maxAbs = 0, maxRel = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      double err = std::fabs(double(y[i]) - want[i]);
      maxAbs = std::max(maxAbs, err);
      maxRel = std::max(maxRel, err / (std::fabs(want[i]) + 1e-3 * maxRef));
    }
    std::printf("%s: max abs error %.3g, max abs / max |y| %.3g (max |y| "
                "%.3g), max rel error %.3g\n",
                what.c_str(), maxAbs, maxAbs / maxRef, maxRef, maxRel);
    return maxAbs;
  }
};

/// ResNet-50's 3x3 convolutions (pad 1): the F(4x4, 3x3) and F(2x2, 3x3)
/// error against float64, printed and bounded.
TEST(Winograd, ResNet50LayerError) {
  struct Layer {
    int64_t c, hw;
  } layers[] = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
  unsigned seed = 100;
  for (Layer l : layers) {
    Conv2dShape s = shape3x3(1, l.c, l.hw, l.hw, l.c, 1, 1, 1, 1);
    HeScaledCase c(s, seed);
    seed += 2;
    for (Isa isa : supportedIsas())
      for (int64_t m : {kWinogradOut, kWinogradOutSmall}) {
        std::vector<float> y =
            runWinograd(s, c.x, c.f, Epilogue{}, true, 64, 1, isa, m);
        double maxAbs = c.report(
            y, "winograd F(" + std::to_string(m) + "x" + std::to_string(m) +
                   ",3x3) C=O=" + std::to_string(l.c) + " " +
                   std::to_string(l.hw) + "x" + std::to_string(l.hw) + " " +
                   isaName(isa));
        // Stated tolerance: max abs error <= 5e-5 * max |y| (measured: at
        // most 1.5e-5 * max |y|, about 5e-5 absolute, on every ISA; the
        // direct GEMM kernels stay near 1e-6).
        EXPECT_LE(maxAbs, 5e-5 * c.maxRef)
            << isaName(isa) << " F(" << m << ") C=" << l.c;
      }
  }
}

/// ResNet-50's stride-2 3x3 layers (input 56, 28, 14; pad 1): the
/// stride-2 form's error, bounded like the direct GEMM kernels' (its
/// transforms only add and subtract).
TEST(Winograd, ResNet50Stride2LayerError) {
  struct Layer {
    int64_t c, hw;
  } layers[] = {{128, 56}, {256, 28}, {512, 14}};
  unsigned seed = 400;
  for (Layer l : layers) {
    Conv2dShape s = shape3x3s2(1, l.c, l.hw, l.hw, l.c, 1, 1, 1, 1);
    HeScaledCase c(s, seed);
    seed += 2;
    for (Isa isa : supportedIsas()) {
      std::vector<float> y =
          runWinograd(s, c.x, c.f, Epilogue{}, true, 32, 1, isa);
      double maxAbs =
          c.report(y, "winograd stride 2 C=O=" + std::to_string(l.c) + " " +
                          std::to_string(l.hw) + "x" + std::to_string(l.hw) +
                          " -> " + std::to_string(s.oh) + "x" +
                          std::to_string(s.ow) + " " + isaName(isa));
      // Stated tolerance: max abs error <= 5e-6 * max |y| (10x tighter
      // than F(4x4)'s bound).
      EXPECT_LE(maxAbs, 5e-6 * c.maxRef) << isaName(isa) << " C=" << l.c;
    }
  }
}

} // namespace
