//===- CpuDriver.h - The "cpu" HAL driver -----------------------*- C++ -*-===//
//
// Executables are x86-64 shared objects ("elf-x86_64") loaded with
// memfd_create + dlopen; dispatches call their exported functions, or the
// built-in kernels of CpuKernels.h, with the C ABI hal::DispatchFn, one call
// per workgroup spread over the session's thread pool.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_RUNTIME_CPUDRIVER_H
#define STRATA_LIB_RUNTIME_CPUDRIVER_H

#include "strata/Runtime/HAL.h"

namespace strata::runtime::hal {

std::unique_ptr<Driver> createCpuDriver();

} // namespace strata::runtime::hal

#endif // STRATA_LIB_RUNTIME_CPUDRIVER_H
