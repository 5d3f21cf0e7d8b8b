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

void ThreadPool::drain() {
  for (int64_t i = next.fetch_add(1); i < jobCount; i = next.fetch_add(1))
    (*job)(i);
}

void ThreadPool::workerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    wake.wait(lock, [&] { return stopping || generation != seen; });
    if (stopping)
      return;
    seen = generation;
    ++busy;
    lock.unlock();
    drain();
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
  drain();
  // Every index is taken; wait for the workers still running one.
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock, [&] { return busy == 0; });
  job = nullptr;
  jobCount = 0;
}

} // namespace strata::runtime
