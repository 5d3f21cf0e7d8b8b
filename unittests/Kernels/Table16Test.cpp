//===- Table16Test.cpp - the int16 -> int8 interpolated table -------------===//
//
// strata::intq::table16Lookup (strata/Support/IntegerTable16.h) against
// the interpolation written out here in its weighted form (entry[i] * (128
// - f) + entry[i + 1] * f, rounded half away from zero in double) on all
// 65536 inputs, hand-computed values at the edges (index 0, 511, fraction 0
// and 127, negative results, ties); the kernel (table16OnIsa) on every ISA
// path this CPU runs, odd lengths and tails, int16 and int32 (per-channel
// requantized) inputs, bit-exact against the header; the runtime's
// table16_i8 entry with params packed as the compiler packs them, split
// over workgroups, and its rejections.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Table16.h"
#include "CpuKernels.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Support/IntegerTable16.h"

#include <cmath>
#include <cstring>
#include <random>

#include "gtest/gtest.h"

using namespace strata;
using namespace strata::kernels;
using strata::runtime::hal::BufferInfo;
using strata::runtime::hal::CpuKernel;
using strata::runtime::hal::findCpuKernel;

namespace {

std::vector<int16_t> randomTable(unsigned seed, int lo = -16384,
                                 int hi = 16256) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int16_t> t(513);
  for (int16_t &e : t)
    e = static_cast<int16_t>(d(gen));
  return t;
}

/// The lookup written out independently: the weighted interpolation in
/// double, rounded half away from zero, clamped.
int weighted(const std::vector<int16_t> &t, int x, int qmin, int qmax) {
  int u = x + 32768, i = u / 128, f = u % 128;
  double v = (double(t[size_t(i)]) * (128 - f) + double(t[size_t(i + 1)]) * f) /
             16384.0;
  double r = v >= 0 ? std::floor(v + 0.5) : -std::floor(-v + 0.5);
  return std::clamp(int(r), qmin, qmax);
}

TEST(IntegerTable16, EveryInputMatchesTheWeightedForm) {
  for (unsigned seed : {1u, 2u}) {
    std::vector<int16_t> t = randomTable(seed);
    for (int x = -32768; x <= 32767; ++x)
      ASSERT_EQ(int(intq::table16Lookup(t.data(), int16_t(x), -128, 127)),
                weighted(t, x, -128, 127))
          << "x = " << x;
    // A narrower output range saturates.
    for (int x = -32768; x <= 32767; x += 7)
      ASSERT_EQ(int(intq::table16Lookup(t.data(), int16_t(x), -20, 30)),
                weighted(t, x, -20, 30))
          << "x = " << x;
  }
}

TEST(IntegerTable16, Edges) {
  std::vector<int16_t> t(513, 0);
  t[0] = -16384;  // -128.0
  t[1] = -16256;  // -127.0
  t[511] = 16000; // 125.0
  t[512] = 16256; // 127.0
  t[300] = 64;    // 0.5
  t[301] = -64;   // -0.5
  // Index 0, fraction 0 and 127.
  EXPECT_EQ(intq::table16Interpolate(t.data(), -32768), -16384 * 128);
  EXPECT_EQ(intq::table16Lookup(t.data(), -32768, -128, 127), -128);
  EXPECT_EQ(intq::table16Interpolate(t.data(), -32768 + 127),
            -16384 * 128 + 128 * 127);
  EXPECT_EQ(intq::table16Lookup(t.data(), -32768 + 127, -128, 127), -127);
  // Index 511 with fraction 127: entry 512 weighs 127/128.
  EXPECT_EQ(intq::table16Interpolate(t.data(), 32767), 16000 * 128 + 256 * 127);
  EXPECT_EQ(intq::table16Lookup(t.data(), 32767, -128, 127), 127);
  EXPECT_EQ(intq::table16Lookup(t.data(), 32767 - 127, -128, 127), 125);
  // Ties away from zero: 0.5 -> 1, -0.5 -> -1; between them 0.
  int16_t at300 = int16_t(300 * 128 - 32768);
  EXPECT_EQ(intq::table16Lookup(t.data(), at300, -128, 127), 1);
  EXPECT_EQ(intq::table16Lookup(t.data(), int16_t(at300 + 64), -128, 127), 0);
  t[300] = -64;
  EXPECT_EQ(intq::table16Lookup(t.data(), at300, -128, 127), -1);
  // Entry indices and the entry rounding.
  EXPECT_EQ(intq::table16EntryInput(0), -32768);
  EXPECT_EQ(intq::table16EntryInput(512), 32768);
  EXPECT_EQ(intq::table16Entry(0.25, 0.5, -3, -128, 127), (-3 * 128) + 64);
  EXPECT_EQ(intq::table16Entry(1e9, 0.5, 0, -128, 127), 127 * 128);
  EXPECT_EQ(intq::table16Entry(-1e9, 0.5, 0, -128, 127), -128 * 128);
  EXPECT_EQ(intq::table16Entry(NAN, 0.5, 5, -128, 127), 5 * 128);
}

