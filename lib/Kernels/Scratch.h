//===- Scratch.h - per-thread packing buffers of the kernels ----*- C++ -*-===//
//
// Internal to the kernel library.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_KERNELS_SCRATCH_H
#define STRATA_LIB_KERNELS_SCRATCH_H

#include <cstddef>
#include <cstdlib>

namespace strata::kernels::detail {

/// A growable 64-byte-aligned buffer; the kernels keep one per thread and
/// use (thread_local).
class Scratch {
public:
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch() { std::free(ptr); }

  /// At least `bytes` bytes (the previous contents are not kept).
  void *get(size_t bytes) {
    if (bytes > cap) {
      std::free(ptr);
      cap = (bytes + 63) / 64 * 64;
      ptr = std::aligned_alloc(64, cap);
      if (!ptr) {
        cap = 0;
        std::abort(); // out of memory while running a kernel
      }
    }
    return ptr;
  }
  template <typename T> T *get(size_t count) {
    return static_cast<T *>(get(count * sizeof(T)));
  }

private:
  void *ptr = nullptr;
  size_t cap = 0;
};

} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_SCRATCH_H
