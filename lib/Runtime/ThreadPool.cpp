//===- ThreadPool.cpp - Runs a dispatch's workgroups in parallel ----------===//

#include "strata/Runtime/ThreadPool.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace strata::runtime {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kIndexBits = 32;
constexpr uint64_t kIndexMask = (uint64_t(1) << kIndexBits) - 1;
/// parallelFor runs larger counts as several jobs.
constexpr int64_t kMaxJobCount = int64_t(kIndexMask);

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

/// Spins until `ready()` or `nanos` have passed; returns whether ready.
template <typename Ready> bool spinUntil(int64_t nanos, Ready ready) {
  if (nanos <= 0)
    return ready();
  auto deadline = Clock::now() + std::chrono::nanoseconds(nanos);
  while (true) {
    // Read the clock once per 32 pauses (a pause is tens of cycles).
    for (int i = 0; i < 32; ++i) {
      if (ready())
        return true;
      cpuRelax();
    }
    if (Clock::now() >= deadline)
      return ready();
  }
}

int64_t spinFromEnvironment() {
  const char *env = std::getenv("STRATA_THREAD_SPIN_US");
  if (!env || !*env)
    return ThreadPool::kDefaultSpinMicros;
  char *end = nullptr;
  long long v = std::strtoll(env, &end, 10);
  // Not a number or negative: the default (the runtime has no channel to
  // report it here; docs/runtime.md says so).
  if (*end || v < 0)
    return ThreadPool::kDefaultSpinMicros;
  return std::min<long long>(v, 1000000); // at most a second
}

} // namespace

ThreadPool::ThreadPool(size_t threads, int64_t spinMicros) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  spinNanos = (spinMicros < 0 ? spinFromEnvironment()
                              : std::min<int64_t>(spinMicros, 1000000)) *
              1000;
  for (size_t i = 1; i < threads; ++i)
    workers.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping.store(true);
  }
  wake.notify_all();
  for (std::thread &t : workers)
    t.join();
}

uint64_t ThreadPool::waitForJob(uint64_t seen) {
  auto changed = [&] { return epoch.load() != seen || stopping.load(); };
  if (!spinUntil(spinNanos, changed)) {
    std::unique_lock<std::mutex> lock(mutex);
    // Counted before the check (both sequentially consistent): a caller
    // that publishes a job after this check sees the sleeper and notifies.
    sleepers.fetch_add(1);
    wake.wait(lock, changed);
    sleepers.fetch_sub(1);
  }
  return epoch.load();
}

void ThreadPool::runShare(uint64_t number) {
  const Job &job = jobs[number & 1];
  const Fn *fn = job.fn.load();
  int64_t count = job.count.load();
  uint64_t tag = (number & kIndexMask) << kIndexBits;
  uint64_t v = next.load();
  while (true) {
    // Another job's tag: this one is done (and `fn`, `count` may be the
    // next one's): claim nothing.
    if ((v & ~kIndexMask) != tag || int64_t(v & kIndexMask) >= count)
      return;
    if (!next.compare_exchange_weak(v, v + 1))
      continue;
    (*fn)(int64_t(v & kIndexMask));
    // The last index: wake the caller if it went to sleep (it sets the
    // flag before it checks `finished`, both sequentially consistent).
    if (finished.fetch_add(1) + 1 == count && callerSleeping.load()) {
      std::lock_guard<std::mutex> lock(mutex);
      done.notify_one();
    }
    v = next.load();
  }
}

void ThreadPool::workerLoop() {
  uint64_t seen = 0;
  while (true) {
    seen = waitForJob(seen);
    if (stopping.load())
      return;
    runShare(seen);
  }
}

void ThreadPool::parallelFor(int64_t count, const Fn &fn) {
  if (count <= 0)
    return;
  if (workers.empty() || count == 1) {
    for (int64_t i = 0; i < count; ++i)
      fn(i);
    return;
  }
  if (count > kMaxJobCount) {
    for (int64_t base = 0; base < count; base += kMaxJobCount) {
      int64_t n = std::min(kMaxJobCount, count - base);
      parallelFor(n, [&](int64_t i) { fn(base + i); });
    }
    return;
  }
  uint64_t number = ++lastJob;
  Job &job = jobs[number & 1];
  job.fn.store(&fn);
  job.count.store(count);
  finished.store(0);
  next.store((number & kIndexMask) << kIndexBits);
  epoch.store(number);
  if (sleepers.load() > 0) {
    // Taking the mutex orders this after a sleeper's check of `epoch`.
    {
      std::lock_guard<std::mutex> lock(mutex);
    }
    wake.notify_all();
  }
  runShare(number);
  // Every index is taken; wait for the workers still running one.
  auto allDone = [&] { return finished.load() == count; };
  if (spinUntil(spinNanos, allDone))
    return;
  std::unique_lock<std::mutex> lock(mutex);
  callerSleeping.store(true);
  done.wait(lock, allDone);
  callerSleeping.store(false);
}

} // namespace strata::runtime
