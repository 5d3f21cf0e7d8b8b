//===- RuntimeBf16KernelsTest.cpp - the cpu driver's bf16 conv kernels ----===//
//
// The bf16 convolution kernel-table entries: a convolution with params as
// the compiler writes them, split over workgroups, equals bf16Conv2d bit
// for bit; the depthwise entry against an f64 reference; and the
// rejections of `check` (each names the param or binding).
//
//===----------------------------------------------------------------------===//

#include "Bf16TestUtil.h"
#include "CpuKernels.h"
#include "RuntimeCheckUtil.h"
#include "strata/Kernels/Bf16Gemm.h"
#include "strata/Kernels/KernelAbi.h"

#include <cmath>
#include <cstring>
#include <random>

#include "gtest/gtest.h"

using namespace strata::kernels;
using strata::kernels::testing::randomBf16;
using strata::runtime::hal::BufferInfo;
using strata::runtime::hal::CpuKernel;
using strata::runtime::hal::findCpuKernel;
using strata::kernels::testing::bytes;

namespace {

/// Geometry, filter_packed, has_bias, relu, p0, p1, has_residual, out_bf16.
std::vector<int64_t> params(const Conv2dShape &s, int64_t packed) {
  return {s.n,    s.c,  s.h,  s.w,  s.oh, s.ow, s.o,  s.kh, s.kw,
          s.sh,   s.sw, s.pt, s.pl, s.pb, s.pr, s.dh, s.dw, s.g,
          packed, 1,    1,    0,    0,    0,    1};
}

Conv2dShape shape(int64_t c, int64_t o, int64_t g) {
  Conv2dShape s;
  s.n = 2, s.c = c, s.h = 9, s.w = 21, s.o = o, s.kh = 3, s.kw = 3;
  s.sh = 1, s.sw = 2, s.pt = 1, s.pl = 1, s.pb = 1, s.pr = 1, s.g = g;
  s.oh = 9, s.ow = 11;
  return s;
}

TEST(RuntimeBf16Kernels, ConvMatchesKernel) {
  const CpuKernel *k = findCpuKernel(kabi::kConvIm2colBf16);
  ASSERT_NE(k, nullptr);
  Conv2dShape s = shape(5, 14, 1);
  std::vector<uint16_t> x = randomBf16(size_t(s.n * s.c * s.h * s.w), 1);
  std::vector<uint16_t> w = randomBf16(size_t(s.o * s.gemmK()), 2);
  std::vector<float> bias(size_t(s.o), 0.25f);
  std::vector<uint16_t> wp(bf16PackedAElems(s.o, s.gemmK()));
  bf16PackA(w.data(), s.gemmK(), s.o, s.gemmK(), wp.data());
  size_t outCount = size_t(s.n * s.o * s.oh * s.ow);
  std::vector<uint16_t> got(outCount), want(outCount);
  std::vector<int64_t> p = params(s, 1);
  std::vector<BufferInfo> infos = {bytes(x.size() * 2), bytes(wp.size() * 2),
                                   bytes(bias.size() * 4), bytes(outCount * 2)};
  std::string error;
  ASSERT_TRUE(k->check(infos, p, error)) << error;
  void *bind[4] = {x.data(), wp.data(), bias.data(), got.data()};
  for (int64_t id = 0; id < 3; ++id)
    ASSERT_EQ(k->fn(bind, p.data(), id, 3), 0);
  Bf16ConvProblem c;
  c.s = s;
  c.x = x.data();
  c.wPacked = wp.data();
  c.bias = bias.data();
  c.y = want.data();
  c.act = Activation::Relu;
  for (int64_t img = 0; img < s.n; ++img)
    bf16Conv2d(c, img, 0, s.oh * s.ow);
  EXPECT_EQ(std::memcmp(got.data(), want.data(), outCount * 2), 0);
}

TEST(RuntimeBf16Kernels, DepthwiseMatchesReference) {
  const CpuKernel *k = findCpuKernel(kabi::kConvDepthwiseBf16);
  ASSERT_NE(k, nullptr);
  Conv2dShape s = shape(6, 12, 6); // channel multiplier 2
  std::vector<uint16_t> x = randomBf16(size_t(s.n * s.c * s.h * s.w), 3);
  std::vector<uint16_t> w = randomBf16(size_t(s.o * 9), 4);
  std::vector<float> bias(size_t(s.o), -0.125f);
  size_t outCount = size_t(s.n * s.o * s.oh * s.ow);
  std::vector<uint16_t> got(outCount);
  std::vector<int64_t> p = params(s, 0);
  std::vector<BufferInfo> infos = {bytes(x.size() * 2), bytes(w.size() * 2),
                                   bytes(bias.size() * 4), bytes(outCount * 2)};
  std::string error;
  ASSERT_TRUE(k->check(infos, p, error)) << error;
  void *bind[4] = {x.data(), w.data(), bias.data(), got.data()};
  for (int64_t id = 0; id < 2; ++id)
    ASSERT_EQ(k->fn(bind, p.data(), id, 2), 0);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          double sum = bias[size_t(o)], mag = std::fabs(sum);
          int64_t ci = o / 2;
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              int64_t iy = oy * s.sh - s.pt + ky, ix = ox * s.sw - s.pl + kx;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                continue;
              double t =
                  double(fromBf16(
                      x[size_t(((n * s.c + ci) * s.h + iy) * s.w + ix)])) *
                  fromBf16(w[size_t(o * 9 + ky * 3 + kx)]);
              sum += t;
              mag += std::fabs(t);
            }
          double want = std::max(sum, 0.0);
          double tol = 11 * std::ldexp(1.0, -24) * mag +
                       std::ldexp(1.0, -8) * std::fabs(want);
          size_t at = size_t(((n * s.o + o) * s.oh + oy) * s.ow + ox);
          ASSERT_NEAR(fromBf16(got[at]), want, tol) << at;
        }
}

