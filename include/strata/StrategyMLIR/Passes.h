//===- Passes.h - operator strategy passes ----------------------*- C++ -*-===//

#ifndef STRATA_STRATEGYMLIR_PASSES_H
#define STRATA_STRATEGYMLIR_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace strata::strategy {

#define GEN_PASS_DECL
#include "strata/StrategyMLIR/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/StrategyMLIR/Passes.h.inc"

} // namespace strata::strategy

#endif // STRATA_STRATEGYMLIR_PASSES_H
