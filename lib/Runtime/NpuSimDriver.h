//===- NpuSimDriver.h - The "npu-sim" HAL driver ----------------*- C++ -*-===//
//
// Executables of format "strata-npu-program" hold one NPU program (the bytes
// of lib/NpuSim/npu_program.fbs); its name is the executable's one symbol. A
// dispatch binds the program's DRAM buffers in order and runs it on the
// device's simulator, whose LRAM persists across dispatches.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_RUNTIME_NPUSIMDRIVER_H
#define STRATA_LIB_RUNTIME_NPUSIMDRIVER_H

#include "strata/Runtime/HAL.h"

namespace strata::runtime::hal {

std::unique_ptr<Driver> createNpuSimDriver();

} // namespace strata::runtime::hal

#endif // STRATA_LIB_RUNTIME_NPUSIMDRIVER_H
