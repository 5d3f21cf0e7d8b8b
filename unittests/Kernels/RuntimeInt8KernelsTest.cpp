//===- RuntimeInt8KernelsTest.cpp - the cpu driver's int8 kernels ---------===//
//
// The int8 kernel-table entries: a convolution with params as the compiler
// writes them, split over workgroups, against a scalar int64 reference;
// and the rejections of `check` (each names the param or binding).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "strata/Kernels/Int8Add.h"
#include "strata/Kernels/Int8Gemm.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Support/IntegerRequant.h"

#include <random>

#include "gtest/gtest.h"

using namespace strata::kernels;
using strata::runtime::hal::BufferInfo;
using strata::runtime::hal::CpuKernel;
using strata::runtime::hal::findCpuKernel;

namespace {

BufferInfo bytes(uint64_t n) {
  BufferInfo b;
  b.size = n;
  return b;
}

/// conv2d_im2col_gemm_i8 params: geometry, weight_packed, epilogue.
std::vector<int64_t> convParams(const Conv2dShape &s,
                                std::vector<int64_t> epilogue) {
  std::vector<int64_t> p = {s.n,  s.c,  s.h,  s.w,  s.oh, s.ow, s.o,
                            s.kh, s.kw, s.sh, s.sw, s.pt, s.pl, s.pb,
                            s.pr, s.dh, s.dw, s.g,  1};
  p.insert(p.end(), epilogue.begin(), epilogue.end());
  return p;
}

Conv2dShape testShape() {
  Conv2dShape s;
  s.n = 2, s.c = 6, s.h = 9, s.w = 10, s.o = 8, s.kh = 3, s.kw = 3;
  s.sh = 2, s.sw = 1, s.pt = 1, s.pl = 1, s.pb = 1, s.pr = 1, s.g = 2;
  s.oh = 5, s.ow = 10;
  return s;
}

/// Runs the im2col int8 conv kernel with `rounding` (0 MultiplierShift, 1
/// TosaSingleRound, 2 TFLiteHalfUp, whose Q31 shifts are the others' minus
/// 31) against a scalar reference built on strata::intq.
void convMatchesReference(int64_t rounding) {
  const CpuKernel *k = findCpuKernel(kabi::kConvIm2colI8);
  ASSERT_NE(k, nullptr);
  Conv2dShape s = testShape();
  std::mt19937 gen(5);
  std::vector<int8_t> x(size_t(s.n * s.c * s.h * s.w)),
      w(size_t(s.o * s.gemmK()));
  for (int8_t &v : x)
    v = int8_t(int(gen() % 256) - 128);
  for (int8_t &v : w)
    v = int8_t(int(gen() % 255) - 127);
  std::vector<int32_t> bias(size_t(s.o));
  for (int32_t &b : bias)
    b = int32_t(gen() % 20001) - 10000;
  std::vector<int64_t> mult(size_t(s.o)), shift(size_t(s.o));
  for (int64_t c = 0; c < s.o; ++c) {
    mult[size_t(c)] = (int64_t(1) << 30) + int64_t(gen() % (1u << 30));
    shift[size_t(c)] = 36 + c % 4 - (rounding == 2 ? 31 : 0);
  }
  int64_t zp = -7, outZp = 5, qmin = -128, qmax = 100;
  Int8PackedLayout l = int8PackedLayout(Int8WeightKind::ConvFilter, s, 0, 0);
  std::vector<uint8_t> storage(l.totalBytes + 64);
  uint8_t *blob = storage.data() + (64 - uintptr_t(storage.data()) % 64) % 64;
  int8PackWeight(Int8WeightKind::ConvFilter, s, 0, 0, false, w.data(),
                 mult.data(), shift.data(), s.o, blob);
  std::vector<int8_t> out(size_t(s.n * s.o * s.oh * s.ow), 0);
  std::vector<int64_t> params =
      convParams(s, {1, 0, zp, 1, 1, outZp, qmin, qmax, rounding});
  ASSERT_EQ(params.size(), k->paramCount);
  std::vector<BufferInfo> infos = {bytes(x.size()), bytes(l.totalBytes),
                                   bytes(bias.size() * 4), bytes(out.size())};
  std::string error;
  ASSERT_TRUE(k->check(infos, params, error)) << error;
  std::vector<void *> bindings = {x.data(), blob, bias.data(), out.data()};
  for (int64_t id = 0; id < 3; ++id)
    ASSERT_EQ(k->fn(bindings.data(), params.data(), id, 3), 0);
  int64_t og = s.o / s.g, cg = s.c / s.g;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          int64_t acc = bias[size_t(o)];
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                int64_t iy = oy * s.sh - s.pt + ky, ix = ox * s.sw - s.pl + kx;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                  continue;
                int64_t c = o / og * cg + ci;
                acc += (x[size_t(((n * s.c + c) * s.h + iy) * s.w + ix)] - zp) *
                       w[size_t(((o * cg + ci) * s.kh + ky) * s.kw + kx)];
              }
          acc = std::max<int64_t>(acc, 0);
          int64_t mo = mult[size_t(o)], so = shift[size_t(o)];
          int64_t want =
              rounding == 2
                  ? strata::intq::requantTFLiteHalfUp(acc, mo, so, outZp,
                                                      qmin, qmax)
              : rounding == 1
                  ? strata::intq::requantTosa(acc, mo, so, /*doubleRound=*/false,
                                              outZp, qmin, qmax)
                  : strata::intq::requantMultiplierShift(acc, mo, so, outZp,
                                                         qmin, qmax);
          ASSERT_EQ(out[size_t(((n * s.o + o) * s.oh + oy) * s.ow + ox)], want)
              << "at n=" << n << " o=" << o << " (" << oy << ", " << ox << ")";
        }
}

