//===- GemmBench.cpp - GEMM GFLOP/s per ISA and thread count --------------===//
//
// C[M,N] = A[M,K] * B[K,N] (B pre-packed, as a constant weight is) for
// ResNet-50 and BERT shapes, each ISA this CPU runs, 1 and 2 threads (the
// columns split in two halves, as two workgroups would). Reports GFLOP/s
// and the percentage of STRATA_PEAK_GFLOPS per core (both over the CPU time
// of all threads) (default 117, the f32
// FMA peak of one Zen 4 core here).
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/Gemm.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

using namespace strata::kernels;

namespace {

double peakPerThread() {
  const char *env = std::getenv("STRATA_PEAK_GFLOPS");
  return env ? std::atof(env) : 117.0;
}

std::vector<float> randomVector(size_t n) {
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(gen);
  return v;
}

void runSplit(const GemmProblem &p, Isa isa, int threads) {
  if (threads == 1) {
    gemm(p, 0, p.m, 0, p.n, isa);
    return;
  }
  // Split the larger dimension at a panel boundary.
  if (p.n >= p.m) {
    int64_t mid = (p.n / 2 + 15) / 16 * 16;
    std::thread t([&] { gemm(p, 0, p.m, mid, p.n, isa); });
    gemm(p, 0, p.m, 0, mid, isa);
    t.join();
  } else {
    int64_t mid = (p.m / 2 + 11) / 12 * 12;
    std::thread t([&] { gemm(p, mid, p.m, 0, p.n, isa); });
    gemm(p, 0, mid, 0, p.n, isa);
    t.join();
  }
}

void BM_Gemm(benchmark::State &state) {
  int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  Isa isa = Isa(state.range(3));
  int threads = int(state.range(4));
  bool packA_ = state.range(5) != 0;
  if (!isaSupported(isa)) {
    state.SkipWithError("this CPU does not run this ISA");
    return;
  }
  std::vector<float> a = randomVector(size_t(m * k));
  std::vector<float> b = randomVector(size_t(k * n));
  std::vector<float> bp(packedBBytes(k, n) / 4), ap(packedABytes(m, k) / 4);
  packB(b.data(), n, false, k, n, bp.data());
  packA(a.data(), k, false, m, k, ap.data());
  std::vector<float> c(size_t(m * n));
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  if (packA_) { // a convolution: the filter is A, the columns B
    p.a.data = ap.data();
    p.a.packed = true;
    p.b.data = b.data();
    p.b.ld = n;
  } else { // a matmul: the weight is B
    p.a.data = a.data();
    p.a.ld = k;
    p.b.data = bp.data();
    p.b.packed = true;
  }
  p.c = c.data();
  p.ldc = n;
  for (auto _ : state) {
    runSplit(p, isa, threads);
    benchmark::ClobberMemory();
  }
  double flops = 2.0 * double(m) * double(n) * double(k);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak%"] =
      benchmark::Counter(flops * 1e-9 * 100.0 / peakPerThread(),
                         benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(isaName(isa)) + " " + std::to_string(threads) +
                 "T");
}

void gemmShapes(benchmark::internal::Benchmark *b) {
  // M, N, K, A pre-packed (conv: O x HW x C*KH*KW) or B (matmul).
  const int64_t shapes[][4] = {{64, 3136, 576, 1},  // ResNet-50 conv2_x 3x3
                               {256, 3136, 64, 1},  // conv2_x 1x1 expand
                               {128, 784, 1152, 1}, // conv3_x 3x3
                               {256, 196, 2304, 1}, // conv4_x 3x3
                               {512, 49, 4608, 1},  // conv5_x 3x3
                               {128, 768, 768, 0},  // BERT projection
                               {128, 3072, 768, 0}, // BERT FFN up
                               {128, 768, 3072, 0}, // BERT FFN down
                               {1024, 1024, 1024, 0}};
  for (int isa : {2, 1, 0})
    for (int threads : {1, 2})
      for (auto &s : shapes)
        b->Args({s[0], s[1], s[2], isa, threads, s[3]});
}

// Rates use the process's CPU time (all threads): on a shared machine that
// is the per-core efficiency; wall time is in the Time column.
BENCHMARK(BM_Gemm)
    ->Apply(gemmShapes)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

} // namespace

BENCHMARK_MAIN();
