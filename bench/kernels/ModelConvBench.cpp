//===- ModelConvBench.cpp - every convolution of the bench models ---------===//
//
// MobileNetV2's and ResNet-50's convolution layers (batch 1, one thread), each
// through the kernel the default strategy gives it: depthwise, Winograd
// (3x3 stride 1, outputs >= 14x14, C and O >= 16) or the GEMM convolution
// in its preferred form with its filter packed. The label names the layer;
// GFLOP/s count the direct convolution's FLOPs.
// `--benchmark_filter=ModelConv/mnv2` or
// `/rn50`; multiply each layer's time by its count (the `x` column) to see
// where a model's convolution time goes. Built into strata-bench-kernels.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/Winograd.h"

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

using namespace strata::kernels;

namespace {

struct Layer {
  const char *model;
  int64_t c, h, o, k, s, p, g, count;
};

// The convolutions of scripts/build-bench-models.py's models, with how many
// times each shape occurs.
const Layer kLayers[] = {
    {"mnv2", 3, 224, 32, 3, 2, 1, 1, 1},
    {"mnv2", 32, 112, 32, 3, 1, 1, 32, 1},
    {"mnv2", 32, 112, 16, 1, 1, 0, 1, 1},
    {"mnv2", 16, 112, 96, 1, 1, 0, 1, 1},
    {"mnv2", 96, 112, 96, 3, 2, 1, 96, 1},
    {"mnv2", 96, 56, 24, 1, 1, 0, 1, 1},
    {"mnv2", 24, 56, 144, 1, 1, 0, 1, 2},
    {"mnv2", 144, 56, 144, 3, 1, 1, 144, 1},
    {"mnv2", 144, 56, 24, 1, 1, 0, 1, 1},
    {"mnv2", 144, 56, 144, 3, 2, 1, 144, 1},
    {"mnv2", 144, 28, 32, 1, 1, 0, 1, 1},
    {"mnv2", 32, 28, 192, 1, 1, 0, 1, 3},
    {"mnv2", 192, 28, 192, 3, 1, 1, 192, 2},
    {"mnv2", 192, 28, 32, 1, 1, 0, 1, 2},
    {"mnv2", 192, 28, 192, 3, 2, 1, 192, 1},
    {"mnv2", 192, 14, 64, 1, 1, 0, 1, 1},
    {"mnv2", 64, 14, 384, 1, 1, 0, 1, 4},
    {"mnv2", 384, 14, 384, 3, 1, 1, 384, 4},
    {"mnv2", 384, 14, 64, 1, 1, 0, 1, 3},
    {"mnv2", 384, 14, 96, 1, 1, 0, 1, 1},
    {"mnv2", 96, 14, 576, 1, 1, 0, 1, 3},
    {"mnv2", 576, 14, 576, 3, 1, 1, 576, 2},
    {"mnv2", 576, 14, 96, 1, 1, 0, 1, 2},
    {"mnv2", 576, 14, 576, 3, 2, 1, 576, 1},
    {"mnv2", 576, 7, 160, 1, 1, 0, 1, 1},
    {"mnv2", 160, 7, 960, 1, 1, 0, 1, 3},
    {"mnv2", 960, 7, 960, 3, 1, 1, 960, 3},
    {"mnv2", 960, 7, 160, 1, 1, 0, 1, 2},
    {"mnv2", 960, 7, 320, 1, 1, 0, 1, 1},
    {"mnv2", 320, 7, 1280, 1, 1, 0, 1, 1},
    {"rn50", 3, 224, 64, 7, 2, 3, 1, 1},
    {"rn50", 64, 56, 64, 1, 1, 0, 1, 1},
    {"rn50", 64, 56, 64, 3, 1, 1, 1, 3},
    {"rn50", 64, 56, 256, 1, 1, 0, 1, 4},
    {"rn50", 256, 56, 64, 1, 1, 0, 1, 2},
    {"rn50", 256, 56, 128, 1, 1, 0, 1, 1},
    {"rn50", 128, 56, 128, 3, 2, 1, 1, 1},
    {"rn50", 128, 28, 512, 1, 1, 0, 1, 4},
    {"rn50", 256, 56, 512, 1, 2, 0, 1, 1},
    {"rn50", 512, 28, 128, 1, 1, 0, 1, 3},
    {"rn50", 128, 28, 128, 3, 1, 1, 1, 3},
    {"rn50", 512, 28, 256, 1, 1, 0, 1, 1},
    {"rn50", 256, 28, 256, 3, 2, 1, 1, 1},
    {"rn50", 256, 14, 1024, 1, 1, 0, 1, 6},
    {"rn50", 512, 28, 1024, 1, 2, 0, 1, 1},
    {"rn50", 1024, 14, 256, 1, 1, 0, 1, 5},
    {"rn50", 256, 14, 256, 3, 1, 1, 1, 5},
    {"rn50", 1024, 14, 512, 1, 1, 0, 1, 1},
    {"rn50", 512, 14, 512, 3, 2, 1, 1, 1},
    {"rn50", 512, 7, 2048, 1, 1, 0, 1, 3},
    {"rn50", 1024, 14, 2048, 1, 2, 0, 1, 1},
    {"rn50", 2048, 7, 512, 1, 1, 0, 1, 2},
    {"rn50", 512, 7, 512, 3, 1, 1, 1, 2},
};

Conv2dShape shapeOf(const Layer &l) {
  Conv2dShape s;
  s.c = l.c;
  s.h = s.w = l.h;
  s.o = l.o;
  s.kh = s.kw = l.k;
  s.sh = s.sw = l.s;
  s.pt = s.pl = s.pb = s.pr = l.p;
  s.g = l.g;
  s.oh = s.ow = (l.h + 2 * l.p - l.k) / l.s + 1;
  return s;
}

void BM_ModelConv(benchmark::State &state) {
  const Layer &l = kLayers[state.range(0)];
  Isa isa = Isa(state.range(1));
  if (!isaSupported(isa)) {
    state.SkipWithError("this CPU does not run this ISA");
    return;
  }
  Conv2dShape s = shapeOf(l);
  bool depthwise = s.g == s.c && s.g > 1;
  bool winograd = !depthwise && s.kh == 3 && s.sh == 1 && s.oh >= 14 &&
                  s.c >= 16 && s.o >= 16;
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> x(size_t(s.c * s.h * s.w)), f(size_t(s.o * s.gemmK())),
      y(size_t(s.o * s.oh * s.ow)), bias(size_t(s.o));
  for (float &v : x)
    v = d(gen);
  for (float &v : f)
    v = d(gen) * 0.05f;
  for (float &v : bias)
    v = d(gen);
  Epilogue e;
  e.biasMode = BiasMode::PerRow;
  e.bias = bias.data();
  e.act = Activation::Clip;
  e.p0 = 0.0f;
  e.p1 = 6.0f;
  std::vector<float> packed;
  std::string kind;
  if (depthwise) {
    kind = "depthwise";
    for (auto _ : state) {
      conv2dDepthwise(s, x.data(), f.data(), e, y.data(), 0, s.o, isa);
      benchmark::ClobberMemory();
    }
  } else if (winograd) {
    kind = "winograd";
    packed.resize(winogradFilterBytes(s) / 4);
    winogradTransformFilter(s, f.data(), packed.data());
    WinogradSplit split = winogradSplit(s, 32, 1);
    int64_t units = winogradUnits(s, split);
    for (auto _ : state) {
      conv2dWinograd(s, x.data(), packed.data(), true, e, y.data(), split, 0,
                     units, isa);
      benchmark::ClobberMemory();
    }
  } else if (preferredConvGemmForm(s) == ConvGemmForm::Transposed) {
    kind = "gemm-t";
    packed.resize(packedConvFilterBytes(s, ConvGemmForm::Transposed) / 4);
    packConvFilter(s, f.data(), packed.data(), ConvGemmForm::Transposed);
    int64_t units = conv2dGemmTransposedUnits(s, 1);
    for (auto _ : state) {
      conv2dGemmTransposed(s, x.data(), packed.data(), true, e, y.data(), 1, 0,
                           units, isa);
      benchmark::ClobberMemory();
    }
  } else {
    kind = "gemm";
    packed.resize(packedConvFilterBytes(s) / 4);
    packConvFilter(s, f.data(), packed.data());
    int64_t units = conv2dGemmUnits(s, 1);
    for (auto _ : state) {
      conv2dGemm(s, x.data(), packed.data(), true, e, y.data(), 1, 0, units,
                 isa);
      benchmark::ClobberMemory();
    }
  }
  double flops = 2.0 * double(s.o * s.gemmK()) * double(s.oh * s.ow);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["x"] = double(l.count);
  state.SetLabel(std::string(l.model) + " " + std::to_string(l.c) + "->" +
                 std::to_string(l.o) + " k" + std::to_string(l.k) + "s" +
                 std::to_string(l.s) + " g" + std::to_string(l.g) + " @" +
                 std::to_string(s.oh) + " " + kind + " " + isaName(isa));
}

void modelLayers(benchmark::internal::Benchmark *b) {
  for (int isa : {2, 1, 0})
    for (int64_t i = 0; i < int64_t(std::size(kLayers)); ++i)
      b->Args({i, isa});
}

BENCHMARK(BM_ModelConv)
    ->Apply(modelLayers)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime();

} // namespace
