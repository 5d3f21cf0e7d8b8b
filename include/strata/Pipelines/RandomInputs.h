//===- RandomInputs.h - seeded random inputs for a model --------*- C++ -*-===//
//
// `strata check-equiv` runs two models on the same inputs. These are drawn
// from a seeded generator whose sequence is fixed by this file alone (a
// SplitMix64 stream, no std::*_distribution, whose output differs between
// standard libraries), so a seed names the same inputs on every machine.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_PIPELINES_RANDOMINPUTS_H
#define STRATA_PIPELINES_RANDOMINPUTS_H

#include "strata/Pipelines/IndexRanges.h"
#include "strata/Support/Npz.h"

#include <optional>
#include <vector>

namespace strata {

/// What an input's random values must look like.
struct InputSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// For integer inputs used as indices: the values the index uses accept.
  std::optional<IndexRange> indexRange;
};

/// The values an integer input without an index use gets: [0, 4), cut to
/// the type's range (int2: [0, 2)).
constexpr int64_t kDefaultIntHi = 4;

/// One tensor per spec, keyed by name, drawn from one stream seeded with
/// `seed` in spec order: floats (f16, bf16, f32, f64 and the FLOAT8/FLOAT4
/// types, rounded) uniform in [-1, 1); bools 0 or 1 with equal odds;
/// integers uniform in their index range, else in [0, kDefaultIntHi).
/// Spec shapes must be valid (checkedNumElements).
TensorMap randomInputs(const std::vector<InputSpec> &specs, uint64_t seed);

} // namespace strata

#endif // STRATA_PIPELINES_RANDOMINPUTS_H
