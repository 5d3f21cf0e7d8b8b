//===- NpuTarget.h - compile Top models for the npu-sim device --*- C++ -*-===//
//
// The NPU back end behind `strata compile --target npu-sim`: Top -> HL
// (convert-top-to-hl, hl-cancel-transposes), HL -> HW (convert-hl-to-hw: one
// NPU program per HL kernel), then one artifact whose variant mixes npu-sim
// dispatches (the programs, serialized) with CPU dispatches (every op left
// in Top, through the CPU back end). docs/npu.md, "HL -> HW".
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TARGET_NPU_NPUTARGET_H
#define STRATA_TARGET_NPU_NPUTARGET_H

#include "strata/Conversion/HLToHW/Passes.h"
#include "strata/Conversion/TopToHL/Passes.h"
#include "strata/Npu/NpuConfig.h"
#include "strata/Support/Npz.h"
#include "strata/Target/Cpu/CpuTarget.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace strata::npu {

/// Lowers an optimized (quantized) Top model in place: the ops an NPU kernel
/// implements become HL ops naming their NPU program (`npu.program`), the
/// programs (`npuhw.program`) are appended to the module. Returns the
/// weights the module then uses; `decisions` (may be null) gets
/// convert-top-to-hl's decision per candidate op. `segment`: strided
/// kernels read segmented inputs (hl-segment-strided; `fuseSegmentation`:
/// fused into their producer when possible); otherwise the NPU kernels take
/// the stride directly.
mlir::FailureOr<TensorMap>
lowerTopToNpu(mlir::ModuleOp module, const TensorMap &weights,
              const NpuConfig &config, const conversion::HLToHWOptions &options,
              std::vector<conversion::HLDecision> *decisions,
              bool segment = true, bool fuseSegmentation = true);

/// The CPU back end's hook that turns an outlined dispatch holding one HL
/// op with an `npu.program` into an npu-sim executable (the serialized
/// program, format `strata-npu-program`).
mlir::FailureOr<std::optional<cpu::ForeignDispatch>>
npuForeignDispatch(mlir::func::FuncOp dispatch);

} // namespace strata::npu

#endif // STRATA_TARGET_NPU_NPUTARGET_H
