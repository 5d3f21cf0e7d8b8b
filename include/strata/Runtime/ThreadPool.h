//===- ThreadPool.h - Runs a dispatch's workgroups in parallel --*- C++ -*-===//
//
// A fixed pool: `threads - 1` workers plus the calling thread. parallelFor
// hands out the indices 0..count-1 one at a time to whichever thread is free
// (the calling thread takes its share) and returns when all are done. One
// parallelFor at a time per pool (a session runs one dispatch after the
// other).
//
// A session's dispatches follow each other within microseconds, so waking a
// sleeping worker (a futex system call, then the kernel scheduling it) for
// each one would cost more than many of them compute. A worker that finishes
// spins (with `pause`) for a while before it sleeps, and the caller joins by
// spinning for a while before it sleeps, as ONNX Runtime's and Eigen's pools
// do; publishing a job or finishing the last index makes a system call only
// when a thread is asleep. The spin time is `STRATA_THREAD_SPIN_US`
// (microseconds, default kDefaultSpinMicros; 0: sleep at once).
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
  /// How long a thread spins for work (a worker) or for the last index (the
  /// caller) before it sleeps, when STRATA_THREAD_SPIN_US is not set.
  static constexpr int64_t kDefaultSpinMicros = 100;

  /// `threads` == 0: one per hardware core. `spinMicros` < 0: from
  /// STRATA_THREAD_SPIN_US, else kDefaultSpinMicros.
  explicit ThreadPool(size_t threads, int64_t spinMicros = -1);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  size_t threadCount() const { return workers.size() + 1; }
  int64_t spinMicros() const { return spinNanos / 1000; }

  /// Calls fn(i) for every i in [0, count), spread over the threads.
  void parallelFor(int64_t count, const std::function<void(int64_t)> &fn);

private:
  using Fn = std::function<void(int64_t)>;
  /// A published job. Two slots, by job number parity: a worker that read
  /// job J's number late may read the slot while job J+1's is written into
  /// the other one; it only runs an index it claimed with J's tag (below),
  /// which the caller no longer hands out once J is done.
  struct Job {
    std::atomic<const Fn *> fn{nullptr};
    std::atomic<int64_t> count{0};
  };

  void workerLoop();
  /// Waits (spin, then sleep) until the job number differs from `seen` or
  /// the pool stops; returns the job number.
  uint64_t waitForJob(uint64_t seen);
  /// Claims and runs indices of job `number` until none is left.
  void runShare(uint64_t number);

  std::vector<std::thread> workers;
  int64_t spinNanos;
  Job jobs[2];
  uint64_t lastJob = 0;           ///< the caller's count of jobs
  std::atomic<uint64_t> epoch{0}; ///< the current job's number
  /// The next index to hand out, tagged: (job number mod 2^32) << 32 | index.
  std::atomic<uint64_t> next{0};
  std::atomic<int64_t> finished{0}; ///< indices of the current job done
  std::atomic<bool> stopping{false};
  std::mutex mutex;
  std::condition_variable wake, done;
  std::atomic<int> sleepers{0};            ///< workers asleep on `wake`
  std::atomic<bool> callerSleeping{false}; ///< the caller asleep on `done`
};

} // namespace strata::runtime

#endif // STRATA_RUNTIME_THREADPOOL_H
