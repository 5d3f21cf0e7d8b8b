//===- Int8TestUtil.h - shared helpers of the int8 kernel tests -*- C++ -*-===//

#ifndef STRATA_UNITTESTS_KERNELS_INT8TESTUTIL_H
#define STRATA_UNITTESTS_KERNELS_INT8TESTUTIL_H

#include "strata/Kernels/Int8Gemm.h"

#include <climits>
#include <cstdint>
#include <vector>

namespace strata::kernels::test {

/// The int8 paths this CPU runs.
inline std::vector<Int8Path> supportedPaths() {
  std::vector<Int8Path> out;
  for (Int8Path p : {Int8Path::Portable, Int8Path::Avx2, Int8Path::Avx512Vnni})
    if (int8PathSupported(p))
      out.push_back(p);
  return out;
}

/// Accumulators on the rounding edges: small odd values (exact halves for
/// shifts by one), 255 / 257, the int32 extremes, 2^20 and its neighbours.
inline std::vector<int32_t> edgeValues() {
  return {0,
          1,
          -1,
          2,
          -2,
          3,
          -3,
          5,
          -5,
          7,
          -7,
          255,
          -255,
          257,
          -257,
          INT32_MAX,
          INT32_MIN,
          INT32_MAX - 1,
          INT32_MIN + 1,
          1 << 20,
          -(1 << 20),
          (1 << 20) + 1,
          -(1 << 20) - 1,
          12345,
          -12345};
}

} // namespace strata::kernels::test

#endif // STRATA_UNITTESTS_KERNELS_INT8TESTUTIL_H
