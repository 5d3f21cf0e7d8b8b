//===- NpuSimProfile.h - profiles of the npu-sim driver ---------*- C++ -*-===//
//
// The npu-sim HAL driver (lib/Runtime/NpuSimDriver.cpp) runs NPU programs on
// the simulator (include/strata/NpuSim). When profiling is on it records one
// profile per dispatch it runs, in order; `strata run --device npu-sim`
// prints them and writes the Chrome trace (docs/npu-sim.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_RUNTIME_NPUSIMPROFILE_H
#define STRATA_RUNTIME_NPUSIMPROFILE_H

#include "strata/NpuSim/Simulator.h"

#include <vector>

namespace strata::runtime::npusim {

/// The executable format of an NPU program in an artifact.
constexpr const char *kNpuProgramFormat = "strata-npu-program";
/// The device name of the simulator's driver.
constexpr const char *kNpuSimDevice = "npu-sim";

struct DispatchProfile {
  strata::npusim::Profile profile;
  npu::NpuConfig config;
};

/// Turns recording on or off (off by default) and clears what was recorded.
void setProfiling(bool on);
/// The profiles recorded since the last call, oldest first.
std::vector<DispatchProfile> takeProfiles();

} // namespace strata::runtime::npusim

#endif // STRATA_RUNTIME_NPUSIMPROFILE_H
