//===- InvertedResidualTest.cpp - the fused inverted-residual kernel ------===//
//
// Against a double reference of the three convolutions computed one after
// the other on whole tensors: odd sizes, strides 1 and 2, asymmetric pads,
// with and without residual and biases, strips of one row to the whole
// image, split into units across calls, every ISA this CPU runs.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/InvertedResidual.h"

#include "Reference.h"

namespace strata::kernels::test {
namespace {

struct Case {
  InvertedResidualShape s;
  bool bias, residual;
  /// The depthwise stage's activation (clip 0..6 unless said).
  Activation act2 = Activation::Clip;
};

/// The block in double: expansion, depthwise, projection, each on the
/// whole tensor.
std::vector<double>
reference(const InvertedResidualShape &s, const std::vector<float> &x,
          const std::vector<float> &w1, const std::vector<float> &b1,
          const std::vector<float> &dw, const std::vector<float> &b2,
          const std::vector<float> &w3, const std::vector<float> &b3,
          const std::vector<float> &res, bool bias,
          Activation act2 = Activation::Clip) {
  auto relu6 = [](double v) { return std::min(std::max(v, 0.0), 6.0); };
  auto activate2 = [&](double v) -> double {
    switch (act2) {
    case Activation::Clip:
      return relu6(v);
    case Activation::None:
      return v;
    case Activation::Relu:
      return std::max(v, 0.0);
    case Activation::HardSwish:
      return v * std::min(std::max(v / 6 + 0.5, 0.0), 1.0);
    case Activation::Sigmoid:
      return 1 / (1 + std::exp(-v));
    default:
      ADD_FAILURE() << "no reference for activation " << int(act2);
      return v;
    }
  };
  int64_t hw = s.h * s.w, ohw = s.oh * s.ow;
  std::vector<double> y(size_t(s.n * s.p * ohw));
  std::vector<double> t(size_t(s.e * hw)), u(size_t(s.e * ohw));
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t e = 0; e < s.e; ++e)
      for (int64_t i = 0; i < hw; ++i) {
        double acc = bias ? b1[e] : 0;
        for (int64_t c = 0; c < s.c; ++c)
          acc += double(w1[e * s.c + c]) * x[(n * s.c + c) * hw + i];
        t[e * hw + i] = relu6(acc);
      }
    for (int64_t e = 0; e < s.e; ++e)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          double acc = bias ? b2[e] : 0;
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              int64_t iy = oy * s.stride - s.pt + ky;
              int64_t ix = ox * s.stride - s.pl + kx;
              if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w)
                acc +=
                    double(dw[e * 9 + ky * 3 + kx]) * t[e * hw + iy * s.w + ix];
            }
          u[e * ohw + oy * s.ow + ox] = activate2(acc);
        }
    for (int64_t p = 0; p < s.p; ++p)
      for (int64_t i = 0; i < ohw; ++i) {
        double acc = bias ? b3[p] : 0;
        for (int64_t e = 0; e < s.e; ++e)
          acc += double(w3[p * s.e + e]) * u[e * ohw + i];
        if (!res.empty())
          acc += res[(n * s.p + p) * ohw + i];
        y[(n * s.p + p) * ohw + i] = acc;
      }
  }
  return y;
}

InvertedResidualShape shape(int64_t n, int64_t c, int64_t h, int64_t w,
                            int64_t e, int64_t p, int64_t stride, int64_t pt,
                            int64_t pl, int64_t pb, int64_t pr) {
  InvertedResidualShape s;
  s.n = n, s.c = c, s.h = h, s.w = w, s.e = e, s.p = p, s.stride = stride;
  s.pt = pt, s.pl = pl, s.pb = pb, s.pr = pr;
  s.oh = (h + pt + pb - 3) / stride + 1;
  s.ow = (w + pl + pr - 3) / stride + 1;
  return s;
}

void runCase(const Case &k, int64_t stripRows, int64_t calls, Isa isa,
             InvertedResidualPath path) {
  const InvertedResidualShape &s = k.s;
  ASSERT_EQ(checkInvertedResidualShape(s), "");
  auto x = randomVector(size_t(s.n * s.c * s.h * s.w), 1);
  auto w1 = randomVector(size_t(s.e * s.c), 2);
  auto b1 = randomVector(size_t(s.e), 3);
  auto dw = randomVector(size_t(s.e * 9), 4);
  auto b2 = randomVector(size_t(s.e), 5);
  auto w3 = randomVector(size_t(s.p * s.e), 6);
  auto b3 = randomVector(size_t(s.p), 7);
  for (float &v : w1)
    v *= 3; // reach both ends of relu6
  std::vector<float> res;
  if (k.residual)
    res = randomVector(size_t(s.n * s.p * s.oh * s.ow), 8);
  std::vector<float> p1(packedABytes(s.e, s.c) / 4),
      p3(packedABytes(s.p, s.e) / 4);
  packA(w1.data(), s.c, false, s.e, s.c, p1.data());
  packA(w3.data(), s.e, false, s.p, s.e, p3.data());
  InvertedResidualWeights wt;
  wt.w1 = p1.data(), wt.dw = dw.data(), wt.w3 = p3.data();
  if (k.bias)
    wt.b1 = b1.data(), wt.b2 = b2.data(), wt.b3 = b3.data();
  for (Epilogue *e : {&wt.e1, &wt.e2})
    e->act = Activation::Clip, e->p0 = 0, e->p1 = 6;
  wt.e2.act = k.act2;
  wt.residual = k.residual ? res.data() : nullptr;
  std::vector<float> y(size_t(s.n * s.p * s.oh * s.ow), -7.0f);
  int64_t units = invertedResidualUnits(s, stripRows);
  for (int64_t i = 0; i < calls; ++i)
    ASSERT_TRUE(invertedResidual(s, wt, x.data(), y.data(), stripRows,
                                 units * i / calls, units * (i + 1) / calls,
                                 isa, path));
  std::vector<double> want =
      reference(s, x, w1, b1, dw, b2, w3, b3, res, k.bias, k.act2);
  // Sums of |products| reach ~100 here; f32 accumulation stays within
  // 2e-5 of that scale.
  expectClose(y, want, 2e-5 * 100,
              std::string(isaName(isa)) +
                  (path == InvertedResidualPath::Rows ? " rows" : " buffered") +
                  " strip " + std::to_string(stripRows) + " calls " +
                  std::to_string(calls) + " stride " +
                  std::to_string(s.stride) + " " + std::to_string(s.h) + "x" +
                  std::to_string(s.w));
}

