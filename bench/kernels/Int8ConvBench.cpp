//===- Int8ConvBench.cpp - int8 GEMM and convolution GMAC/s per path ------===//
//
// The int8 kernels (strata/Kernels/Int8Gemm.h) on ResNet-50's convolution
// shapes and a pre-packed GEMM, each int8 path this CPU runs, 1 thread:
// GMAC/s over the process's CPU time (the per-core efficiency on a shared
// machine), requantizing to int8 as a compiled model does.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Int8Gemm.h"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

using namespace strata::kernels;

namespace {

std::vector<int8_t> randomBytes(size_t n, int lo, int hi) {
  std::mt19937 gen(1);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = int8_t(d(gen));
  return v;
}

Conv2dShape shape(int64_t c, int64_t h, int64_t o, int64_t k, int64_t stride,
                  int64_t pad) {
  Conv2dShape s;
  s.c = c, s.h = s.w = h, s.o = o, s.kh = s.kw = k;
  s.sh = s.sw = stride, s.pt = s.pl = s.pb = s.pr = pad;
  s.oh = s.ow = (h + 2 * pad - k) / stride + 1;
  return s;
}

/// A layer's random input, its packed random weight (multiplier 2^30, the
/// given shift), zero corrections, a relu epilogue to int8 and the output.
struct Layer {
  std::vector<int8_t> x, y;
  std::vector<uint8_t> blob;
  uint8_t *packed = nullptr;
  std::vector<int32_t> corr;
  Int8Epilogue e;
  Layer(const Conv2dShape &s, Int8WeightKind kind, int64_t shift)
      : x(randomBytes(size_t(s.c * s.h * s.w), -128, 127)),
        y(size_t(s.o * s.oh * s.ow)), corr(size_t(s.o), 0) {
    int64_t k = kind == Int8WeightKind::Depthwise ? s.kh * s.kw : s.gemmK();
    std::vector<int8_t> w = randomBytes(size_t(s.o * k), -127, 127);
    Int8PackedLayout l = int8PackedLayout(kind, s, 0, 0);
    blob.resize(l.totalBytes + 64);
    packed = blob.data() + (64 - uintptr_t(blob.data()) % 64) % 64;
    std::vector<int64_t> m(size_t(s.o), 1 << 30), sh(size_t(s.o), shift);
    int8PackWeight(kind, s, 0, 0, false, w.data(), m.data(), sh.data(), s.o,
                   packed, int8ConvTapMajor(s));
    e.corr = corr.data();
    e.relu = true;
    e.multiplier =
        reinterpret_cast<const int32_t *>(packed + l.multiplierOffset);
    e.shift = reinterpret_cast<const int32_t *>(packed + l.shiftOffset);
  }
};

void BM_Int8Conv(benchmark::State &state) {
  Conv2dShape s = shape(state.range(0), state.range(1), state.range(2),
                        state.range(3), state.range(4), state.range(5));
  auto path = Int8Path(state.range(6));
  if (!int8PathSupported(path)) {
    state.SkipWithError("this CPU does not run this path");
    return;
  }
  Layer L(s, Int8WeightKind::ConvFilter, 40);
  const uint8_t *packed = L.packed;
  const Int8Epilogue &e = L.e;
  std::vector<int8_t> &x = L.x, &y = L.y;
  Int8Input in{false, -3};
  // One workgroup: what the runtime runs on one thread.
  int64_t units = conv2dGemmUnits(s, 1);
  for (auto _ : state) {
    int8Conv2dGemm(s, in, x.data(), packed, e, y.data(), 1, 0, units,
                   int8ConvTapMajor(s), path);
    benchmark::ClobberMemory();
  }
  double macs = double(s.o) * double(s.gemmK()) * double(s.oh * s.ow);
  state.counters["GMAC/s"] = benchmark::Counter(
      macs * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(int8PathName(path));
}

void convShapes(benchmark::internal::Benchmark *b) {
  // C, H, O, K, stride, pad: ResNet-50 (v1.5).
  const int64_t shapes[][6] = {{3, 224, 64, 7, 2, 3},   // stem
                               {64, 56, 64, 3, 1, 1},   // conv2_x 3x3
                               {64, 56, 256, 1, 1, 0},  // conv2_x 1x1 expand
                               {256, 56, 64, 1, 1, 0},  // conv2_x 1x1 reduce
                               {128, 56, 128, 3, 2, 1}, // conv3_1 3x3 stride 2
                               {128, 28, 128, 3, 1, 1}, // conv3_x 3x3
                               {256, 14, 256, 3, 1, 1}, // conv4_x 3x3
                               {512, 7, 512, 3, 1, 1},  // conv5_x 3x3
                               // The other ResNet-50 layers (every shape).
                               {256, 56, 128, 1, 1, 0},
                               {256, 56, 512, 1, 2, 0},
                               {512, 28, 128, 1, 1, 0},
                               {128, 28, 512, 1, 1, 0},
                               {512, 28, 256, 1, 1, 0},
                               {256, 28, 256, 3, 2, 1},
                               {512, 28, 1024, 1, 2, 0},
                               {1024, 14, 256, 1, 1, 0},
                               {256, 14, 1024, 1, 1, 0},
                               {1024, 14, 512, 1, 1, 0},
                               {512, 14, 512, 3, 2, 1},
                               {1024, 14, 2048, 1, 2, 0},
                               {2048, 7, 512, 1, 1, 0},
                               {512, 7, 2048, 1, 1, 0},
                               // MobileNetV2's 7 x 7 pointwise layers.
                               {160, 7, 960, 1, 1, 0},
                               {960, 7, 160, 1, 1, 0},
                               {960, 7, 320, 1, 1, 0},
                               {320, 7, 1280, 1, 1, 0}};
  for (int path : {2, 1, 0})
    for (auto &s : shapes)
      b->Args({s[0], s[1], s[2], s[3], s[4], s[5], path});
}

BENCHMARK(BM_Int8Conv)
    ->Apply(convShapes)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

/// The depthwise convolution on MobileNetV2's shapes (C, H, stride; 3x3,
/// pad 1), requantized to int8 as a compiled model does: outputs per second.
void BM_Int8Depthwise(benchmark::State &state) {
  Conv2dShape s = shape(state.range(0), state.range(1), state.range(0), 3,
                        state.range(2), 1);
  s.g = s.c;
  auto path = Int8Path(state.range(3));
  if (!int8PathSupported(path)) {
    state.SkipWithError("this CPU does not run this path");
    return;
  }
  Layer L(s, Int8WeightKind::Depthwise, 36);
  const uint8_t *packed = L.packed;
  const Int8Epilogue &e = L.e;
  std::vector<int8_t> &x = L.x, &y = L.y;
  Int8Input in{false, -3};
  for (auto _ : state) {
    int8Conv2dDepthwise(s, in, x.data(),
                        reinterpret_cast<const int8_t *>(packed), e, y.data(),
                        0, s.o, path);
    benchmark::ClobberMemory();
  }
  state.counters["Goutputs/s"] =
      benchmark::Counter(double(s.o * s.oh * s.ow) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(int8PathName(path));
}

BENCHMARK(BM_Int8Depthwise)
    ->ArgsProduct({{32}, {112}, {1}, {2}})
    ->Args({96, 112, 2, 2})
    ->Args({144, 56, 1, 2})
    ->Args({144, 56, 2, 2})
    ->Args({192, 28, 1, 2})
    ->Args({192, 28, 2, 2})
    ->Args({384, 14, 1, 2})
    ->Args({576, 14, 1, 2})
    ->Args({576, 14, 2, 2})
    ->Args({960, 7, 1, 2})
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime();

/// The microkernel's ceiling: a GEMM with both operands pre-packed, one K
/// block, int32 output.
void BM_Int8GemmPacked(benchmark::State &state) {
  auto path = Int8Path(state.range(0));
  if (!int8PathSupported(path)) {
    state.SkipWithError("this CPU does not run this path");
    return;
  }
  int64_t m = 96, n = 256, k = 1024;
  std::vector<int8_t> a = randomBytes(size_t(m * k), -128, 127),
                      b = randomBytes(size_t(k * n), -127, 127);
  std::vector<uint8_t> ap(int8PackedABytes(m, k)), bp(int8PackedBBytes(k, n));
  int8PackA(a.data(), k, m, k, ap.data());
  int8PackB(b.data(), n, false, k, n, bp.data());
  std::vector<int32_t> c(size_t(m * n));
  Int8GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.aPacked = ap.data();
  p.bPacked = bp.data();
  p.c = c.data();
  p.ldc = n;
  p.epilogue.out = Int8Output::Int32;
  for (auto _ : state) {
    int8Gemm(p, 0, m, 0, n, path);
    benchmark::ClobberMemory();
  }
  state.counters["GMAC/s"] = benchmark::Counter(
      double(m * n * k) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(int8PathName(path));
}

BENCHMARK(BM_Int8GemmPacked)
    ->DenseRange(0, 2)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

} // namespace

BENCHMARK_MAIN();
