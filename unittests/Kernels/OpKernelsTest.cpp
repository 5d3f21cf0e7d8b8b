//===- OpKernelsTest.cpp - elementwise, pooling, softmax, layer norm ------===//
//
// Each kernel of strata/Kernels/OpKernels.h on every ISA path this CPU runs
// against a double reference, on odd sizes (vector tails), broadcasts,
// pads, strides, dilations and ceil mode, split into several ranges; and the
// runtime kernel table's checks.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include "CpuKernels.h"
#include "RuntimeCheckUtil.h"
#include "strata/Kernels/Deconv.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Kernels/OpKernels.h"

#include <limits>

using namespace strata::kernels;
using namespace strata::kernels::test;
using strata::runtime::hal::BufferInfo;
using strata::runtime::hal::findCpuKernel;
using strata::kernels::testing::bytes;
using strata::kernels::testing::expectRejects;

namespace {

double refBinary(BinaryOp op, double a, double b) {
  switch (op) {
  case BinaryOp::Add:
    return a + b;
  case BinaryOp::Sub:
    return a - b;
  case BinaryOp::Mul:
    return a * b;
  case BinaryOp::Div:
    return a / b;
  case BinaryOp::Max:
    return std::max(a, b);
  case BinaryOp::Min:
    return std::min(a, b);
  }
  return 0;
}

TEST(OpKernels, BinaryBroadcastsAndTails) {
  // out [3, 5, 37]: a [3, 5, 37] or [37] or [3, 1, 1]; b [5, 1] or [3, 5, 37].
  struct Case {
    std::vector<int64_t> a, b; // shapes, right-aligned to out
  };
  std::vector<int64_t> out = {3, 5, 37};
  const Case cases[] = {{{3, 5, 37}, {3, 5, 37}},
                        {{3, 5, 37}, {5, 1}},
                        {{37}, {3, 5, 37}},
                        {{3, 1, 1}, {3, 5, 37}},
                        {{1}, {3, 5, 37}}};
  unsigned seed = 1;
  for (const Case &c : cases) {
    auto stridesOf = [&](const std::vector<int64_t> &shape, int64_t *st) {
      int64_t acc = 1;
      for (int64_t i = 0; i < 3; ++i) {
        int64_t d = 2 - i, sd = int64_t(shape.size()) - 1 - i;
        int64_t size = sd >= 0 ? shape[size_t(sd)] : 1;
        st[d] = size == 1 && out[size_t(d)] != 1 ? 0 : acc;
        acc *= size;
      }
      return acc;
    };
    BinaryShape s;
    s.rank = 3;
    for (int d = 0; d < 3; ++d)
      s.dims[d] = out[size_t(d)];
    int64_t an = stridesOf(c.a, s.aStride), bn = stridesOf(c.b, s.bStride);
    int64_t ae, be;
    ASSERT_EQ(checkBinaryShape(s, ae, be), "");
    EXPECT_EQ(ae, an);
    EXPECT_EQ(be, bn);
    std::vector<float> a = randomVector(size_t(an), seed++);
    std::vector<float> b = randomVector(size_t(bn), seed++);
    for (float &v : b)
      v += v < 0 ? -0.5f : 0.5f; // no division by ~0
    for (int64_t op = 0; op < kBinaryOpCount; ++op)
      for (Isa isa : supportedIsas())
        for (PostClamp clamp : {PostClamp::None, PostClamp::Clip}) {
          std::vector<double> want(3 * 5 * 37);
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 5; ++j)
              for (int64_t k = 0; k < 37; ++k) {
                double v =
                    refBinary(BinaryOp(op),
                              a[size_t(i * s.aStride[0] + j * s.aStride[1] +
                                       k * s.aStride[2])],
                              b[size_t(i * s.bStride[0] + j * s.bStride[1] +
                                       k * s.bStride[2])]);
                if (clamp == PostClamp::Clip)
                  v = std::min(std::max(v, 0.0), 0.5);
                want[size_t((i * 5 + j) * 37 + k)] = v;
              }
          std::vector<float> got(want.size(), 9.0f);
          // Rows split in three ranges.
          for (auto [r0, r1] :
               {std::pair<int64_t, int64_t>{0, 4}, {4, 11}, {11, 15}})
            binaryF32(BinaryOp(op), s, a.data(), b.data(), got.data(), clamp,
                      0.5f, r0, r1, isa);
          expectClose(got, want, 1e-6,
                      "binary op " + std::to_string(op) + " isa " +
                          isaName(isa));
        }
  }
}

