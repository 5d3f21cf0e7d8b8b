//===- RuntimeCheckUtil.h - Helpers for runtime kernel check tests -*- C++
//-*-===//
//
// What the tests of the runtime kernels' `check` functions share: a binding
// of a given size, and an expectation that a kernel refuses a call with a
// message containing a given text.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_UNITTESTS_KERNELS_RUNTIMECHECKUTIL_H
#define STRATA_UNITTESTS_KERNELS_RUNTIMECHECKUTIL_H

#include "CpuKernels.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::kernels::testing {

/// A binding of `n` bytes.
inline runtime::hal::BufferInfo bytes(uint64_t n) {
  runtime::hal::BufferInfo b;
  b.size = n;
  return b;
}

/// Expects the runtime kernel `kernel` to refuse bindings `b` with
/// parameters `p`, and its error to contain `needle`.
inline void expectRejects(const char *kernel,
                          const std::vector<runtime::hal::BufferInfo> &b,
                          const std::vector<int64_t> &p,
                          const std::string &needle) {
  const auto *k = runtime::hal::findCpuKernel(kernel);
  ASSERT_NE(k, nullptr) << kernel;
  ASSERT_EQ(p.size(), k->paramCount) << kernel;
  std::string error;
  EXPECT_FALSE(k->check(b, p, error)) << kernel << " accepted: " << needle;
  EXPECT_NE(error.find(needle), std::string::npos)
      << kernel << ": '" << error << "' lacks '" << needle << "'";
}

} // namespace strata::kernels::testing

#endif // STRATA_UNITTESTS_KERNELS_RUNTIMECHECKUTIL_H
