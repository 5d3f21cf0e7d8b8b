//===- Passes.h - Top dialect passes ----------------------------*- C++ -*-===//

#ifndef STRATA_DIALECT_TOP_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_TOP_TRANSFORMS_PASSES_H

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Pass/Pass.h"

namespace strata::top {

#define GEN_PASS_DECL
#include "strata/Dialect/Top/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Dialect/Top/Transforms/Passes.h.inc"

} // namespace strata::top

#endif // STRATA_DIALECT_TOP_TRANSFORMS_PASSES_H