TEST(OpKernels, BinaryMaxMinPropagateNaN) {
  BinaryShape s;
  s.rank = 1;
  s.dims[0] = 20;
  s.aStride[0] = s.bStride[0] = 1;
  std::vector<float> a(20, 1.0f), b(20, 2.0f), out(20);
  a[3] = b[17] = std::numeric_limits<float>::quiet_NaN();
  for (Isa isa : supportedIsas())
    for (BinaryOp op : {BinaryOp::Max, BinaryOp::Min}) {
      binaryF32(op, s, a.data(), b.data(), out.data(), PostClamp::Relu, 0, 0, 1,
                isa);
      EXPECT_TRUE(std::isnan(out[3]) && std::isnan(out[17])) << isaName(isa);
      EXPECT_EQ(out[0], op == BinaryOp::Max ? 2.0f : 1.0f);
    }
}

TEST(OpKernels, BinaryLongRowsSplitIntoChunks) {
  // One row of 10000 (a scalar b): three units of at most kBinaryChunk,
  // computed one by one as three workgroups would.
  BinaryShape s;
  s.rank = 1;
  s.dims[0] = 10000;
  s.aStride[0] = 1;
  ASSERT_EQ(s.units(), 3);
  std::vector<float> a = randomVector(10000, 5), b = {0.25f};
  for (Isa isa : supportedIsas()) {
    std::vector<float> out(10000, 9.0f);
    for (int64_t u = 0; u < s.units(); ++u)
      binaryF32(BinaryOp::Mul, s, a.data(), b.data(), out.data(),
                PostClamp::None, 0, u, u + 1, isa);
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(out[i], a[i] * 0.25f) << i << " " << isaName(isa);
  }
}

TEST(OpKernels, SoftmaxAndLayerNormRows) {
  for (int64_t cols : {1, 15, 16, 17, 100, 768}) {
    int64_t rows = 5;
    std::vector<float> x = randomVector(size_t(rows * cols), unsigned(cols));
    for (float &v : x)
      v *= 8.0f; // exp over a wide range
    std::vector<float> scale = randomVector(size_t(cols), 3),
                       bias = randomVector(size_t(cols), 4);
    std::vector<double> sm(x.size()), ln(x.size());
    for (int64_t r = 0; r < rows; ++r) {
      const float *xr = x.data() + r * cols;
      double m = -1e30, sum = 0, mean = 0, var = 0;
      for (int64_t i = 0; i < cols; ++i)
        m = std::max(m, double(xr[i])), mean += xr[i];
      mean /= double(cols);
      for (int64_t i = 0; i < cols; ++i)
        sum += std::exp(double(xr[i]) - m),
            var += (xr[i] - mean) * (xr[i] - mean);
      var /= double(cols);
      for (int64_t i = 0; i < cols; ++i) {
        sm[size_t(r * cols + i)] = std::exp(double(xr[i]) - m) / sum;
        ln[size_t(r * cols + i)] =
            (xr[i] - mean) / std::sqrt(var + 1e-5) * scale[size_t(i)] +
            bias[size_t(i)];
      }
    }
    for (Isa isa : supportedIsas()) {
      std::vector<float> y(x.size(), 7.0f), z(x.size(), 7.0f);
      softmaxRows(x.data(), y.data(), cols, 0, 2, isa);
      softmaxRows(x.data(), y.data(), cols, 2, rows, isa);
      expectClose(y, sm, 1e-6,
                  "softmax cols " + std::to_string(cols) + " " + isaName(isa));
      layerNormRows(x.data(), scale.data(), bias.data(), z.data(), cols, 1e-5f,
                    0, rows, isa);
      expectClose(z, ln, 2e-5,
                  "layernorm cols " + std::to_string(cols) + " " +
                      isaName(isa));
      // Without scale and bias: the normalized values.
      layerNormRows(x.data(), nullptr, nullptr, z.data(), cols, 1e-5f, 0, 1,
                    isa);
      for (int64_t i = 0; i < cols; ++i)
        EXPECT_NEAR(z[size_t(i)],
                    (ln[size_t(i)] - bias[size_t(i)]) / scale[size_t(i)], 2e-3)
            << cols << " " << isaName(isa);
    }
  }
}

