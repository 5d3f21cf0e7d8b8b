//===- Int8MicrokernelPortable.cpp - the int8 reference microkernel -------===//
//
// Plain C++ on the packed layouts: the path for CPUs without AVX2, and the
// one the others are tested against.
//
//===----------------------------------------------------------------------===//

#include "Int8Microkernels.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "strata/Support/IntegerRequant.h"

namespace strata::kernels::detail {

#include "Int8AddImpl.inc"
#include "Int8DepthwiseImpl.inc"
#include "Int8EpilogueImpl.inc"

namespace {

constexpr int64_t kMR = 12, kNR = 16;

void microkernel(int64_t groups, const uint8_t *a, const uint8_t *b,
                 int64_t /*bPanelStride*/, int32_t *c, int64_t ldc, int64_t mr,
                 int64_t nr, bool accumulate, bool aUnsigned) {
  // Column-innermost loops over 16-bit operands (|u8 x s8| < 2^15, the sums
  // in int32), so the compiler vectorizes them for the baseline ISA.
  int32_t acc[kMR][kNR] = {};
  for (int64_t g = 0; g < groups; ++g) {
    const uint8_t *ag = a + g * 4 * kPanelRows;
    const uint8_t *bg = b + g * 64;
    int16_t bv[4][kNR];
    for (int64_t q = 0; q < 4; ++q)
      for (int64_t j = 0; j < kNR; ++j)
        bv[q][j] =
            aUnsigned ? int16_t(int8_t(bg[j * 4 + q])) : int16_t(bg[j * 4 + q]);
    for (int64_t i = 0; i < mr; ++i) {
      int16_t av[4];
      for (int64_t q = 0; q < 4; ++q)
        av[q] =
            aUnsigned ? int16_t(ag[i * 4 + q]) : int16_t(int8_t(ag[i * 4 + q]));
      // Each u8 x s8 product fits int16 exactly (16-bit multiplies).
      for (int64_t j = 0; j < kNR; ++j)
        acc[i][j] += int32_t(int16_t(av[0] * bv[0][j])) +
                     int32_t(int16_t(av[1] * bv[1][j])) +
                     int32_t(int16_t(av[2] * bv[2][j])) +
                     int32_t(int16_t(av[3] * bv[3][j]));
    }
  }
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < nr; ++j)
      c[i * ldc + j] =
          accumulate ? int32_t(uint32_t(c[i * ldc + j]) + uint32_t(acc[i][j]))
                     : acc[i][j];
}

} // namespace

void int8ScalarTileEpilogue(const int32_t *acc, int64_t ldacc, int64_t rows,
                            int64_t cols, int64_t row0, int64_t col0,
                            const Int8Epilogue &e, void *out, int64_t ldo) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t ch = e.perRow ? row0 + i : col0 + j;
      int32_t v = int8EpilogueValue(acc[i * ldacc + j], e, ch);
      switch (e.out) {
      case Int8Output::Int32:
        static_cast<int32_t *>(out)[i * ldo + j] = v;
        break;
      case Int8Output::Int8:
        static_cast<int8_t *>(out)[i * ldo + j] = int8_t(v);
        break;
      case Int8Output::UInt8:
        static_cast<uint8_t *>(out)[i * ldo + j] = uint8_t(v);
        break;
      }
    }
}

Int8MicrokernelInfo int8PortableMicrokernel() {
  return {kMR,     kNR,    microkernel, genericTileEpilogue, depthwisePlane,
          nullptr, addLoop};
}

} // namespace strata::kernels::detail
