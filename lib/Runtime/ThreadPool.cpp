//===- ThreadPool.cpp - Runs a dispatch's workgroups in parallel ----------===//

#include "strata/Runtime/ThreadPool.h"

namespace strata::runtime {

ThreadPool::ThreadPool(size_t threads) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  for (size_t i = 1; i < threads; ++i)
    workers.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &t : workers)
    t.join();
}

void ThreadPool::drain(const std::function<void(int64_t)> &fn,
                       int64_t count) {
  for (int64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1))
    fn(i);
}

void ThreadPool::workerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    wake.wait(lock, [&] { return stopping || generation != seen; });
    if (stopping)
      return;
    seen = generation;
    // A job already finished (cleared) is not this worker's: it must not
    // touch `next`, which may belong to the following job.
    if (!job)
      continue;
    const std::function<void(int64_t)> *fn = job;
    int64_t count = jobCount;
    ++busy; // parallelFor does not return (and clear the job) before --busy
    lock.unlock();
    drain(*fn, count);
    lock.lock();
    if (--busy == 0)
      done.notify_all();
  }
}

void ThreadPool::parallelFor(int64_t count,
                             const std::function<void(int64_t)> &fn) {
  if (count <= 0)
    return;
  if (workers.empty() || count == 1) {
    for (int64_t i = 0; i < count; ++i)
      fn(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    job = &fn;
    jobCount = count;
    next.store(0);
    ++generation;
  }
  wake.notify_all();
  drain(fn, count);
  // Every index is taken; wait for the workers still running one.
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock, [&] { return busy == 0; });
  job = nullptr; // under the lock: a late worker sees no job
  jobCount = 0;
}

} // namespace strata::runtime
