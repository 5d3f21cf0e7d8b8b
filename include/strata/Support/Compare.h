//===- Compare.h - tensor comparison (tpu-mlir npz_tool rules) --*- C++ -*-===//

#ifndef STRATA_SUPPORT_COMPARE_H
#define STRATA_SUPPORT_COMPARE_H

#include "strata/Support/Tensor.h"

#include <string>

namespace strata {

/// The verdict of comparing two tensors, in tpu-mlir's order: EQUAL (every
/// element identical), CLOSE (allclose with rtol 1e-3 or tighter, atol 1e-8,
/// NaN == NaN), SIMILAR (cosine and euclidean similarity at or above the
/// tolerances), else NOT_SIMILAR; MISMATCH for different shapes or element
/// types. An infinity matches only the same infinity at the same position:
/// any other is NOT_SIMILAR whatever the tolerances.
enum class CompareVerdict { Equal, Close, Similar, NotSimilar, Mismatch };

struct CompareResult {
  CompareVerdict verdict = CompareVerdict::Mismatch;
  double cosine = 0, euclidean = 0, maxAbsError = 0, maxRelError = 0;
  /// Largest k in [3, 5] such that allclose holds with rtol 10^-k (0 if none).
  int closeOrder = 0;
  std::string detail; // why a mismatch failed
  bool passed() const {
    return verdict != CompareVerdict::NotSimilar &&
           verdict != CompareVerdict::Mismatch;
  }
};

const char *verdictName(CompareVerdict v);

/// Compares `actual` against `expected` (values compare as doubles; the
/// element types must be the same).
CompareResult compareTensors(const Tensor &expected, const Tensor &actual,
                             double cosineTol = 0.99,
                             double euclideanTol = 0.99);

} // namespace strata

#endif // STRATA_SUPPORT_COMPARE_H
