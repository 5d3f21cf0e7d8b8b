//===- UniqueSlices.h - The distinct slices of ONNX Unique ------*- C++ -*-===//
//
// The one definition of which slices ONNX Unique finds and in which order,
// shared by the reference interpreter (top.Unique) and the runtime's
// `unique` kernel (lib/Runtime/CpuShapeKernels.cpp). Header-only and
// MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_UNIQUESLICES_H
#define STRATA_SUPPORT_UNIQUESLICES_H

#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace strata::unique {

struct Slices {
  /// The input position of each output slice (its first occurrence).
  std::vector<int64_t> order;
  /// Per input position, the output slice holding its value.
  std::vector<int64_t> inverse;
  /// Per output slice, how often it occurs.
  std::vector<int64_t> counts;
};

/// The distinct slices along the middle dim of a `[outer, dim, inner]` view,
/// element `i` of which `read(i)` gives as a double (exact but for 64-bit
/// integers beyond 2^53): sorted ascending, lexicographically, when `sorted`,
/// else in order of first occurrence. A slice compares as (is NaN, value)
/// pairs: NaNs equal to each other and last.
template <typename Read>
Slices findSlices(int64_t outer, int64_t dim, int64_t inner, bool sorted,
                  Read read) {
  using Key = std::vector<std::pair<bool, double>>;
  auto sliceKey = [&](int64_t j) {
    Key key;
    key.reserve(outer * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double v = read((o * dim + j) * inner + i);
        key.emplace_back(std::isnan(v), std::isnan(v) ? 0.0 : v);
      }
    return key;
  };
  std::map<Key, int64_t> firstOf; // key -> first position
  std::vector<int64_t> firstOfPos(dim);
  Slices s;
  for (int64_t j = 0; j < dim; ++j) {
    auto [it, isNew] = firstOf.emplace(sliceKey(j), j);
    if (isNew)
      s.order.push_back(j);
    firstOfPos[j] = it->second;
  }
  if (sorted) {
    s.order.clear();
    for (auto &entry : firstOf)
      s.order.push_back(entry.second);
  }
  std::map<int64_t, int64_t> slotOfFirst;
  for (int64_t r = 0; r < int64_t(s.order.size()); ++r)
    slotOfFirst[s.order[r]] = r;
  s.counts.assign(s.order.size(), 0);
  s.inverse.resize(dim);
  for (int64_t j = 0; j < dim; ++j) {
    s.inverse[j] = slotOfFirst[firstOfPos[j]];
    ++s.counts[s.inverse[j]];
  }
  return s;
}

} // namespace strata::unique

#endif // STRATA_SUPPORT_UNIQUESLICES_H
