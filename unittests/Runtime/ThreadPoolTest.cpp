//===- ThreadPoolTest.cpp - Every index runs exactly once -----------------===//

#include "strata/Runtime/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

using strata::runtime::ThreadPool;

namespace {

/// Runs `rounds` jobs of 0 to `maxCount` indices back to back and checks
/// that each index ran exactly once: a worker waking late for a finished job
/// must neither run nor take an index of the next one. With `slowEvery`,
/// every that many rounds one index gets a little work, so that a thread
/// finishes late now and then.
void expectEveryIndexOnce(ThreadPool &pool, int64_t rounds, int64_t maxCount,
                          int64_t slowEvery, const std::string &what) {
  for (int64_t round = 0; round < rounds; ++round) {
    int64_t count = round % (maxCount + 1);
    auto hits = std::make_unique<std::atomic<int>[]>(size_t(count) + 1);
    for (int64_t i = 0; i <= count; ++i)
      hits[size_t(i)] = 0;
    int64_t slow = slowEvery && round % slowEvery == 0 ? round % 3 : -1;
    pool.parallelFor(count, [&](int64_t i) {
      if (i == slow)
        for (volatile int k = 0; k < 2000; ++k) {
        }
      hits[size_t(i)]++;
    });
    for (int64_t i = 0; i < count; ++i)
      ASSERT_EQ(hits[size_t(i)].load(), 1)
          << what << " round " << round << " index " << i;
  }
}

TEST(ThreadPool, EveryIndexOnceOverManyJobs) {
  for (size_t threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threadCount(), threads);
    expectEveryIndexOnce(pool, 2000, 6, 0,
                         "threads " + std::to_string(threads));
  }
}

TEST(ThreadPool, EveryIndexOnceWhateverTheSpin) {
  // 0: every thread sleeps at once; 1 us: threads move between spinning
  // and sleeping all the time; 1 ms: they mostly spin.
  for (int64_t spin : {0, 1, 1000}) {
    for (size_t threads : {2, 3}) {
      ThreadPool pool(threads, spin);
      EXPECT_EQ(pool.spinMicros(), spin);
      expectEveryIndexOnce(pool, 3000, 5, 5,
                           "spin " + std::to_string(spin) + " threads " +
                               std::to_string(threads));
    }
  }
}

TEST(ThreadPool, ReturnsOnlyAfterTheLastIndex) {
  // The caller sleeps (no spin) while a worker still runs an index: it must
  // be woken when that index finishes, and not return before.
  ThreadPool pool(2, 0);
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> done{0};
    pool.parallelFor(2, [&](int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      done++;
    });
    ASSERT_EQ(done.load(), 2) << "round " << round;
  }
}

TEST(ThreadPool, ZeroMeansOnePerCore) {
  ThreadPool pool(0);
  EXPECT_GE(pool.threadCount(), 1u);
}

} // namespace

TEST(ThreadPool, SpinFromTheEnvironment) {
  // STRATA_THREAD_SPIN_US (docs/runtime.md): microseconds, capped at one
  // second; a value that is not a whole non-negative number keeps the
  // default.
  struct Case {
    const char *value;
    int64_t spin;
  };
  const int64_t d = ThreadPool::kDefaultSpinMicros;
  for (Case c :
       {Case{"0", 0}, Case{"250", 250}, Case{"", d}, Case{"abc", d},
        Case{"12x", d}, Case{"-5", d}, Case{"99999999999999999999999", 1000000},
        Case{"5000000", 1000000}}) {
    ASSERT_EQ(setenv("STRATA_THREAD_SPIN_US", c.value, 1), 0);
    ThreadPool pool(2);
    EXPECT_EQ(pool.spinMicros(), c.spin) << "'" << c.value << "'";
  }
  unsetenv("STRATA_THREAD_SPIN_US");
  EXPECT_EQ(ThreadPool(2).spinMicros(), d);
  EXPECT_EQ(ThreadPool(2, 7).spinMicros(), 7);
}
