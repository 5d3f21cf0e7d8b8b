//===- MemoryPlan.h - static arena planning by liveness ---------*- C++ -*-===//
//
// Places the intermediate tensors of a compiled model in one arena: two
// tensors share bytes only when their lifetimes do not overlap. The planner
// is target-independent and MLIR-free (the CPU and NPU targets both use it).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TARGET_MEMORYPLAN_H
#define STRATA_TARGET_MEMORYPLAN_H

#include <cstdint>
#include <string>
#include <vector>

namespace strata::plan {

/// One tensor to place: its size in bytes and the steps (dispatch numbers)
/// of its first write and last read, inclusive. A tensor written by step s
/// and last read by step s (or never read) has first == last == s.
struct Lifetime {
  uint64_t size = 0;
  uint32_t first = 0;
  uint32_t last = 0;
};

struct ArenaPlan {
  std::vector<uint64_t> offsets; ///< one per Lifetime, multiples of alignment
  uint64_t arenaSize = 0;        ///< the peak: bytes the arena needs
  uint64_t totalSize = 0;        ///< sum of all (aligned) sizes: no reuse
};

/// Greedy by size (largest first), each at the lowest aligned offset that
/// no already-placed tensor with an overlapping lifetime occupies. Returns
/// false with `error` set when a size or offset would overflow.
bool planArena(const std::vector<Lifetime> &tensors, uint64_t alignment,
               ArenaPlan &plan, std::string &error);

} // namespace strata::plan

#endif // STRATA_TARGET_MEMORYPLAN_H
