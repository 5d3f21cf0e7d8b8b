//===- Session.h - Runs a model ---------------------------------*- C++ -*-===//
//
// A session holds what one run needs besides the model: the inputs (copied),
// the arena, the outputs and a thread pool. run() picks the variant whose
// input shapes equal the inputs' and calls its dispatches in order.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_RUNTIME_SESSION_H
#define STRATA_LIB_RUNTIME_SESSION_H

#include "Model.h"
#include "strata/Runtime/ThreadPool.h"

namespace strata::runtime {

/// 64-byte aligned host memory that only grows.
class AlignedBytes {
public:
  AlignedBytes() = default;
  ~AlignedBytes();
  AlignedBytes(const AlignedBytes &) = delete;
  AlignedBytes &operator=(const AlignedBytes &) = delete;
  AlignedBytes(AlignedBytes &&other) noexcept;
  bool reserve(uint64_t size);
  uint8_t *data() const { return ptr; }

private:
  uint8_t *ptr = nullptr;
  uint64_t capacity = 0;
};

class Session {
public:
  Session(const Model &model, size_t threads);

  Error setInput(size_t index, uint8_t dtype, const int64_t *dims,
                 size_t rank, const void *data, uint64_t size);
  Error run();
  Error output(size_t index, strata_tensor_view &view) const;
  size_t threadCount() const { return pool.threadCount(); }
  const Model &modelRef() const { return model; }

private:
  struct Input {
    bool set = false;
    std::vector<int64_t> shape;
    AlignedBytes bytes;
  };
  struct Output {
    std::vector<int64_t> shape;
    uint64_t size = 0;
    AlignedBytes bytes;
  };
  /// Reads and checks the dims of runtime shape `r` after `dispatch` ran.
  Error readRuntimeShape(const VariantPlan &variant, uint32_t r,
                         size_t dispatch);

  const Model &model;
  ThreadPool pool;
  std::vector<Input> inputs;
  std::vector<Output> outputs;
  AlignedBytes arena;
  bool ran = false;
  std::vector<void *> bindings; ///< scratch
  /// The run's shape table: the dims of each of the variant's runtime
  /// shapes, read after the dispatch that decides them.
  std::vector<std::vector<int64_t>> runtimeDims;
};

} // namespace strata::runtime

#endif // STRATA_LIB_RUNTIME_SESSION_H
