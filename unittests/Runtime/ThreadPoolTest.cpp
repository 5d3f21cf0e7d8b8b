//===- ThreadPoolTest.cpp - Every index runs exactly once -----------------===//

#include "strata/Runtime/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

using strata::runtime::ThreadPool;

namespace {

TEST(ThreadPool, EveryIndexOnceOverManyJobs) {
  for (size_t threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threadCount(), threads);
    // Many short jobs back to back: a worker waking late for a finished job
    // must neither run nor take an index of the next one.
    for (int64_t round = 0; round < 2000; ++round) {
      int64_t count = round % 7;
      auto hits = std::make_unique<std::atomic<int>[]>(size_t(count) + 1);
      for (int64_t i = 0; i <= count; ++i)
        hits[size_t(i)] = 0;
      pool.parallelFor(count, [&](int64_t i) { hits[size_t(i)]++; });
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(hits[size_t(i)].load(), 1)
            << "threads " << threads << " round " << round << " index " << i;
    }
  }
}

TEST(ThreadPool, ZeroMeansOnePerCore) {
  ThreadPool pool(0);
  EXPECT_GE(pool.threadCount(), 1u);
}

} // namespace
