//===- FuzzDiagnostics.h - diagnostics collected by a fuzz target -*- C++ -*-===//
//
// The MLIR-based fuzz targets collect diagnostics instead of printing them:
// the first 4 KiB of their text (for the abort message) and the number of
// errors (a failure must have reported one).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_FUZZ_FUZZDIAGNOSTICS_H
#define STRATA_FUZZ_FUZZDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>

namespace strata::fuzz {

/// Collects every diagnostic of `context` while it lives.
class CollectedDiagnostics {
public:
  explicit CollectedDiagnostics(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &d) {
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
            ++errors;
          if (text.size() < 4096)
            text += d.str() + "\n";
          return mlir::success();
        }) {}

  std::string text;
  int errors = 0;

private:
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace strata::fuzz

#endif // STRATA_FUZZ_FUZZDIAGNOSTICS_H
