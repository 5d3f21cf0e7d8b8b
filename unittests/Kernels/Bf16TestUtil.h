//===- Bf16TestUtil.h - helpers of the bf16 kernel tests ---------*- C++
//-*-===//
//
// Seeded uniform [-1, 1) values rounded to bf16.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_UNITTESTS_KERNELS_BF16TESTUTIL_H
#define STRATA_UNITTESTS_KERNELS_BF16TESTUTIL_H

#include "strata/Kernels/Bf16Gemm.h"

#include <random>
#include <vector>

namespace strata::kernels::testing {

inline std::vector<uint16_t> randomBf16(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<uint16_t> v(n);
  for (uint16_t &x : v)
    x = toBf16(d(gen));
  return v;
}

} // namespace strata::kernels::testing

#endif // STRATA_UNITTESTS_KERNELS_BF16TESTUTIL_H
