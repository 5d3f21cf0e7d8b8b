//===- ModelConvBench.cpp - every convolution of the bench models ---------===//
//
// MobileNetV2's and ResNet-50's convolution layers (batch 1, one thread), each
// through the kernel the default strategy gives it: depthwise, Winograd
// (3x3 stride 1, outputs >= 7x7, C and O >= 16) or the GEMM convolution
// in its preferred form with its filter packed. The label names the layer;
// GFLOP/s count the direct convolution's FLOPs.
// `--benchmark_filter=ModelConv/mnv2` or
// `/rn50`; multiply each layer's time by its count (the `x` column) to see
// where a model's convolution time goes. Built into strata-bench-kernels.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/Winograd.h"

#include "ConvBenchLoop.h"

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
  bool winograd = !depthwise && s.kh == 3 && s.sh == 1 && s.oh >= 7 &&
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
  } else {
    kind = bench::timeGemmConv(state, s, f, x.data(), e, y.data(), isa);
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

//===----------------------------------------------------------------------===//
// MobileNetV2's inverted-residual blocks (expansion 6): the three kernels one
// after the other (what the runtime runs without the fusion: each 1x1 in
// its preferred GEMM form, the 3x3 depthwise path) against the fused kernel
// (strata/Kernels/InvertedResidual.h). `--benchmark_filter=InvRes`.
//===----------------------------------------------------------------------===//

#include "strata/Kernels/InvertedResidual.h"

namespace {

struct Block {
  int64_t c, h, p, s, count;
  bool residual;
};
const Block kBlocks[] = {
    {16, 112, 24, 2, 1, false}, {24, 56, 24, 1, 1, true},
    {24, 56, 32, 2, 1, false},  {32, 28, 32, 1, 2, true},
    {32, 28, 64, 2, 1, false},  {64, 14, 64, 1, 3, true},
    {64, 14, 96, 1, 1, false},  {96, 14, 96, 1, 2, true},
    {96, 14, 160, 2, 1, false}, {160, 7, 160, 1, 2, true},
    {160, 7, 320, 1, 1, false},
};

/// One 1x1 convolution as the runtime runs it (filter packed, its form).
struct Pointwise {
  Conv2dShape s;
  ConvGemmForm form;
  std::vector<float> packed;
  Pointwise(int64_t c, int64_t o, int64_t h, const std::vector<float> &f) {
    s.c = c, s.o = o, s.h = s.w = s.oh = s.ow = h;
    form = preferredConvGemmForm(s);
    packed.resize(packedConvFilterBytes(s, form) / 4);
    packConvFilter(s, f.data(), packed.data(), form);
  }
  void run(const float *x, const Epilogue &e, float *y, Isa isa) const {
    if (form == ConvGemmForm::Transposed)
      conv2dGemmTransposed(s, x, packed.data(), true, e, y, 1, 0,
                           conv2dGemmTransposedUnits(s, 1), isa);
    else
      conv2dGemm(s, x, packed.data(), true, e, y, 1, 0, conv2dGemmUnits(s, 1),
                 isa);
  }
};

void BM_InvRes(benchmark::State &state) {
  const Block &b = kBlocks[state.range(0)];
  bool fused = state.range(1) != 0;
  Isa isa = Isa(state.range(2));
  if (!isaSupported(isa)) {
    state.SkipWithError("this CPU does not run this ISA");
    return;
  }
  InvertedResidualShape s;
  s.c = b.c, s.h = s.w = b.h, s.e = 6 * b.c, s.p = b.p, s.stride = b.s;
  s.oh = s.ow = (b.h + 2 - 3) / b.s + 1;
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> d(-1, 1);
  auto vec = [&](int64_t n, float scale) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float &x : v)
      x = d(gen) * scale;
    return v;
  };
  auto x = vec(s.c * s.h * s.w, 1), w1 = vec(s.e * s.c, 0.1f), b1 = vec(s.e, 1),
       dw = vec(s.e * 9, 0.3f), b2 = vec(s.e, 1), w3 = vec(s.p * s.e, 0.05f),
       b3 = vec(s.p, 1);
  std::vector<float> y(static_cast<size_t>(s.p * s.oh * s.ow));
  Epilogue e1, e2, e3;
  e1.act = e2.act = Activation::Clip;
  e1.p1 = e2.p1 = 6.0f;
  const float *residual = b.residual ? x.data() : nullptr;
  if (fused) {
    std::vector<float> p1(packedABytes(s.e, s.c) / 4),
        p3(packedABytes(s.p, s.e) / 4);
    packA(w1.data(), s.c, false, s.e, s.c, p1.data());
    packA(w3.data(), s.e, false, s.p, s.e, p3.data());
    InvertedResidualWeights wt;
    wt.w1 = p1.data(), wt.b1 = b1.data(), wt.dw = dw.data();
    wt.b2 = b2.data(), wt.w3 = p3.data(), wt.b3 = b3.data();
    wt.e1 = e1, wt.e2 = e2, wt.e3 = e3, wt.residual = residual;
    int64_t rows = invertedResidualStripRows(s, invertedResidualCacheBytes());
    int64_t units = invertedResidualUnits(s, rows);
    for (auto _ : state) {
      invertedResidual(s, wt, x.data(), y.data(), rows, 0, units, isa);
      benchmark::ClobberMemory();
    }
    state.counters["strip"] = double(rows);
  } else {
    Pointwise expand(s.c, s.e, s.h, w1), project(s.e, s.p, s.oh, w3);
    Conv2dShape ds = s.depthwiseShape();
    std::vector<float> t(static_cast<size_t>(s.e * s.h * s.w)),
        u(static_cast<size_t>(s.e * s.oh * s.ow));
    e1.biasMode = e2.biasMode = e3.biasMode = BiasMode::PerRow;
    e1.bias = b1.data(), e2.bias = b2.data(), e3.bias = b3.data();
    e3.residual = residual, e3.ldr = s.oh * s.ow;
    for (auto _ : state) {
      expand.run(x.data(), e1, t.data(), isa);
      conv2dDepthwise(ds, t.data(), dw.data(), e2, u.data(), 0, s.e, isa);
      project.run(u.data(), e3, y.data(), isa);
      benchmark::ClobberMemory();
    }
  }
  state.counters["x"] = double(b.count);
  state.SetLabel("mnv2 " + std::to_string(s.c) + "->" + std::to_string(s.e) +
                 "->" + std::to_string(s.p) + " s" + std::to_string(s.stride) +
                 " @" + std::to_string(s.h) + (b.residual ? " +res " : " ") +
                 (fused ? "fused " : "separate ") + isaName(isa));
}

void invResArgs(benchmark::internal::Benchmark *b) {
  for (int isa : {2, 1, 0})
    for (int64_t i = 0; i < int64_t(std::size(kBlocks)); ++i)
      for (int fused : {0, 1})
        b->Args({i, fused, isa});
}

BENCHMARK(BM_InvRes)
    ->Apply(invResArgs)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime();

} // namespace