std::vector<Isa> isas() {
  std::vector<Isa> v = {Isa::Portable};
  for (Isa i : {Isa::Avx2, Isa::Avx512})
    if (isaSupported(i))
      v.push_back(i);
  return v;
}

TEST(Table16Kernel, Int16InputEveryLengthAndIsa) {
  // A random table, and one whose every entry is a half step (64 + 128 k,
  // k of both signs): at fraction 0 each lookup is a tie, both signs.
  std::vector<int16_t> ties(513);
  for (size_t i = 0; i < ties.size(); ++i)
    ties[i] = int16_t(128 * (int(i % 201) - 100) + 64);
  for (const std::vector<int16_t> &t : {randomTable(3), ties}) {
    Table16Args a;
    a.table = t.data();
    for (Isa isa : isas())
      for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 255, 256, 257, 1001}) {
        std::mt19937 gen(unsigned(n) + 5);
        std::vector<int16_t> in(static_cast<size_t>(n));
        for (int16_t &x : in)
          x = static_cast<int16_t>(gen());
        // Every other input at fraction 0.
        for (size_t k = 0; k < in.size(); k += 2)
          in[k] = int16_t(in[k] & ~127);
        // The extremes and both fraction ends.
        int16_t edges[] = {-32768, 32767, -32768 + 127, 32767 - 127, 0,
                           -1,     127,   128,          -128,        -129};
        for (size_t k = 0; k < std::size(edges) && k < in.size(); ++k)
          in[k] = edges[k];
        std::vector<int8_t> want(in.size()), got(in.size(), 99);
        for (size_t i = 0; i < in.size(); ++i)
          want[i] = int8_t(weighted(t, in[i], -128, 127));
        table16OnIsa(in.data(), got.data(), 0, n, a, isa);
        EXPECT_EQ(got, want) << isaName(isa) << " n = " << n;
        // A sub-range leaves the rest alone.
        if (n > 3) {
          std::vector<int8_t> part(in.size(), 99);
          table16OnIsa(in.data(), part.data(), 1, n - 1, a, isa);
          EXPECT_EQ(part[0], 99);
          EXPECT_EQ(part[size_t(n - 1)], 99);
          EXPECT_TRUE(
              std::equal(part.begin() + 1, part.end() - 1, want.begin() + 1))
              << isaName(isa) << " n = " << n << " sub-range";
        }
      }
  }
  // Saturation to a narrow output range.
  std::vector<int16_t> t = randomTable(3);
  Table16Args narrow;
  narrow.table = t.data();
  narrow.qmin = -5;
  narrow.qmax = 9;
  std::vector<int16_t> in(333);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = int16_t(int(i) * 197 - 32768);
  for (Isa isa : isas()) {
    std::vector<int8_t> got(in.size());
    table16OnIsa(in.data(), got.data(), 0, int64_t(in.size()), narrow, isa);
    for (size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(int(got[i]), weighted(t, in[i], -5, 9))
          << isaName(isa) << " at " << i;
  }
}

TEST(Table16Kernel, Int32InputPerChannelRequant) {
  std::vector<int16_t> t = randomTable(4);
  struct Case {
    int64_t batch, channels, inner;
  };
  for (Case c : {Case{1, 1, 1}, Case{2, 3, 5}, Case{1, 4, 300}, Case{2, 5, 257},
                 Case{1, 2, 1000}}) {
    int64_t n = c.batch * c.channels * c.inner;
    std::mt19937 gen(static_cast<unsigned>(n));
    std::vector<int32_t> acc(static_cast<size_t>(n));
    for (int32_t &x : acc)
      x = int32_t(gen()) >> (gen() % 20); // large and small, both signs
    acc[0] = INT32_MIN;
    acc[size_t(n - 1)] = INT32_MAX;
    std::vector<int64_t> m(size_t(c.channels)), s(size_t(c.channels));
    for (int64_t k = 0; k < c.channels; ++k) {
      m[size_t(k)] = 1073741824 + int64_t(gen() % 1000000000);
      s[size_t(k)] = 28 + int64_t(gen() % 12);
    }
    // Channel 0 halves its accumulator: every odd one is a tie.
    m[0] = int64_t(1) << 30;
    s[0] = 31;
    Table16Args a;
    a.table = t.data();
    a.int32Input = true;
    a.channels = c.channels;
    a.inner = c.inner;
    a.multiplier = m.data();
    a.shift = s.data();
    a.zeroPoint = -77;
    std::vector<int8_t> want(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t ch = (i / c.inner) % c.channels;
      int64_t q = intq::requantMultiplierShift(
          acc[size_t(i)], m[size_t(ch)], s[size_t(ch)], -77, -32768, 32767);
      want[size_t(i)] = int8_t(weighted(t, int(q), -128, 127));
    }
    for (Isa isa : isas()) {
      std::vector<int8_t> got(static_cast<size_t>(n));
      table16OnIsa(acc.data(), got.data(), 0, n, a, isa);
      EXPECT_EQ(got, want) << isaName(isa) << " " << c.channels << "x"
                           << c.inner;
    }
  }
}

