//===- NpuStrategies.h - the npu-sim target's strategy table ----*- C++ -*-===//
//
// Which Top ops the NPU target lowers to an HL kernel (docs/npu.md): an
// implementation per (op, "npu-sim") naming the HL op, with the conditions
// the strategy language can state (rank, layout, dtype). The conversion
// (lib/Conversion/TopToHL) checks the rest (constant weights, the Requant
// epilogue, channel counts) and explains a refusal. The fallback
// ("codegen") keeps an op on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGY_NPUSTRATEGIES_H
#define STRATA_STRATEGY_NPUSTRATEGIES_H

#include "strata/Strategy/Registry.h"

namespace strata::strategy {

/// The target name of the NPU strategies.
inline constexpr const char *kNpuTarget = "npu-sim";

/// Adds the npu-sim implementations (after registerGenericStrategies).
[[nodiscard]] Error registerNpuStrategies(StrategyRegistry &registry);

/// The generic strategies plus the npu-sim table, built once.
const StrategyRegistry &npuRegistry();

} // namespace strata::strategy

#endif // STRATA_STRATEGY_NPUSTRATEGIES_H