/// The interpreter's pooling semantics in double.
std::vector<double> refPool(const Pool2dShape &s, bool isMax, bool cip,
                            const std::vector<float> &x) {
  std::vector<double> y(size_t(s.n * s.c * s.oh * s.ow));
  for (int64_t p = 0; p < s.n * s.c; ++p)
    for (int64_t oy = 0; oy < s.oh; ++oy)
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        double acc = isMax ? -INFINITY : 0;
        int64_t count = 0, padCount = 0;
        for (int64_t ky = 0; ky < s.kh; ++ky)
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            int64_t iy = oy * s.sh + ky * s.dh - s.pt;
            int64_t ix = ox * s.sw + kx * s.dw - s.pl;
            bool inside = iy >= 0 && iy < s.h && ix >= 0 && ix < s.w;
            padCount += iy >= -s.pt && iy < s.h + s.pb && ix >= -s.pl &&
                        ix < s.w + s.pr;
            if (!inside)
              continue;
            double v = x[size_t((p * s.h + iy) * s.w + ix)];
            ++count;
            acc = isMax ? std::max(acc, v) : acc + v;
          }
        if (!isMax) {
          int64_t div = cip ? padCount : count;
          acc = div ? acc / double(div) : 0;
        }
        y[size_t((p * s.oh + oy) * s.ow + ox)] = acc;
      }
  return y;
}

TEST(OpKernels, PoolingGeometries) {
  struct Case {
    int64_t h, w, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;
    bool ceil;
  };
  const Case cases[] = {
      {112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false}, // ResNet stem
      {13, 17, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, true},    // ceil mode
      {9, 11, 2, 3, 1, 1, 1, 0, 0, 2, 1, 1, false},    // odd pads
      {15, 14, 3, 2, 3, 3, 1, 1, 1, 1, 2, 2, true},    // stride 3, dilated
      {7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 1, 1, false},     // global window
      // 3-wide stride-2 rows in registers: chunk tails, a chunk past the
      // right edge, windows cut by ceil mode, other heights and strides.
      {35, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false},
      {40, 70, 3, 3, 2, 2, 0, 1, 1, 0, 1, 1, true},
      {9, 67, 2, 3, 3, 2, 1, 0, 1, 1, 2, 1, true},
      {5, 3, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, false},
  };
  unsigned seed = 20;
  for (const Case &c : cases) {
    Pool2dShape s;
    s.n = 2, s.c = 3, s.h = c.h, s.w = c.w, s.kh = c.kh, s.kw = c.kw;
    s.sh = c.sh, s.sw = c.sw, s.pt = c.pt, s.pl = c.pl, s.pb = c.pb,
    s.pr = c.pr, s.dh = c.dh, s.dw = c.dw;
    auto outSize = [&](int64_t in, int64_t p0, int64_t p1, int64_t k,
                       int64_t st, int64_t d, int64_t pad0) {
      int64_t span = d * (k - 1) + 1, padded = in + p0 + p1;
      int64_t o =
          c.ceil ? (padded - span + st - 1) / st + 1 : (padded - span) / st + 1;
      if (c.ceil && (o - 1) * st >= in + pad0)
        --o;
      return o;
    };
    s.oh = outSize(s.h, s.pt, s.pb, s.kh, s.sh, s.dh, s.pt);
    s.ow = outSize(s.w, s.pl, s.pr, s.kw, s.sw, s.dw, s.pl);
    ASSERT_EQ(checkPool2dShape(s), "") << c.h << "x" << c.w;
    std::vector<float> x = randomVector(size_t(s.n * s.c * s.h * s.w), seed++);
    for (Isa isa : supportedIsas()) {
      std::vector<float> y(size_t(s.n * s.c * s.oh * s.ow), 5.0f);
      ASSERT_TRUE(
          maxPool2d(s, x.data(), y.data(), PostClamp::None, 0, 0, 1, isa));
      ASSERT_TRUE(
          maxPool2d(s, x.data(), y.data(), PostClamp::None, 0, 1, 6, isa));
      expectClose(y, refPool(s, true, false, x), 0,
                  "max " + std::to_string(c.h) + " " + isaName(isa));
      for (bool cip : {false, true}) {
        ASSERT_TRUE(avgPool2d(s, cip, x.data(), y.data(), PostClamp::None, 0, 0,
                              6, isa));
        expectClose(y, refPool(s, false, cip, x), 1e-6,
                    "avg " + std::to_string(c.h) + " cip " +
                        std::to_string(cip) + " " + isaName(isa));
      }
    }
  }
}