TEST(RuntimeBf16Kernels, CheckRejects) {
  Conv2dShape s = shape(5, 14, 1);
  std::vector<BufferInfo> infos = {
      bytes(uint64_t(s.n * s.c * s.h * s.w * 2)),
      bytes(bf16PackedAElems(s.o, s.gemmK()) * 2), bytes(uint64_t(s.o * 4)),
      bytes(uint64_t(s.n * s.o * s.oh * s.ow * 2))};
  const CpuKernel *k = findCpuKernel(kabi::kConvIm2colBf16);
  std::vector<int64_t> good = params(s, 1);
  std::string error;
  ASSERT_TRUE(k->check(infos, good, error)) << error;
  auto rejects = [&](const CpuKernel *kernel, std::vector<int64_t> p,
                     std::vector<BufferInfo> b, const std::string &what) {
    std::string why;
    EXPECT_FALSE(kernel->check(b, p, why)) << what;
    EXPECT_NE(why.find(what), std::string::npos) << why;
  };
  auto with = [&](size_t i, int64_t v) {
    std::vector<int64_t> p = good;
    p[i] = v;
    return p;
  };
  rejects(k, with(18, 0), infos, "filter_packed");
  rejects(k, with(19, 2), infos, "has_bias");
  rejects(k, with(23, 1), infos, "has_residual");
  rejects(k, with(24, 2), infos, "out_bf16");
  rejects(k, with(17, 2), infos, "G");
  std::vector<BufferInfo> small = infos;
  small[1] = bytes(infos[1].size - 2);
  rejects(k, good, small, "packed filter");
  small = infos;
  small[3] = bytes(10);
  rejects(k, good, small, "output");
  rejects(k, with(24, 0), infos, "output"); // f32 output needs twice the bytes
  small = infos;
  small[2] = bytes(4);
  rejects(k, good, small, "bias");
  // The depthwise entry takes G = C and the plain filter.
  const CpuKernel *dw = findCpuKernel(kabi::kConvDepthwiseBf16);
  ASSERT_NE(dw, nullptr);
  rejects(dw, good, infos, "G is 1");
}

} // namespace
