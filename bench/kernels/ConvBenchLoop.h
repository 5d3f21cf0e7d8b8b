//===- ConvBenchLoop.h - time a GEMM convolution in its preferred form ---===//
//
// Shared by the convolution benchmarks: packs the filter in the form
// preferredConvGemmForm picks (normal or transposed) and runs the timed loop
// on one workgroup.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_BENCH_KERNELS_CONVBENCHLOOP_H
#define STRATA_BENCH_KERNELS_CONVBENCHLOOP_H

#include "strata/Kernels/Conv.h"

#include <benchmark/benchmark.h>

#include <vector>

namespace strata::kernels::bench {

/// Times `s` through the GEMM convolution (filter `f` OIHW, packed first);
/// returns "gemm-t" for the transposed form, "gemm" otherwise.
inline const char *timeGemmConv(benchmark::State &state, const Conv2dShape &s,
                                const std::vector<float> &f, const float *x,
                                const Epilogue &e, float *y, Isa isa) {
  ConvGemmForm form = preferredConvGemmForm(s);
  std::vector<float> packed(packedConvFilterBytes(s, form) / 4);
  packConvFilter(s, f.data(), packed.data(), form);
  if (form == ConvGemmForm::Transposed) {
    int64_t units = conv2dGemmTransposedUnits(s, 1);
    for (auto _ : state) {
      conv2dGemmTransposed(s, x, packed.data(), true, e, y, 1, 0, units, isa);
      benchmark::ClobberMemory();
    }
    return "gemm-t";
  }
  int64_t units = conv2dGemmUnits(s, 1);
  for (auto _ : state) {
    conv2dGemm(s, x, packed.data(), true, e, y, 1, 0, units, isa);
    benchmark::ClobberMemory();
  }
  return "gemm";
}

} // namespace strata::kernels::bench

#endif // STRATA_BENCH_KERNELS_CONVBENCHLOOP_H
