//===- WinogradBench.cpp - Winograd F(m x m, 3x3) against the GEMM conv ---===//
//
// ResNet-50's 3x3 stride-1 layers (pad 1, batch 1) and smaller outputs
// (7x7 to 12x12 at several channel counts), one thread: the Winograd kernel
// (transformed filter; F(4x4) and F(2x2) forced, or the tile size
// winogradTileOut picks) and the GEMM convolution in its preferred form
// (packed filter), each ISA this CPU runs. GFLOP/s count the direct
// convolution's 2 * O * OH * OW * C * 9 FLOPs, so they compare directly.
// Built into strata-bench-kernels.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/Winograd.h"

#include "ConvBenchLoop.h"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

using namespace strata::kernels;

namespace {

/// `stride` 2: hw is the input side, the output (hw - 1) / 2 + 1.
void conv3x3(benchmark::State &state, int64_t stride) {
  int64_t c = state.range(0), hw = state.range(1);
  Isa isa = Isa(state.range(2));
  bool winograd = state.range(3) != 0;
  int64_t tileHw = state.range(4), tileOut = state.range(5);
  if (!isaSupported(isa)) {
    state.SkipWithError("this CPU does not run this ISA");
    return;
  }
  Conv2dShape s;
  s.c = s.o = c;
  s.h = s.w = hw;
  s.oh = s.ow = (hw - 1) / stride + 1;
  s.sh = s.sw = stride;
  s.kh = s.kw = 3;
  s.pt = s.pl = s.pb = s.pr = 1;
  int64_t ohw = s.oh * s.ow;
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> x(size_t(c * hw * hw)), f(size_t(c * c * 9)),
      y(size_t(c * ohw));
  for (float &v : x)
    v = d(gen);
  for (float &v : f)
    v = d(gen) * 0.05f;
  std::vector<float> packed;
  Epilogue e;
  if (winograd) {
    WinogradSplit split = winogradSplit(s, tileHw, 1, tileOut);
    packed.resize(winogradFilterBytes(s, split.tileOut) / 4);
    winogradTransformFilter(s, f.data(), packed.data(), split.tileOut);
    tileOut = split.tileOut;
    int64_t units = winogradUnits(s, split);
    for (auto _ : state) {
      conv2dWinograd(s, x.data(), packed.data(), true, e, y.data(), split, 0,
                     units, isa);
      benchmark::ClobberMemory();
    }
  } else {
    bench::timeGemmConv(state, s, f, x.data(), e, y.data(), isa);
  }
  double flops = 2.0 * double(c * c * 9) * double(ohw);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("C=O=" + std::to_string(c) + " @" + std::to_string(hw) +
                 (stride == 2 ? " stride 2" : "") + " " + isaName(isa) +
                 (winograd ? " winograd F(" + std::to_string(tileOut) +
                                 ") tile_hw " + std::to_string(tileHw)
                  : preferredConvGemmForm(s) == ConvGemmForm::Transposed
                      ? " gemm-t"
                      : " im2col"));
}

void BM_Conv3x3(benchmark::State &state) { conv3x3(state, 1); }

void convShapes(benchmark::internal::Benchmark *b) {
  const int64_t layers[][2] = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
  for (int isa : {2, 1, 0})
    for (auto &l : layers) {
      b->Args({l[0], l[1], isa, 0, 0, 0});
      for (int64_t tile : {16, 32, 64})
        b->Args({l[0], l[1], isa, 1, tile, 0});
    }
}

/// Small outputs: the GEMM form, F(4x4) and F(2x2) forced
/// (`--benchmark_filter=Conv3x3Small`).

void smallShapes(benchmark::internal::Benchmark *b) {
  const int64_t layers[][2] = {{512, 7},  {256, 7}, {128, 7},  {64, 7},
                               {32, 7},   {16, 7},  {256, 10}, {64, 10},
                               {256, 12}, {64, 12}, {512, 4},  {64, 4}};
  for (int isa : {2, 1, 0})
    for (auto &l : layers) {
      b->Args({l[0], l[1], isa, 0, 0, 0});
      for (int64_t m : {4, 2})
        b->Args({l[0], l[1], isa, 1, 64, m});
    }
}

BENCHMARK(BM_Conv3x3)
    ->Apply(convShapes)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

void BM_Conv3x3Small(benchmark::State &state) { BM_Conv3x3(state); }
BENCHMARK(BM_Conv3x3Small)
    ->Apply(smallShapes)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime();

/// ResNet-50's stride-2 3x3 layers (input side 56, 28, 14; pad 1): the
/// GEMM form against the stride-2 Winograd form
/// (`--benchmark_filter=Conv3x3Stride2`).
void stride2Shapes(benchmark::internal::Benchmark *b) {
  const int64_t layers[][2] = {{128, 56}, {256, 28}, {512, 14}};
  for (int isa : {2, 1, 0})
    for (auto &l : layers) {
      b->Args({l[0], l[1], isa, 0, 0, 0});
      for (int64_t tile : {16, 32, 64, 128})
        b->Args({l[0], l[1], isa, 1, tile, 0});
    }
  // Fewer channels (the strategy's floor is 16) and a 7x7 output.
  const int64_t narrow[][2] = {{16, 112}, {32, 56}, {64, 28}, {16, 14},
                               {64, 14},  {256, 14}};
  for (auto &l : narrow)
    for (int w : {0, 1})
      b->Args({l[0], l[1], 2, w, 32, 0});
}

void BM_Conv3x3Stride2(benchmark::State &state) { conv3x3(state, 2); }
BENCHMARK(BM_Conv3x3Stride2)
    ->Apply(stride2Shapes)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime();

} // namespace
