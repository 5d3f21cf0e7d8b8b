//===- SizeChecks.h - range checks of kernel geometry params ----*- C++ -*-===//
//
// For the baseline-compiled files only (never an ISA-flagged one: an inline
// function emitted there could be picked by the linker for every caller).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_KERNELS_SIZECHECKS_H
#define STRATA_LIB_KERNELS_SIZECHECKS_H

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace strata::kernels::detail {

/// "" when every named value is in [lo, 2^30], else "<name> is <v>, must be
/// in [<lo>, 2^30]" for the first that is not.
inline std::string
checkSizes(std::initializer_list<std::pair<const char *, int64_t>> values,
           int64_t lo) {
  for (auto [name, v] : values)
    if (v < lo || v > (int64_t(1) << 30))
      return std::string(name) + " is " + std::to_string(v) + ", must be in [" +
             std::to_string(lo) + ", 2^30]";
  return "";
}

} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_SIZECHECKS_H
