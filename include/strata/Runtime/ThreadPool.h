//===- ThreadPool.h - Runs a dispatch's workgroups in parallel --*- C++ -*-===//
//
// A fixed pool: `threads - 1` workers plus the calling thread. parallelFor
// hands out the indices 0..count-1 one at a time to whichever thread is free
// and returns when all are done. One parallelFor at a time per pool (a
// session runs one dispatch after the other).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_RUNTIME_THREADPOOL_H
#define STRATA_RUNTIME_THREADPOOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::runtime {

class ThreadPool {
public:
  /// `threads` == 0: one per hardware core.
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  size_t threadCount() const { return workers.size() + 1; }

  /// Calls fn(i) for every i in [0, count), spread over the threads.
  void parallelFor(int64_t count, const std::function<void(int64_t)> &fn);

private:
  void workerLoop();
  void drain(const std::function<void(int64_t)> &fn, int64_t count);

  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake, done;
  const std::function<void(int64_t)> *job = nullptr;
  int64_t jobCount = 0;
  std::atomic<int64_t> next{0};
  size_t busy = 0;        ///< workers inside the current job
  uint64_t generation = 0;
  bool stopping = false;
};

} // namespace strata::runtime

#endif // STRATA_RUNTIME_THREADPOOL_H
