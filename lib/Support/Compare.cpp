//===- Compare.cpp - tensor comparison (tpu-mlir npz_tool rules) ----------===//

#include "strata/Support/Compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace strata {

const char *verdictName(CompareVerdict v) {
  switch (v) {
  case CompareVerdict::Equal: return "EQUAL";
  case CompareVerdict::Close: return "CLOSE";
  case CompareVerdict::Similar: return "SIMILAR";
  case CompareVerdict::NotSimilar: return "NOT_SIMILAR";
  case CompareVerdict::Mismatch: return "MISMATCH";
  }
  return "?";
}

static bool allClose(const Tensor &e, const Tensor &a, double rtol,
                     double atol) {
  for (int64_t i = 0; i < e.numElements(); ++i) {
    double x = e.getAsDouble(i), y = a.getAsDouble(i);
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y))
        return false;
      continue;
    }
    if (x == y) // also equal infinities
      continue;
    // An infinity matches only the same infinity (atol + rtol * inf would
    // take any difference, even -inf for +inf).
    if (std::isinf(x) || std::isinf(y))
      return false;
    if (!(std::fabs(y - x) <= atol + rtol * std::fabs(x)))
      return false;
  }
  return true;
}

CompareResult compareTensors(const Tensor &expected, const Tensor &actual,
                             double cosineTol, double euclideanTol) {
  CompareResult r;
  if (expected.shape() != actual.shape()) {
    r.detail = "shape " + shapeToString(actual.shape()) + " differs from " +
               shapeToString(expected.shape());
    return r;
  }
  if (expected.dtype() != actual.dtype()) {
    r.detail = std::string("dtype ") + dtypeName(actual.dtype()) +
               " differs from " + dtypeName(expected.dtype());
    return r;
  }
  int64_t n = expected.numElements();
  bool equal = true;
  int64_t infMismatch = -1; // first element where an infinity is unmatched
  double dot = 0, ne = 0, na = 0, diff2 = 0, mean2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = expected.getAsDouble(i), y = actual.getAsDouble(i);
    bool bothNan = std::isnan(x) && std::isnan(y);
    if (!(x == y) && !bothNan)
      equal = false;
    if ((std::isinf(x) || std::isinf(y)) && x != y && infMismatch < 0)
      infMismatch = i;
    // Matching NaNs and infinities say nothing about the similarity of the
    // finite values.
    if (bothNan || (std::isinf(x) && x == y))
      continue;
    double d = std::fabs(x - y);
    if (std::isnan(d) || d > r.maxAbsError)
      r.maxAbsError = std::isnan(d) ? INFINITY : std::max(r.maxAbsError, d);
    if (x != 0 && d / std::fabs(x) > r.maxRelError)
      r.maxRelError = d / std::fabs(x);
    dot += x * y;
    ne += x * x;
    na += y * y;
    diff2 += (x - y) * (x - y);
    mean2 += ((x + y) / 2) * ((x + y) / 2);
  }
  if (ne == 0 && na == 0)
    r.cosine = 1.0;
  else if (ne == 0 || na == 0)
    r.cosine = 0.0;
  else
    r.cosine = dot / (std::sqrt(ne) * std::sqrt(na));
  double ed = std::sqrt(diff2), sr = std::sqrt(mean2) + 1e-7;
  r.euclidean = (std::isinf(ed) || std::isinf(sr) || std::isnan(ed))
                    ? 0.0
                    : 1.0 - ed / sr;
  if (equal) {
    r.verdict = CompareVerdict::Equal;
    r.closeOrder = 5;
    return r;
  }
  for (int order = 5; order >= 3; --order)
    if (allClose(expected, actual, std::pow(10.0, -order), 1e-8)) {
      r.closeOrder = order;
      break;
    }
  if (r.closeOrder >= 3)
    r.verdict = CompareVerdict::Close;
  else if (infMismatch >= 0) {
    r.verdict = CompareVerdict::NotSimilar;
    char buf[128];
    std::snprintf(buf, sizeof(buf), "element %lld is %g, expected %g",
                  static_cast<long long>(infMismatch),
                  actual.getAsDouble(infMismatch),
                  expected.getAsDouble(infMismatch));
    r.detail = std::string(buf) +
               " (infinities must match in sign and position)";
  }
  else if (r.cosine >= cosineTol && r.euclidean >= euclideanTol)
    r.verdict = CompareVerdict::Similar;
  else
    r.verdict = CompareVerdict::NotSimilar;
  return r;
}

} // namespace strata
