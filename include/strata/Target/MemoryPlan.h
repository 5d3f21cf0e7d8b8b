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
///
/// `inPlaceOf` names another tensor this one may be written over (-1: none):
/// the step writing this tensor reads that one for the last time and may
/// write each byte after reading it (an elementwise op). The hint holds only
/// when that tensor's last step is this one's first and their aligned sizes
/// are equal, and only one tensor may take each; the planner ignores a hint
/// that does not hold, and gives the two tensors the same offset otherwise.
struct Lifetime {
  uint64_t size = 0;
  uint32_t first = 0;
  uint32_t last = 0;
  int64_t inPlaceOf = -1;
};

struct ArenaPlan {
  std::vector<uint64_t> offsets; ///< one per Lifetime, multiples of alignment
  uint64_t arenaSize = 0;        ///< the peak: bytes the arena needs
  uint64_t totalSize = 0;        ///< sum of all (aligned) sizes: no reuse
  uint64_t inPlace = 0;          ///< in-place hints taken
};

/// Greedy by size (largest first), each at the lowest aligned offset that
/// no already-placed tensor with an overlapping lifetime occupies; a chain
/// of tensors written in place of each other is placed as one tensor alive
/// from the first one's write to the last one's last read. Returns
/// false with `error` set when a size or offset would overflow.
bool planArena(const std::vector<Lifetime> &tensors, uint64_t alignment,
               ArenaPlan &plan, std::string &error);

} // namespace strata::plan

#endif // STRATA_TARGET_MEMORYPLAN_H