TEST(OpKernels, GlobalAvgPoolAndClamp) {
  for (int64_t hw : {1, 15, 49, 3136}) {
    std::vector<float> x = randomVector(size_t(4 * hw), unsigned(hw));
    std::vector<double> want(4);
    for (int64_t p = 0; p < 4; ++p) {
      double s = 0;
      for (int64_t i = 0; i < hw; ++i)
        s += x[size_t(p * hw + i)];
      want[size_t(p)] = std::min(std::max(s / double(hw), 0.0), 0.01);
    }
    for (Isa isa : supportedIsas()) {
      std::vector<float> y(4, 3.0f);
      globalAvgPool(x.data(), y.data(), hw, PostClamp::Clip, 0.01f, 0, 4, isa);
      expectClose(y, want, 1e-6, "gap " + std::to_string(hw));
    }
  }
}

TEST(OpKernels, RuntimeChecks) {
  std::string error;
  // add_bcast_f32: out [4, 6], a [4, 6], b [6].
  std::vector<int64_t> bp = {24, 2, 4, 6, 0, 0, 0, 0, 6, 1, 0,
                             0,  0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  std::vector<BufferInfo> bb = {bytes(96), bytes(24), bytes(96)};
  const auto *add = findCpuKernel(kabi::kBinaryKernels[0]);
  ASSERT_NE(add, nullptr);
  ASSERT_TRUE(add->check(bb, bp, error)) << error;
  auto with = [](std::vector<int64_t> p, size_t i, int64_t v) {
    p[i] = v;
    return p;
  };
  expectRejects("add_bcast_f32", bb, with(bp, 0, 25), "count is 25");
  expectRejects("add_bcast_f32", bb, with(bp, 1, 7), "rank is 7");
  expectRejects("add_bcast_f32", bb, with(bp, 4, 2), "past the rank");
  expectRejects("add_bcast_f32", bb, with(bp, 9, 2), "binding 0 (a)");
  expectRejects("add_bcast_f32", bb, with(bp, 14, 1), "binding 1 (b)");
  expectRejects("add_bcast_f32", bb, with(bp, 9, -1), "negative");
  expectRejects("add_bcast_f32", bb, with(bp, 20, 3), "clamp is 3");
  expectRejects("add_bcast_f32", bb, with(with(bp, 2, INT64_MAX / 2), 0, 0),
                "overflows");
  expectRejects("div_bcast_f32", {bytes(96), bytes(24), bytes(95)}, bp,
                "binding 2 (out)");
  // softmax / layer norm.
  expectRejects(kabi::kSoftmax, {bytes(40), bytes(40)}, {3, 4}, "binding 0");
  expectRejects(kabi::kSoftmax, {bytes(48), bytes(48)}, {-1, 4}, "negative");
  std::vector<int64_t> lp = {3, 4, 1, 1, kabi::floatParam(1e-5f)};
  std::vector<BufferInfo> lb = {bytes(48), bytes(16), bytes(16), bytes(48)};
  ASSERT_TRUE(findCpuKernel(kabi::kLayerNorm)->check(lb, lp, error)) << error;
  expectRejects(kabi::kLayerNorm, {bytes(48), bytes(12), bytes(16), bytes(48)},
                lp, "binding 1 (scale)");
  expectRejects(kabi::kLayerNorm, lb, with(lp, 3, 2), "has_bias");
  expectRejects(kabi::kLayerNorm, lb, with(lp, 4, kabi::floatParam(-1.0f)),
                "epsilon");
  // Pooling: 1x2x8x8, 3x3 stride 2 pad 1 -> 4x4 (5x5 is not either mode).
  std::vector<int64_t> pp = {1, 2, 8, 8, 4, 4, 3, 3, 2,
                             2, 1, 1, 1, 1, 1, 1, 0, 0};
  std::vector<BufferInfo> pb = {bytes(2 * 64 * 4), bytes(2 * 16 * 4)};
  ASSERT_TRUE(findCpuKernel(kabi::kMaxPool)->check(pb, pp, error)) << error;
  expectRejects(kabi::kMaxPool, pb, with(pp, 4, 6), "does not follow");
  expectRejects(kabi::kMaxPool, pb, with(pp, 8, 0), "SH is 0");
  expectRejects(kabi::kMaxPool, pb, with(pp, 10, -1), "PT is -1");
  expectRejects(kabi::kMaxPool, {bytes(100), bytes(128)}, pp, "binding 0");
  expectRejects(kabi::kMaxPool, pb, with(pp, 16, 5), "clamp");
  std::vector<int64_t> ap = pp;
  ap.insert(ap.begin() + 16, 2);
  expectRejects(kabi::kAvgPool, pb, ap, "count_include_pad");
  expectRejects(kabi::kGlobalAvgPool, {bytes(64), bytes(4)}, {2, 8, 0, 0},
                "binding 1 (output)");
}

} // namespace

