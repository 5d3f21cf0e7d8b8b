//===- NpuSimReport.h - strata run --device npu-sim reports -----*- C++ -*-===//

#ifndef STRATA_TOOLS_STRATA_NPUSIMREPORT_H
#define STRATA_TOOLS_STRATA_NPUSIMREPORT_H

#include "strata/Runtime/NpuSimProfile.h"
#include "strata/Runtime/Runtime.hpp"
#include "strata/Support/Npz.h"

#include "llvm/ADT/StringRef.h"

namespace strata::cli {

/// Prints the npu-sim profile of the last of `runs` runs and writes the
/// Chrome trace to `tracePath` (if not empty); false on a write error.
bool reportNpuSim(llvm::StringRef tool, const rt::Model &m,
                  const TensorMap &inputs,
                  std::vector<runtime::npusim::DispatchProfile> profiles,
                  int64_t runs, const std::string &tracePath);

} // namespace strata::cli

#endif // STRATA_TOOLS_STRATA_NPUSIMREPORT_H
