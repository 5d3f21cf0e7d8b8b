//===- Passes.h - Strata's conversions between dialects ---------*- C++ -*-===//

#ifndef STRATA_CONVERSION_PASSES_H
#define STRATA_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace strata::conversion {

#define GEN_PASS_DECL
#include "strata/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Conversion/Passes.h.inc"

} // namespace strata::conversion

#endif // STRATA_CONVERSION_PASSES_H
