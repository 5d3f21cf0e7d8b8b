//===- WinogradBench.cpp - Winograd F(4x4,3x3) against the GEMM conv ------===//
//
// ResNet-50's 3x3 stride-1 layers (pad 1, batch 1), one thread: the
// Winograd kernel (transformed filter) and the im2col GEMM convolution
// (packed filter), each ISA this CPU runs. GFLOP/s count the direct
// convolution's 2 * O * OH * OW * C * 9 FLOPs, so the two compare directly.
// Built into strata-bench-kernels.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/Winograd.h"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

using namespace strata::kernels;

namespace {

void BM_Conv3x3(benchmark::State &state) {
  int64_t c = state.range(0), hw = state.range(1);
  Isa isa = Isa(state.range(2));
  bool winograd = state.range(3) != 0;
  int64_t tileHw = state.range(4);
  if (!isaSupported(isa)) {
    state.SkipWithError("this CPU does not run this ISA");
    return;
  }
  Conv2dShape s;
  s.c = s.o = c;
  s.h = s.w = s.oh = s.ow = hw;
  s.kh = s.kw = 3;
  s.pt = s.pl = s.pb = s.pr = 1;
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> x(size_t(c * hw * hw)), f(size_t(c * c * 9)),
      y(size_t(c * hw * hw));
  for (float &v : x)
    v = d(gen);
  for (float &v : f)
    v = d(gen) * 0.05f;
  std::vector<float> packed;
  Epilogue e;
  if (winograd) {
    packed.resize(winogradFilterBytes(s) / 4);
    winogradTransformFilter(s, f.data(), packed.data());
    WinogradSplit split = winogradSplit(s, tileHw, 1);
    int64_t units = winogradUnits(s, split);
    for (auto _ : state) {
      conv2dWinograd(s, x.data(), packed.data(), true, e, y.data(), split, 0,
                     units, isa);
      benchmark::ClobberMemory();
    }
  } else {
    packed.resize(packedConvFilterBytes(s) / 4);
    packConvFilter(s, f.data(), packed.data());
    int64_t units = conv2dGemmUnits(s, 1);
    for (auto _ : state) {
      conv2dGemm(s, x.data(), packed.data(), true, e, y.data(), 1, 0, units,
                 isa);
      benchmark::ClobberMemory();
    }
  }
  double flops = 2.0 * double(c * c * 9) * double(hw * hw);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(isaName(isa)) +
                 (winograd ? " winograd tile_hw " + std::to_string(tileHw)
                           : " im2col"));
}

void convShapes(benchmark::internal::Benchmark *b) {
  const int64_t layers[][2] = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
  for (int isa : {2, 1, 0})
    for (auto &l : layers) {
      b->Args({l[0], l[1], isa, 0, 0});
      for (int64_t tile : {16, 32, 64})
        b->Args({l[0], l[1], isa, 1, tile});
    }
}

BENCHMARK(BM_Conv3x3)
    ->Apply(convShapes)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

} // namespace
