//===- Reference.h - naive double-accumulating references -------*- C++ -*-===//

#ifndef STRATA_UNITTESTS_KERNELS_REFERENCE_H
#define STRATA_UNITTESTS_KERNELS_REFERENCE_H

#include "strata/Kernels/Conv.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace strata::kernels::test {

/// Every ISA path this CPU runs.
inline std::vector<Isa> supportedIsas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::Portable, Isa::Avx2, Isa::Avx512})
    if (isaSupported(isa))
      out.push_back(isa);
  return out;
}

inline std::vector<float> randomVector(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

/// The activation in double (independent of the library's).
inline double refActivate(double x, Activation act, double p0, double p1) {
  switch (act) {
  case Activation::None:
    return x;
  case Activation::Relu:
    return x > 0 ? x : 0;
  case Activation::Clip:
    return std::min(std::max(x, p0), p1);
  case Activation::LeakyRelu:
    return x < 0 ? p0 * x : x;
  case Activation::Sigmoid:
    return 1 / (1 + std::exp(-x));
  case Activation::SiLU:
    return x / (1 + std::exp(-x));
  case Activation::HardSwish:
    return x * std::min(std::max(x / 6 + 0.5, 0.0), 1.0);
  case Activation::HardSigmoid:
    return std::min(std::max(p0 * x + p1, 0.0), 1.0);
  case Activation::Gelu:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case Activation::GeluTanh:
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  }
  return x;
}

/// Expects |got - want| <= atol + rtol * |want| elementwise, where the
/// tolerance scales with the sum of |products| (`scale`).
inline void expectClose(const std::vector<float> &got,
                        const std::vector<double> &want, double tol,
                        const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::fabs(double(got[i]) - want[i]);
    if (!(err <= tol * (1 + std::fabs(want[i])))) {
      if (bad++ < 5)
        ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                      << ", want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0u) << what;
}

} // namespace strata::kernels::test

#endif // STRATA_UNITTESTS_KERNELS_REFERENCE_H
