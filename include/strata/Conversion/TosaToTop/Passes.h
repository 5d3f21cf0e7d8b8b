//===- Passes.h - the TOSA front end's pass ---------------------*- C++ -*-===//

#ifndef STRATA_CONVERSION_TOSATOTOP_PASSES_H
#define STRATA_CONVERSION_TOSATOTOP_PASSES_H

#include "strata/Dialect/Top/IR/TopDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace strata::conversion {

#define GEN_PASS_DECL
#include "strata/Conversion/TosaToTop/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Conversion/TosaToTop/Passes.h.inc"

} // namespace strata::conversion

#endif // STRATA_CONVERSION_TOSATOTOP_PASSES_H
