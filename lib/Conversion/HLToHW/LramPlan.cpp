//===- LramPlan.cpp - the LRAM allocator of the HL -> HW lowering ---------===//
//
// A bump allocator with the NPU description's alignment; the exact fit check
// of the tiling (docs/npu.md, "HL -> HW").
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/HLToHW/Passes.h"

using namespace strata;
using namespace strata::conversion;

LramAllocator::LramAllocator(const npu::NpuConfig &config)
    : capacity(config.lramBytes), alignment(config.lramAlignment) {}

int64_t LramAllocator::aligned(int64_t bytes) const {
  return (bytes + alignment - 1) / alignment * alignment;
}

void LramAllocator::reserve(int64_t begin, int64_t end) {
  reserved.push_back({begin, end});
}

std::optional<int64_t> LramAllocator::allocate(int64_t bytes) {
  if (bytes < 0)
    return std::nullopt;
  // Past every reserved range the buffer would overlap.
  for (bool moved = true; moved;) {
    moved = false;
    for (auto [b, e] : reserved)
      if (top < e && top + bytes > b) {
        top = aligned(e);
        moved = true;
      }
  }
  if (top + bytes > capacity)
    return std::nullopt;
  int64_t address = top;
  top = std::min(capacity, aligned(top + bytes));
  return address;
}