TEST(InvertedResidual, EveryIsaStripsAndSplits) {
  std::vector<Case> cases = {
      {shape(1, 16, 13, 11, 24, 16, 1, 1, 1, 1, 1), true, true},
      {shape(2, 5, 9, 21, 19, 7, 1, 1, 1, 1, 1), false, false},
      {shape(1, 8, 17, 15, 32, 12, 2, 1, 1, 1, 1), true, false},
      {shape(1, 8, 16, 16, 20, 8, 2, 0, 0, 1, 1), true, false},
      {shape(2, 3, 10, 37, 13, 5, 2, 1, 2, 0, 1), true, true},
      {shape(1, 4, 7, 7, 40, 24, 1, 2, 0, 0, 2), true, true},
      {shape(1, 24, 3, 3, 144, 24, 1, 1, 1, 1, 1), true, true},
      // Rows wider than one 16-column block, odd and even, every pad
      // parity at stride 2, and the other epilogue forms.
      {shape(1, 6, 9, 49, 20, 10, 2, 1, 1, 1, 1), true, false},
      {shape(1, 6, 8, 40, 20, 10, 2, 0, 0, 1, 1), true, false,
       Activation::Relu},
      {shape(1, 5, 7, 35, 18, 9, 2, 1, 1, 0, 0), false, false,
       Activation::None},
      {shape(1, 5, 6, 33, 17, 5, 1, 0, 0, 0, 0), true, false,
       Activation::HardSwish},
      {shape(1, 7, 6, 50, 26, 7, 1, 1, 1, 1, 1), true, true,
       Activation::Sigmoid},
      // Expanded channels in whole 12-row panels without biases (the
      // AVX-512 expansion tiles' no-bias form), rows of several 32-column
      // tiles.
      {shape(1, 8, 11, 45, 36, 12, 2, 1, 1, 1, 1), false, false},
      {shape(1, 16, 6, 37, 48, 16, 1, 1, 1, 1, 1), false, true,
       Activation::None},
  };
  for (Isa isa : supportedIsas())
    for (const Case &k : cases)
      for (int64_t strip : {int64_t(1), int64_t(2), int64_t(3), k.s.oh})
        for (int64_t calls : {1, 3})
          for (InvertedResidualPath path :
               {InvertedResidualPath::Rows, InvertedResidualPath::Buffered}) {
            runCase(k, std::min(strip, k.s.oh), calls, isa, path);
            if (HasFailure())
              return;
          }
}

TEST(InvertedResidual, StripRowsFollowTheCache) {
  InvertedResidualShape s = shape(1, 16, 112, 112, 96, 24, 2, 0, 0, 1, 1);
  int64_t r = invertedResidualStripRows(s, 512 << 10);
  EXPECT_GE(r, 1);
  // The strip's buffers fit the budget.
  EXPECT_LE(4 * s.e * ((r - 1) * 2 + 3) * s.w + 4 * s.e * r * s.ow, 512 << 10);
  EXPECT_GT(invertedResidualStripRows(s, 2 << 20), r);
  EXPECT_EQ(invertedResidualStripRows(s, 1 << 30), s.oh);
  EXPECT_EQ(invertedResidualStripRows(s, 0), 1);
}

TEST(InvertedResidual, CheckRejectsBadShapes) {
  InvertedResidualShape s = shape(1, 8, 8, 8, 16, 8, 1, 1, 1, 1, 1);
  EXPECT_EQ(checkInvertedResidualShape(s), "");
  InvertedResidualShape bad = s;
  bad.stride = 3;
  EXPECT_NE(checkInvertedResidualShape(bad).find("stride 3"),
            std::string::npos);
  bad = s;
  bad.oh = 9;
  EXPECT_NE(checkInvertedResidualShape(bad), "");
  bad = s;
  bad.p = 0;
  EXPECT_NE(checkInvertedResidualShape(bad), "");
}

} // namespace
} // namespace strata::kernels::test
