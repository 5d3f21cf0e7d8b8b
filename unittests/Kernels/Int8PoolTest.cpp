//===- Int8PoolTest.cpp - int8 / uint8 max pooling against a reference ----===//
//
// kernels::int8MaxPool2d on random int8 and uint8 planes (the range ends
// included) against a scalar max over each window's input elements: window
// sizes 1 to 5, strides 1 to 3, pads up to the window size - 1, floor and
// ceil mode, odd and wide rows (vector tails), split over two plane
// ranges; the runtime entries' results and `check` rejections.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Int8Pool.h"
#include "CpuKernels.h"
#include "RuntimeCheckUtil.h"
#include "strata/Kernels/KernelAbi.h"

#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"

using namespace strata::kernels;
using strata::runtime::hal::BufferInfo;
using strata::runtime::hal::CpuKernel;
using strata::runtime::hal::findCpuKernel;

namespace {

Pool2dShape poolShape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                      int64_t s, int64_t p, bool ceil) {
  Pool2dShape sh;
  sh.n = n, sh.c = c, sh.h = h, sh.w = w, sh.kh = sh.kw = k;
  sh.sh = sh.sw = s, sh.pt = sh.pl = sh.pb = sh.pr = p;
  auto out = [&](int64_t in) {
    int64_t span = in + 2 * p - k;
    return (ceil ? (span + s - 1) / s : span / s) + 1;
  };
  sh.oh = out(h), sh.ow = out(w);
  return sh;
}

/// The max of each window's input elements (as the interpreter: pads
/// excluded).
std::vector<int> reference(const Pool2dShape &s, bool isUnsigned,
                           const std::vector<uint8_t> &x) {
  std::vector<int> y(size_t(s.n * s.c * s.oh * s.ow));
  for (int64_t pl = 0; pl < s.n * s.c; ++pl)
    for (int64_t oy = 0; oy < s.oh; ++oy)
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        int best = -1000;
        for (int64_t ky = 0; ky < s.kh; ++ky)
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            int64_t iy = oy * s.sh - s.pt + ky, ix = ox * s.sw - s.pl + kx;
            if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
              continue;
            uint8_t b = x[size_t((pl * s.h + iy) * s.w + ix)];
            best = std::max(best, isUnsigned ? int(b) : int(int8_t(b)));
          }
        y[size_t((pl * s.oh + oy) * s.ow + ox)] = best;
      }
  return y;
}

TEST(Int8Pool, MaxMatchesReference) {
  std::mt19937 gen(5);
  unsigned cases = 0;
  for (int64_t k : {1, 2, 3, 5})
    for (int64_t s : {1, 2, 3})
      for (int64_t p = 0; p < k && p <= 2; ++p)
        for (bool ceil : {false, true})
          for (auto [h, w] :
               {std::pair<int64_t, int64_t>{7, 9}, {12, 47}, {5, 70}}) {
            Pool2dShape sh = poolShape(2, 3, h, w, k, s, p, ceil);
            if (!checkInt8MaxPool2dShape(sh).empty())
              continue; // a ceil-mode window starting past the input
            for (bool isUnsigned : {false, true}) {
              std::vector<uint8_t> x(size_t(sh.n * sh.c * h * w));
              for (uint8_t &b : x)
                b = uint8_t(gen());
              // The range ends.
              x[0] = 0x80;
              x[x.size() - 1] = 0x7f;
              x[x.size() / 2] = 0xff;
              x[x.size() / 3] = 0;
              std::vector<int> want = reference(sh, isUnsigned, x);
              std::vector<uint8_t> y(want.size(), 0xcd);
              int64_t planes = sh.n * sh.c;
              int8MaxPool2d(sh, isUnsigned, x.data(), y.data(), 0, planes / 2);
              int8MaxPool2d(sh, isUnsigned, x.data(), y.data(), planes / 2,
                            planes);
              for (size_t i = 0; i < want.size(); ++i)
                ASSERT_EQ(isUnsigned ? int(y[i]) : int(int8_t(y[i])), want[i])
                    << "k=" << k << " s=" << s << " p=" << p << " ceil=" << ceil
                    << " h=" << h << " w=" << w << " unsigned=" << isUnsigned
                    << " at " << i;
              ++cases;
            }
          }
  EXPECT_GT(cases, 100u);
}

using strata::kernels::testing::bytes;
using strata::kernels::testing::expectRejects;

/// The runtime entries (params as the compiler writes them: geometry,
/// clamp 0, limit 0), split over workgroups, and `check`'s rejections.
TEST(Int8Pool, RuntimeEntriesMatchAndReject) {
  Pool2dShape sh = poolShape(1, 5, 13, 21, 3, 2, 1, false);
  std::vector<int64_t> good = {sh.n,  sh.c,  sh.h,  sh.w,  sh.oh, sh.ow,
                               sh.kh, sh.kw, sh.sh, sh.sw, sh.pt, sh.pl,
                               sh.pb, sh.pr, sh.dh, sh.dw, 0,     0};
  std::mt19937 gen(9);
  std::vector<uint8_t> x(size_t(sh.c * sh.h * sh.w));
  for (uint8_t &b : x)
    b = uint8_t(gen());
  for (bool isUnsigned : {false, true}) {
    const CpuKernel *k =
        findCpuKernel(isUnsigned ? kabi::kMaxPoolU8 : kabi::kMaxPoolI8);
    ASSERT_NE(k, nullptr);
    ASSERT_EQ(good.size(), k->paramCount);
    std::vector<BufferInfo> infos = {bytes(x.size()),
                                     bytes(uint64_t(sh.c * sh.oh * sh.ow))};
    std::string error;
    ASSERT_TRUE(k->check(infos, good, error)) << error;
    std::vector<uint8_t> y(size_t(sh.c * sh.oh * sh.ow), 0xcd);
    std::vector<void *> bindings = {x.data(), y.data()};
    for (int64_t id = 0; id < 3; ++id)
      ASSERT_EQ(k->fn(bindings.data(), good.data(), id, 3), 0);
    std::vector<int> want = reference(sh, isUnsigned, x);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(isUnsigned ? int(y[i]) : int(int8_t(y[i])), want[i]) << i;

    const char *name = isUnsigned ? kabi::kMaxPoolU8 : kabi::kMaxPoolI8;
    auto rejects = [&](std::vector<int64_t> p, std::vector<BufferInfo> bi,
                       const std::string &what) {
      expectRejects(name, bi, p, what);
    };
    auto with = [&](size_t i, int64_t v) {
      std::vector<int64_t> p = good;
      p[i] = v;
      return p;
    };
    auto withAll = [&](std::vector<std::pair<size_t, int64_t>> changes) {
      std::vector<int64_t> p = good;
      for (auto [i, v] : changes)
        p[i] = v;
      return p;
    };
    // Consistent geometries the kernel does not take: dilation 2 (OH x OW
    // 6 x 10); top and left pads of 3 on a 3 x 3 window (the bottom and
    // right 0; OH x OW unchanged), whose first window is all padding.
    rejects(withAll({{14, 2}, {15, 2}, {4, 6}, {5, 10}}), infos, "DH");
    rejects(withAll({{10, 3}, {11, 3}, {12, 0}, {13, 0}}), infos, "PT");
    rejects(with(16, 1), infos, "clamp");
    rejects(with(4, 99), infos, "OH");
    rejects(good, {bytes(x.size() - 1), infos[1]}, "input");
    rejects(good, {infos[0], bytes(infos[1].size - 1)}, "output");
  }
}

} // namespace
