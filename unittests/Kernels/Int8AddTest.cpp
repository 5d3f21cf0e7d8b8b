//===- Int8AddTest.cpp - the int8 Add kernel against intq -----------------===//
//
// Every int8 path this CPU runs, against the definition written out with
// strata::intq::requantMultiplierShift (the interpreter's top.Requant):
// every pair of input bytes for parameter sets at the edges of the vector
// form (shifts 1 and 24, rescales just below 2^30, multipliers 0 and
// 2^31 - 1, output shifts 31, 32 and 63) and outside it (negative
// multipliers, shifts 0, 25 and 30 on the output, sums that wrap), odd
// lengths and tails, split ranges, in place over either input.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Int8Add.h"
#include "strata/Support/IntegerRequant.h"

#include "Int8TestUtil.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

using namespace strata::kernels;

namespace {

using test::supportedPaths;

/// The chain written out: two Requants to int32, the wrapping Add, the
/// relu, the Requant to 8 bits.
int64_t reference(const Int8AddParams &p, int64_t qa, int64_t qb) {
  namespace iq = strata::intq;
  int64_t ra = iq::requantMultiplierShift(qa - p.a.zp, p.a.multiplier,
                                          p.a.shift, 0, INT32_MIN, INT32_MAX);
  int64_t rb = iq::requantMultiplierShift(qb - p.b.zp, p.b.multiplier,
                                          p.b.shift, 0, INT32_MIN, INT32_MAX);
  int32_t v = int32_t(uint32_t(uint64_t(ra + rb)));
  if (p.relu && v < 0)
    v = 0;
  return iq::requantMultiplierShift(v, p.multiplier, p.shift, p.zp, p.qmin,
                                    p.qmax);
}

int64_t valueOf(uint8_t byte, bool isUnsigned) {
  return isUnsigned ? int64_t(byte) : int64_t(int8_t(byte));
}

/// Runs all 65536 byte pairs (a as the outer, b as the inner index) on every
/// path, in two ranges, and once in place over a and once over b.
void checkAllPairs(const Int8AddParams &p, const char *what) {
  size_t n = 256 * 256;
  std::vector<uint8_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = uint8_t(i / 256);
    b[i] = uint8_t(i % 256);
  }
  std::vector<int64_t> want(n);
  for (size_t i = 0; i < n; ++i)
    want[i] = reference(p, valueOf(a[i], p.a.isUnsigned),
                        valueOf(b[i], p.b.isUnsigned));
  bool u = p.out == Int8Output::UInt8;
  for (Int8Path path : supportedPaths())
    for (int mode = 0; mode < 3; ++mode) {
      std::vector<uint8_t> y(n, 0xcd);
      std::vector<uint8_t> ac(a), bc(b);
      uint8_t *out = mode == 0 ? y.data() : mode == 1 ? ac.data() : bc.data();
      int64_t mid = 12345;
      int8Add(p, ac.data(), bc.data(), out, 0, mid, path);
      int8Add(p, ac.data(), bc.data(), out, mid, int64_t(n), path);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(u ? int64_t(out[i]) : int64_t(int8_t(out[i])), want[i])
            << int8PathName(path) << " " << what << " mode " << mode
            << " a=" << valueOf(a[i], p.a.isUnsigned)
            << " b=" << valueOf(b[i], p.b.isUnsigned)
            << " ma=" << p.a.multiplier << " sa=" << p.a.shift
            << " mb=" << p.b.multiplier << " sb=" << p.b.shift
            << " m=" << p.multiplier << " s=" << p.shift << " zp=" << p.zp
            << " relu=" << p.relu;
    }
}

Int8AddParams realistic(std::mt19937 &gen) {
  Int8AddParams p;
  std::uniform_int_distribution<int32_t> m(1 << 30, INT32_MAX);
  p.a.isUnsigned = gen() % 2;
  p.b.isUnsigned = gen() % 3 == 0;
  auto zpOf = [&](bool u) {
    int32_t z = int32_t(gen() % 256);
    return u ? z : z - 128;
  };
  p.a.zp = zpOf(p.a.isUnsigned);
  p.b.zp = zpOf(p.b.isUnsigned);
  p.a.multiplier = m(gen);
  p.b.multiplier = m(gen);
  p.a.shift = 10 + int32_t(gen() % 15); // 10..24
  p.b.shift = 10 + int32_t(gen() % 15);
  p.relu = gen() % 2;
  p.out = gen() % 2 ? Int8Output::UInt8 : Int8Output::Int8;
  bool u = p.out == Int8Output::UInt8;
  p.multiplier = m(gen);
  p.shift = 31 + int32_t(gen() % 25); // 31..55
  p.zp = zpOf(u);
  p.qmin = u ? 0 : -128;
  p.qmax = u ? 255 : 127;
  if (gen() % 3 == 0)
    p.qmax = u ? 200 : 100;
  return p;
}

