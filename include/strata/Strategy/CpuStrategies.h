//===- CpuStrategies.h - the built-in strategy tables -----------*- C++ -*-===//
//
// The generic strategy (the codegen fallback, lowest priority, for every op)
// and the CPU target's kernel candidates (docs/strategy.md has the table).
// The kernels are names only so far: they are written by the CPU code
// generation work of issue #12, and the lowering refuses a kernel that does
// not exist yet.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGY_CPUSTRATEGIES_H
#define STRATA_STRATEGY_CPUSTRATEGIES_H

#include "strata/Strategy/Registry.h"

namespace strata::strategy {

/// The priority of the codegen fallback (below every kernel).
inline constexpr int kCodegenPriority = 0;

/// Registers the codegen fallback for every op (call first).
[[nodiscard]] Error registerGenericStrategies(StrategyRegistry &registry);

/// Registers the CPU target's kernel candidates (Conv, MatMul, pooling,
/// Softmax, LayerNorm, elementwise) as overrides of the generic strategies.
[[nodiscard]] Error registerCpuStrategies(StrategyRegistry &registry);

/// Registers the oneDNN-backed CPU candidates (`conv2d.onednn_f32`,
/// `matmul.onednn_f32`, library `onednn`), below the hand kernels: only a
/// tuning record makes them win.
[[nodiscard]] Error registerOneDnnStrategies(StrategyRegistry &registry);

/// The built-in tables plus the optional-library providers, registered as
/// if exactly the libraries in `optionalLibraries` had been found (tests
/// build both ways; the others are listed by missingLibraries()). Aborts on
/// a table error (a bug).
StrategyRegistry buildRegistry(const std::vector<std::string> &optionalLibraries);

/// buildRegistry with the optional libraries found at build time, built
/// once.
const StrategyRegistry &builtinRegistry();

} // namespace strata::strategy

#endif // STRATA_STRATEGY_CPUSTRATEGIES_H