TEST(RuntimeInt8Kernels, Table16MatchesAndRejects) {
  const CpuKernel *k = findCpuKernel(kabi::kTable16I8);
  ASSERT_NE(k, nullptr);
  std::vector<int16_t> t = randomTable(6);
  int64_t channels = 3, inner = 97, n = 2 * channels * inner;
  std::vector<int64_t> params = {n, channels, inner, 1, 12, -128, 127};
  params.resize(size_t(7 + 129));
  std::memcpy(params.data() + 7, t.data(), 513 * sizeof(int16_t));
  std::vector<int64_t> m = {1500000000, 1100000000, 2000000000},
                       s = {33, 35, 31};
  params.insert(params.end(), m.begin(), m.end());
  params.insert(params.end(), s.begin(), s.end());
  std::vector<BufferInfo> infos(2);
  infos[0].size = uint64_t(4 * n);
  infos[1].size = uint64_t(n);
  std::string error;
  ASSERT_TRUE(k->check(infos, params, error)) << error;
  std::mt19937 gen(8);
  std::vector<int32_t> acc(static_cast<size_t>(n));
  for (int32_t &x : acc)
    x = int32_t(gen()) >> 6;
  std::vector<int8_t> out(static_cast<size_t>(n));
  std::vector<void *> bindings = {acc.data(), out.data()};
  for (int64_t id = 0; id < 3; ++id)
    ASSERT_EQ(k->fn(bindings.data(), params.data(), id, 3), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t ch = (i / inner) % channels;
    int64_t q = intq::requantMultiplierShift(acc[size_t(i)], m[size_t(ch)],
                                             s[size_t(ch)], 12, -32768, 32767);
    ASSERT_EQ(int(out[size_t(i)]), weighted(t, int(q), -128, 127))
        << "at " << i;
  }

  std::vector<int64_t> bad = params;
  bad[3] = 2;
  EXPECT_FALSE(k->check(infos, bad, error));
  EXPECT_NE(error.find("in_kind 0 or 1"), std::string::npos) << error;
  bad = params;
  bad.pop_back();
  EXPECT_FALSE(k->check(infos, bad, error));
  EXPECT_NE(error.find("needs 142"), std::string::npos) << error;
  bad = params;
  bad[7 + 129 + 1] = int64_t(1) << 40;
  EXPECT_FALSE(k->check(infos, bad, error));
  EXPECT_NE(error.find("channel 1's multiplier"), std::string::npos) << error;
  bad = params;
  bad[4] = 40000;
  EXPECT_FALSE(k->check(infos, bad, error));
  EXPECT_NE(error.find("in_zp"), std::string::npos) << error;
  std::vector<BufferInfo> small = infos;
  small[0].size = uint64_t(4 * n - 1);
  EXPECT_FALSE(k->check(small, params, error));
  EXPECT_NE(error.find("in"), std::string::npos) << error;
  EXPECT_FALSE(k->check(infos, {n, channels}, error));
  EXPECT_NE(error.find("at least 136"), std::string::npos) << error;
  // An int16 input (in_kind 0) has no requant params.
  std::vector<int64_t> p16(params.begin(), params.begin() + 7 + 129);
  p16[3] = 0;
  infos[0].size = uint64_t(2 * n);
  ASSERT_TRUE(k->check(infos, p16, error)) << error;
  std::vector<int16_t> in16(static_cast<size_t>(n));
  for (int16_t &x : in16)
    x = int16_t(gen());
  bindings[0] = in16.data();
  ASSERT_EQ(k->fn(bindings.data(), p16.data(), 0, 1), 0);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(int(out[size_t(i)]), weighted(t, in16[size_t(i)], -128, 127))
        << "at " << i;
}

} // namespace
