//===- MemoryPlan.cpp - static arena planning by liveness -----------------===//
//
// Greedy by size: sorting the tensors by decreasing size and giving each the
// first gap that fits among the placed tensors alive at the same time is the
// heuristic TFLite's arena planner and Pisarchyk & Lee ("Efficient memory
// management for deep neural net inference", 2020) found close to optimal
// on real networks; it is O(n^2) in the number of tensors, which is fine
// for the thousands a model has.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/MemoryPlan.h"

#include <algorithm>
#include <numeric>

namespace strata::plan {

static bool alignUp(uint64_t v, uint64_t alignment, uint64_t &out) {
  uint64_t rem = v % alignment;
  if (rem == 0) {
    out = v;
    return true;
  }
  return !__builtin_add_overflow(v, alignment - rem, &out);
}

bool planArena(const std::vector<Lifetime> &tensors, uint64_t alignment,
               ArenaPlan &plan, std::string &error) {
  if (alignment == 0) {
    error = "memory plan: alignment must be positive";
    return false;
  }
  size_t n = tensors.size();
  plan.offsets.assign(n, 0);
  plan.arenaSize = 0;
  plan.totalSize = 0;
  std::vector<uint64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) {
    if (tensors[i].first > tensors[i].last) {
      error = "memory plan: tensor " + std::to_string(i) +
              " is read before it is written";
      return false;
    }
    if (!alignUp(tensors[i].size, alignment, sizes[i]) ||
        __builtin_add_overflow(plan.totalSize, sizes[i], &plan.totalSize)) {
      error = "memory plan: the tensors' total size overflows 64 bits";
      return false;
    }
  }
  // In-place chains: `head[i]` is the first tensor of i's chain; the chain
  // is placed once, alive over the union of its members' lifetimes.
  std::vector<size_t> head(n);
  std::iota(head.begin(), head.end(), 0);
  std::vector<bool> taken(n, false);
  std::vector<uint32_t> first(n), last(n);
  for (size_t i = 0; i < n; ++i) {
    first[i] = tensors[i].first;
    last[i] = tensors[i].last;
  }
  // Members follow their predecessor in step order (first == predecessor's
  // last), so visiting by first step sees each predecessor's head set.
  std::vector<size_t> byFirst(n);
  std::iota(byFirst.begin(), byFirst.end(), 0);
  std::stable_sort(byFirst.begin(), byFirst.end(), [&](size_t a, size_t b) {
    return tensors[a].first < tensors[b].first;
  });
  plan.inPlace = 0;
  for (size_t i : byFirst) {
    int64_t j = tensors[i].inPlaceOf;
    if (j < 0 || static_cast<uint64_t>(j) >= n || static_cast<size_t>(j) == i ||
        taken[j] || tensors[j].last != tensors[i].first ||
        sizes[j] != sizes[i] || tensors[j].first >= tensors[i].first)
      continue;
    taken[j] = true;
    head[i] = head[j];
    last[head[i]] = std::max(last[head[i]], tensors[i].last);
    ++plan.inPlace;
  }

  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i)
    if (head[i] == i)
      order.push_back(i);
  // Largest first; ties by first use, then index, so plans are reproducible.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b])
      return sizes[a] > sizes[b];
    return first[a] < first[b];
  });

  std::vector<size_t> placed;
  std::vector<std::pair<uint64_t, uint64_t>> busy; // [begin, end) alive now
  for (size_t i : order) {
    busy.clear();
    for (size_t j : placed)
      if (first[j] <= last[i] && first[i] <= last[j])
        busy.push_back({plan.offsets[j], plan.offsets[j] + sizes[j]});
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (const auto &[begin, end] : busy) {
      if (begin >= offset && begin - offset >= sizes[i])
        break; // the gap before this range fits
      offset = std::max(offset, end);
    }
    uint64_t end;
    if (__builtin_add_overflow(offset, sizes[i], &end)) {
      error = "memory plan: the arena size overflows 64 bits";
      return false;
    }
    plan.offsets[i] = offset;
    plan.arenaSize = std::max(plan.arenaSize, end);
    placed.push_back(i);
  }
  for (size_t i = 0; i < n; ++i)
    plan.offsets[i] = plan.offsets[head[i]];
  return true;
}

} // namespace strata::plan
