//===- RandomInputs.cpp - seeded random inputs for a model ----------------===//

#include "strata/Pipelines/RandomInputs.h"

#include <algorithm>

namespace strata {

namespace {
/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, fully specified.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi), hi > lo (modulo bias is below 2^-40 for ranges
  /// under 2^24, far below what matters here).
  int64_t range(int64_t lo, int64_t hi) {
    uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + next() % span);
  }

private:
  uint64_t state;
};
} // namespace

/// The smallest and one past the largest value of an integer dtype, cut to
/// int64.
static std::pair<int64_t, int64_t> intTypeRange(DType type) {
  unsigned bits = intBitWidth(type);
  if (isUnsignedInt(type))
    return {0, bits >= 63 ? INT64_MAX : (int64_t(1) << bits)};
  if (bits >= 64)
    return {INT64_MIN, INT64_MAX};
  return {-(int64_t(1) << (bits - 1)), int64_t(1) << (bits - 1)};
}

static Tensor randomTensor(const InputSpec &spec, SplitMix64 &rng) {
  Tensor t(spec.dtype, spec.shape);
  int64_t n = t.numElements();
  if (spec.dtype == DType::Bool) {
    for (int64_t i = 0; i < n; ++i)
      t.data<uint8_t>()[i] = rng.next() >> 63;
    return t;
  }
  if (isFloat(spec.dtype)) {
    for (int64_t i = 0; i < n; ++i)
      t.setFromDouble(i, 2.0 * rng.unit() - 1.0);
    return t;
  }
  auto [typeLo, typeHi] = intTypeRange(spec.dtype);
  int64_t lo = 0, hi = kDefaultIntHi;
  if (spec.indexRange) {
    lo = spec.indexRange->lo;
    hi = spec.indexRange->hi;
  }
  lo = std::max(lo, typeLo);
  hi = std::min(hi, typeHi);
  if (hi <= lo) // callers reject empty index ranges; keep the type's zero
    return t;
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = rng.range(lo, hi);
    if (spec.dtype == DType::I64)
      t.data<int64_t>()[i] = v;
    else if (spec.dtype == DType::U64)
      t.data<uint64_t>()[i] = static_cast<uint64_t>(v);
    else
      t.setFromDouble(i, static_cast<double>(v));
  }
  return t;
}

TensorMap randomInputs(const std::vector<InputSpec> &specs, uint64_t seed) {
  SplitMix64 rng(seed);
  TensorMap inputs;
  for (const InputSpec &spec : specs)
    inputs.set(spec.name, randomTensor(spec, rng));
  return inputs;
}

} // namespace strata