namespace {

TEST(OpKernels, DeconvGeometriesAndSplits) {
  struct Case {
    int64_t c, h, w, o, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, g, oph, opw;
  };
  const Case cases[] = {
      {24, 10, 12, 24, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0, 0}, // DB head
      {5, 7, 6, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // out pad
      {4, 5, 9, 6, 3, 2, 1, 3, 2, 0, 1, 1, 2, 1, 2, 0, 2},     // dil, group
      {3, 4, 4, 17, 4, 4, 3, 3, 0, 2, 1, 0, 1, 1, 1, 2, 0},    // k > s
  };
  unsigned seed = 80;
  for (const Case &c : cases) {
    Conv2dShape s;
    s.n = 2, s.c = c.c, s.h = c.h, s.w = c.w, s.o = c.o, s.kh = c.kh,
    s.kw = c.kw, s.sh = c.sh, s.sw = c.sw, s.pt = c.pt, s.pl = c.pl,
    s.pb = c.pb, s.pr = c.pr, s.dh = c.dh, s.dw = c.dw, s.g = c.g;
    s.oh = (s.h - 1) * s.sh + (s.kh - 1) * s.dh + 1 - s.pt - s.pb + c.oph;
    s.ow = (s.w - 1) * s.sw + (s.kw - 1) * s.dw + 1 - s.pl - s.pr + c.opw;
    ASSERT_EQ(checkDeconv2dShape(s), "") << c.c;
    int64_t cg = s.c / s.g, og = s.o / s.g;
    std::vector<float> x = randomVector(size_t(s.n * s.c * s.h * s.w), seed);
    std::vector<float> f =
        randomVector(size_t(s.c * og * s.kh * s.kw), seed + 1);
    std::vector<float> bias = randomVector(size_t(s.o), seed + 2);
    seed += 3;
    std::vector<double> want(size_t(s.n * s.o * s.oh * s.ow));
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t o = 0; o < s.o; ++o)
        for (int64_t i = 0; i < s.oh * s.ow; ++i)
          want[size_t((n * s.o + o) * s.oh * s.ow + i)] = bias[size_t(o)];
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t ci = 0; ci < s.c; ++ci)
        for (int64_t iy = 0; iy < s.h; ++iy)
          for (int64_t ix = 0; ix < s.w; ++ix)
            for (int64_t o = 0; o < og; ++o)
              for (int64_t ky = 0; ky < s.kh; ++ky)
                for (int64_t kx = 0; kx < s.kw; ++kx) {
                  int64_t oy = iy * s.sh + ky * s.dh - s.pt;
                  int64_t ox = ix * s.sw + kx * s.dw - s.pl;
                  if (oy < 0 || oy >= s.oh || ox < 0 || ox >= s.ow)
                    continue;
                  int64_t oc = ci / cg * og + o;
                  want[size_t(((n * s.o + oc) * s.oh + oy) * s.ow + ox)] +=
                      double(
                          x[size_t(((n * s.c + ci) * s.h + iy) * s.w + ix)]) *
                      double(
                          f[size_t(((ci * og + o) * s.kh + ky) * s.kw + kx)]);
                }
    for (double &v : want)
      v = v > 0 ? v : 0;
    for (Isa isa : supportedIsas())
      for (int64_t wg : {1, 3, 8}) {
        std::vector<float> y(want.size(), 7.0f);
        int64_t units = deconv2dUnits(s, wg);
        for (int64_t u = 0; u < units; ++u)
          deconv2dGemm(s, x.data(), f.data(), bias.data(), Activation::Relu, 0,
                       0, y.data(), wg, u, u + 1, isa);
        expectClose(y, want, 2e-6 * double(cg * s.kh * s.kw + 8),
                    "deconv c" + std::to_string(c.c) + " wg" +
                        std::to_string(wg) + " " + isaName(isa));
      }
  }
  Conv2dShape bad;
  bad.c = 2, bad.o = 2, bad.h = bad.w = 4, bad.kh = bad.kw = 2;
  bad.sh = bad.sw = 2, bad.oh = bad.ow = 10;
  EXPECT_NE(checkDeconv2dShape(bad).find("does not follow"), std::string::npos);
  bad.oh = bad.ow = 8;
  bad.g = 3;
  EXPECT_NE(checkDeconv2dShape(bad).find("does not divide"), std::string::npos);
}

} // namespace