TEST(RuntimeInt8Kernels, ConvMatchesReference) { convMatchesReference(0); }

TEST(RuntimeInt8Kernels, ConvMatchesReferenceHalfUp) {
  convMatchesReference(1);
}

TEST(RuntimeInt8Kernels, ConvMatchesReferenceTFLiteHalfUp) {
  convMatchesReference(2);
}

TEST(RuntimeInt8Kernels, CheckRejects) {
  const CpuKernel *k = findCpuKernel(kabi::kConvIm2colI8);
  ASSERT_NE(k, nullptr);
  Conv2dShape s = testShape();
  Int8PackedLayout l = int8PackedLayout(Int8WeightKind::ConvFilter, s, 0, 0);
  std::vector<BufferInfo> infos = {
      bytes(uint64_t(s.n * s.c * s.h * s.w)), bytes(l.totalBytes),
      bytes(uint64_t(s.o * 4)), bytes(uint64_t(s.n * s.o * s.oh * s.ow))};
  std::vector<int64_t> good = convParams(s, {1, 0, 0, 0, 1, 0, -128, 127, 0});
  std::string error;
  ASSERT_TRUE(k->check(infos, good, error)) << error;
  auto rejects = [&](std::vector<int64_t> p, std::vector<BufferInfo> b,
                     const std::string &what) {
    std::string why;
    EXPECT_FALSE(k->check(b, p, why)) << what;
    EXPECT_NE(why.find(what), std::string::npos) << why;
  };
  auto with = [&](size_t i, int64_t v) {
    std::vector<int64_t> p = good;
    p[i] = v;
    return p;
  };
  rejects(with(18, 0), infos, "weight_packed");
  rejects(with(18, 3), infos, "weight_packed");
  // 2 (a tap-major filter) only for shapes that take one (two groups here).
  rejects(with(18, 2), infos, "filter_packed is 2");
  rejects(with(19, 2), infos, "has_bias");
  rejects(with(21, 200), infos, "in_zp");
  rejects(with(23, 3), infos, "out_kind");
  std::vector<int64_t> unordered = with(25, 120); // qmin > qmax
  unordered[26] = 100;
  rejects(unordered, infos, "qmin, qmax");
  rejects(with(26, 300), infos, "qmin, qmax"); // beyond int8
  rejects(with(27, 3), infos, "rounding");
  rejects(with(17, 4), infos, "G = 4");
  std::vector<BufferInfo> small = infos;
  small[1] = bytes(l.totalBytes - 1);
  rejects(good, small, "packed weight");
  small = infos;
  small[3] = bytes(10);
  rejects(good, small, "output");
  small = infos;
  small[2] = bytes(4);
  rejects(good, small, "bias");
  // The matmul takes only a packed, unbatched weight.
  const CpuKernel *mm = findCpuKernel(kabi::kMatmulGemmI8);
  ASSERT_NE(mm, nullptr);
  std::vector<int64_t> mp = {1, 4, 5, 6, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(mp.size(), mm->paramCount);
  std::vector<BufferInfo> mb = {bytes(24), bytes(1 << 16), bytes(4), bytes(80)};
  EXPECT_FALSE(mm->check(mb, mp, error));
  EXPECT_NE(error.find("b_batched"), std::string::npos) << error;
  mp[6] = 0;
  EXPECT_TRUE(mm->check(mb, mp, error)) << error;
}

/// add_requant_i8: the params as the compiler writes them, split over
/// workgroups (chunks of 64 elements), in place over input a, against
/// int8AddValue; and every rejection of `check`.
TEST(RuntimeInt8Kernels, AddMatchesAndRejects) {
  const CpuKernel *k = findCpuKernel(kabi::kAddRequantI8);
  ASSERT_NE(k, nullptr);
  int64_t n = 1000;
  std::vector<int64_t> good = {n,   0,          -3,   1 << 30, 12, 1,
                               200, 1500000000, 11,   1,       1,  2000000000,
                               45,  -128,       -128, 127};
  ASSERT_EQ(good.size(), k->paramCount);
  std::vector<BufferInfo> infos = {bytes(uint64_t(n)), bytes(uint64_t(n)),
                                   bytes(uint64_t(n))};
  std::string error;
  ASSERT_TRUE(k->check(infos, good, error)) << error;
  std::mt19937 gen(11);
  std::vector<uint8_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    a[size_t(i)] = uint8_t(gen());
    b[size_t(i)] = uint8_t(gen());
  }
  Int8AddParams ap;
  ap.a = {false, -3, 1 << 30, 12};
  ap.b = {true, 200, 1500000000, 11};
  ap.relu = true;
  ap.out = Int8Output::Int8;
  ap.multiplier = 2000000000;
  ap.shift = 45;
  ap.zp = -128;
  std::vector<int64_t> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    want[size_t(i)] =
        int8AddValue(ap, int8_t(a[size_t(i)]), int32_t(b[size_t(i)]));
  std::vector<void *> bindings = {a.data(), b.data(), a.data()};
  for (int64_t id = 0; id < 3; ++id)
    ASSERT_EQ(k->fn(bindings.data(), good.data(), id, 3), 0);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(int8_t(a[size_t(i)]), want[size_t(i)]) << "at " << i;

  auto rejects = [&](std::vector<int64_t> p, std::vector<BufferInfo> bi,
                     const std::string &what) {
    std::string why;
    EXPECT_FALSE(k->check(bi, p, why)) << what;
    EXPECT_NE(why.find(what), std::string::npos) << why;
  };
  auto with = [&](size_t i, int64_t v) {
    std::vector<int64_t> p = good;
    p[i] = v;
    return p;
  };
  rejects(with(0, -1), infos, "count");
  rejects(with(1, 2), infos, "a_unsigned");
  rejects(with(2, 128), infos, "a_zp");
  rejects(with(6, -1), infos, "b_zp");
  rejects(with(3, int64_t(1) << 31), infos, "a_multiplier");
  rejects(with(8, 64), infos, "b_shift");
  rejects(with(9, 2), infos, "relu");
  rejects(with(10, 0), infos, "out_kind");
  rejects(with(12, -1), infos, "out_shift");
  rejects(with(13, int64_t(1) << 40), infos, "out_zp");
  rejects(with(15, 128), infos, "qmin, qmax");
  std::vector<int64_t> unordered = with(14, 100); // qmin > qmax
  unordered[15] = 50;
  rejects(unordered, infos, "qmin, qmax");
  for (size_t i = 0; i < 3; ++i) {
    std::vector<BufferInfo> small = infos;
    small[i] = bytes(uint64_t(n - 1));
    rejects(good, small, i == 0 ? "a" : i == 1 ? "b" : "out");
  }
}

} // namespace
