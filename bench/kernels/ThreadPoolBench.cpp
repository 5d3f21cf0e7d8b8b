//===- ThreadPoolBench.cpp - The runtime pool's fork/join cost -----------===//
//
// What one dispatch pays the runtime's ThreadPool (lib/Runtime/ThreadPool.cpp)
// to run its workgroups on the session's threads. Each iteration is one
// simulated dispatch: the calling thread first does `gap` ns of serial work
// (the session binding the next dispatch, or a one-workgroup dispatch run
// inline), then parallelFor(parts, fn) where each part busy-waits `work` ns.
// Counters:
//   - overhead_us: the wall time per iteration over the ideal (gap + the
//     parts' work spread evenly over the threads): fork, wake, join;
//   - cpu_us: the process's CPU time (all threads, getrusage) per iteration,
//     which shows what spinning costs;
//   - ctxsw: voluntary context switches (all threads) per iteration: a
//     sleep-and-wake per dispatch shows as about 2.
// Each case runs with the pool's default spin and with none (`spin_us` 0:
// sleep at once, as the pool did before it spun). Real time is what matters
// (UseRealTime). On a machine shared with other
// jobs the overheads include being descheduled: compare runs taken together.
//
//===----------------------------------------------------------------------===//

#include "strata/Runtime/ThreadPool.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <sys/resource.h>

using strata::runtime::ThreadPool;

namespace {

using Clock = std::chrono::steady_clock;

/// Busy work for `ns` nanoseconds of wall time.
void busy(int64_t ns) {
  if (ns <= 0)
    return;
  auto end = Clock::now() + std::chrono::nanoseconds(ns);
  while (Clock::now() < end) {
  }
}

struct Usage {
  double cpuUs = 0;
  double switches = 0;
};

Usage usage() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  Usage u;
  u.cpuUs = double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 +
            double(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
  u.switches = double(r.ru_nvcsw);
  return u;
}

/// Args: threads, parts, work ns per part, gap ns before each dispatch,
/// the pool's spin time in us (0: its threads sleep at once).
void BM_ForkJoin(benchmark::State &state) {
  int64_t threads = state.range(0), parts = state.range(1);
  int64_t work = state.range(2), gap = state.range(3);
  ThreadPool pool{size_t(threads), state.range(4)};
  auto fn = [&](int64_t) { busy(work); };
  // Warm the workers up (thread start, first wake).
  for (int i = 0; i < 10; ++i)
    pool.parallelFor(parts, fn);
  Usage before = usage();
  auto start = Clock::now();
  for (auto _ : state) {
    busy(gap);
    pool.parallelFor(parts, fn);
  }
  double wallUs =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  Usage after = usage();
  double iters = double(state.iterations());
  int64_t rounds = (parts + threads - 1) / threads;
  double idealUs = double(gap + rounds * work) / 1e3;
  state.counters["overhead_us"] = wallUs / iters - idealUs;
  state.counters["cpu_us"] = (after.cpuUs - before.cpuUs) / iters;
  state.counters["ctxsw"] = (after.switches - before.switches) / iters;
}

void forkJoinArgs(benchmark::internal::Benchmark *b) {
  // An empty dispatch, then dispatches of 2 parts of 10, 50 and 200 us (a
  // MobileNetV2 layer is ~100 us, a ResNet-50 one ~600 us), each right
  // after the previous one and after 100 us / 1 ms of serial work (the
  // workers may have gone to sleep by then).
  // Each with the default spin and without spinning, one after the other.
  for (int64_t gap : {0, 100000, 1000000})
    for (int64_t work : {0, 10000, 50000, 200000})
      for (int64_t spin : {ThreadPool::kDefaultSpinMicros, int64_t(0)})
        b->Args({2, 2, work, gap, spin});
  // Uneven: 3 parts on 2 threads.
  b->Args({2, 3, 50000, 0, ThreadPool::kDefaultSpinMicros});
  // One thread: the inline path, for reference.
  b->Args({1, 2, 10000, 0, 0});
  b->ArgNames({"threads", "parts", "work_ns", "gap_ns", "spin_us"});
  b->UseRealTime();
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_ForkJoin)->Apply(forkJoinArgs);

} // namespace

BENCHMARK_MAIN();
