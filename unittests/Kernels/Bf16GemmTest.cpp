//===- Bf16GemmTest.cpp - the bf16 GEMM against an f64 reference ----------===//
//
// Every bf16 path this CPU runs: odd M/N/K, tails, several K blocks, bias
// per row and per column, relu / clip, f32 and bf16 output. The tolerance
// is f32 accumulation's bound, (K + 2) * 2^-24 * (sum |a b| + |bias|),
// plus half a bf16 ulp of the result (2^-9 relative) for a bf16 output.
// The paths agree exactly with each other on these (normal-range) inputs:
// both add the odd then the even product of each K pair.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Bf16Gemm.h"
#include "Bf16TestUtil.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

using namespace strata::kernels;
using strata::kernels::testing::randomBf16;

namespace {

void runCase(int64_t m, int64_t n, int64_t k, BiasMode bias, Activation act,
             bool outBf16, bool transposedB, unsigned seed) {
  std::vector<uint16_t> a = randomBf16(size_t(m * k), seed);
  std::vector<uint16_t> b = randomBf16(size_t(k * n), seed + 1);
  std::mt19937 gen(seed + 2);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> biasV(size_t(std::max(m, n)));
  for (float &x : biasV)
    x = d(gen);
  // B is K x N, or N x K when transposed.
  auto bAt = [&](int64_t p, int64_t j) {
    return fromBf16(transposedB ? b[size_t(j * k + p)] : b[size_t(p * n + j)]);
  };
  std::vector<uint16_t> bp(bf16PackedBElems(k, n));
  bf16PackB(b.data(), transposedB ? k : n, transposedB, k, n, bp.data());
  std::vector<uint16_t> ap(bf16PackedAElems(m, k));
  bf16PackA(a.data(), k, m, k, ap.data());
  std::vector<std::vector<float>> results;
  for (Bf16Path path : {Bf16Path::Portable, Bf16Path::Avx512Bf16}) {
    if (!bf16PathSupported(path))
      continue;
    for (bool packedA : {false, true}) {
      std::vector<float> out32(size_t(m * n), -7.0f);
      std::vector<uint16_t> out16(size_t(m * n), 0xffff);
      Bf16GemmProblem p;
      p.m = m;
      p.n = n;
      p.k = k;
      if (packedA) {
        p.aPacked = ap.data();
      } else {
        p.aPlain = a.data();
        p.lda = k;
      }
      p.bPacked = bp.data();
      p.c = outBf16 ? static_cast<void *>(out16.data())
                    : static_cast<void *>(out32.data());
      p.ldc = n;
      p.outBf16 = outBf16;
      p.biasMode = bias;
      p.bias = biasV.data();
      p.act = act;
      p.p0 = -0.5f;
      p.p1 = 0.75f;
      // Two column ranges, as workgroups split it.
      int64_t mid = std::min(n, int64_t(16) * ((n / 16 + 1) / 2));
      bf16Gemm(p, 0, m, 0, mid, path);
      bf16Gemm(p, 0, m, mid, n, path);
      std::vector<float> got(size_t(m * n));
      for (int64_t i = 0; i < m * n; ++i)
        got[size_t(i)] =
            outBf16 ? fromBf16(out16[size_t(i)]) : out32[size_t(i)];
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0, mag = 0;
          for (int64_t q = 0; q < k; ++q) {
            double prod = double(fromBf16(a[size_t(i * k + q)])) * bAt(q, j);
            s += prod;
            mag += std::fabs(prod);
          }
          double bv = bias == BiasMode::PerRow   ? biasV[size_t(i)]
                      : bias == BiasMode::PerCol ? biasV[size_t(j)]
                                                 : 0.0;
          s += bv;
          mag += std::fabs(bv);
          if (act == Activation::Relu)
            s = std::max(s, 0.0);
          else if (act == Activation::Clip)
            s = std::min(std::max(s, -0.5), 0.75);
          double tol = double(k + 2) * std::ldexp(1.0, -24) * mag;
          if (outBf16)
            tol += std::ldexp(std::fabs(s) + tol, -8);
          ASSERT_NEAR(got[size_t(i * n + j)], s, tol)
              << bf16PathName(path) << " M=" << m << " N=" << n << " K=" << k
              << " at (" << i << ", " << j << ") packedA=" << packedA;
        }
      results.push_back(got);
    }
  }
  for (size_t r = 1; r < results.size(); ++r)
    ASSERT_EQ(results[r], results[0])
        << "paths or forms disagree, M=" << m << " N=" << n << " K=" << k;
}

TEST(Bf16Gemm, Shapes) {
  unsigned seed = 1;
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {1, 17, 3},
                         {13, 33, 7},
                         {12, 32, 64},
                         {25, 47, 129},
                         {37, 300, 21},
                         {5, 70, 1031}})
    for (BiasMode bias : {BiasMode::None, BiasMode::PerRow, BiasMode::PerCol})
      for (bool outBf16 : {true, false}) {
        Activation act = seed % 3 == 0   ? Activation::Relu
                         : seed % 3 == 1 ? Activation::Clip
                                         : Activation::None;
        runCase(m, n, k, bias, act, outBf16, seed % 2, seed);
        ++seed;
      }
}

TEST(Bf16Gemm, RoundToNearestEven) {
  // Halfway cases round to the even bf16; NaN stays NaN.
  EXPECT_EQ(toBf16(1.0f), 0x3f80);
  float tie;
  uint32_t u = 0x3f808000u; // 1 + 2^-8: between 0x3f80 and 0x3f81
  std::memcpy(&tie, &u, 4);
  EXPECT_EQ(toBf16(tie), 0x3f80);
  u = 0x3f818000u; // between 0x3f81 and 0x3f82: to even 0x3f82
  std::memcpy(&tie, &u, 4);
  EXPECT_EQ(toBf16(tie), 0x3f82);
  EXPECT_TRUE(std::isnan(fromBf16(toBf16(std::nanf("")))));
}

} // namespace