TEST(Int8Add, RealisticAllPairs) {
  std::mt19937 gen(7);
  for (int rep = 0; rep < 12; ++rep)
    checkAllPairs(realistic(gen), "realistic");
}

TEST(Int8Add, Edges) {
  std::mt19937 gen(8);
  struct Case {
    int32_t ma, sa, mb, sb, m, s;
  };
  const Case cases[] = {
      {INT32_MAX, 24, INT32_MAX, 24, INT32_MAX, 31}, // largest low parts
      {1 << 30, 1, 1 << 30, 1, 1 << 30, 32},         // shift 1
      {0, 12, INT32_MAX, 9, 1 << 30, 63},            // multiplier 0
      // Exact halves (ties away from zero) for odd x in both rescales.
      {(1 << 30) + (1 << 11), 12, 3 << 9, 10, 1 << 30, 40},
      {(1 << 29) + (1 << 23), 24, (1 << 30) + (1 << 16), 17, 1 << 30, 33},
      // R(255) just below and at 2^30 (the vector form's bound).
      {int32_t((int64_t(1) << 38) / 255 - 1), 8, 1 << 30, 12, 1 << 30, 50},
      {int32_t((int64_t(1) << 38) / 255 + 1), 8, 1 << 30, 12, 1 << 30, 50},
      // Outside the vector form: negative multipliers, shifts 0 and 25,
      // output shifts below 31, a negative output multiplier.
      {-(1 << 30), 10, 1 << 30, 10, 1 << 30, 45},
      {1 << 30, 0, 5, 0, 1 << 30, 40},
      {INT32_MAX, 25, 1 << 30, 10, 1 << 30, 40},
      {1 << 30, 10, 1 << 30, 10, 1 << 30, 30},
      {1 << 30, 10, 1 << 30, 10, -(1 << 30), 40},
      {1 << 30, 10, 1 << 30, 10, 3, 0},
      // Rescales of 2^31 - 1: sums that wrap around int32.
      {INT32_MAX, 0, INT32_MAX, 0, 1 << 30, 40},
  };
  for (const Case &c : cases)
    for (int rep = 0; rep < 2; ++rep) {
      Int8AddParams p = realistic(gen);
      p.a.multiplier = c.ma;
      p.a.shift = c.sa;
      p.b.multiplier = c.mb;
      p.b.shift = c.sb;
      p.multiplier = c.m;
      p.shift = c.s;
      // Zero points at the type's ends.
      if (rep == 1) {
        p.a.zp = p.a.isUnsigned ? 255 : -128;
        p.b.zp = p.b.isUnsigned ? 0 : 127;
      }
      checkAllPairs(p, "edge");
    }
}

/// Lengths around the 16- and 32-element steps, with the data at the end
/// of its allocation (the tails must not read past it).
TEST(Int8Add, Tails) {
  std::mt19937 gen(9);
  for (int64_t n : {1, 2, 15, 16, 17, 31, 32, 33, 47, 64, 100, 1023, 1024, 1031,
                    1088, 1151}) {
    Int8AddParams p = realistic(gen);
    std::vector<uint8_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      a[size_t(i)] = uint8_t(gen());
      b[size_t(i)] = uint8_t(gen());
    }
    for (Int8Path path : supportedPaths()) {
      std::vector<uint8_t> y(size_t(n) + 64, 0xcd);
      int8Add(p, a.data(), b.data(), y.data(), 0, n, path);
      for (int64_t i = 0; i < n; ++i) {
        int64_t got = p.out == Int8Output::UInt8
                          ? int64_t(y[size_t(i)])
                          : int64_t(int8_t(y[size_t(i)]));
        ASSERT_EQ(got, reference(p, valueOf(a[size_t(i)], p.a.isUnsigned),
                                 valueOf(b[size_t(i)], p.b.isUnsigned)))
            << int8PathName(path) << " n=" << n << " at " << i;
      }
      for (size_t i = size_t(n); i < y.size(); ++i)
        ASSERT_EQ(y[i], 0xcd) << int8PathName(path) << " wrote past n=" << n;
      EXPECT_EQ(int8AddValue(p, int32_t(valueOf(a[0], p.a.isUnsigned)),
                             int32_t(valueOf(b[0], p.b.isUnsigned))),
                reference(p, valueOf(a[0], p.a.isUnsigned),
                          valueOf(b[0], p.b.isUnsigned)));
    }
  }
}

} // namespace
