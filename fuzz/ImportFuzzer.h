//===- ImportFuzzer.h - the frame every model-import fuzz target shares ---===//
//
// The ONNX and TFLite import targets differ only in how they call their
// importer: both run under the same small limits, import into a fresh
// context with diagnostics collected, abort when the import fails without
// an error or succeeds with one, and then run the checks of ImportChecks.h.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_FUZZ_IMPORTFUZZER_H
#define STRATA_FUZZ_IMPORTFUZZER_H

#include "FuzzDiagnostics.h"
#include "ImportChecks.h"
#include "strata/InitAll.h"
#include "strata/Support/Limits.h"

#include "mlir/IR/MLIRContext.h"

#include <exception>
#include <string>
#include <typeinfo>

namespace strata::fuzz {

/// Sets the limits of one input (2^16 elements per tensor, 2^10 loop
/// iterations) and returns the registry of the model dialects.
inline mlir::DialectRegistry *initImportFuzzer() {
  strata::limits().maxElements = int64_t(1) << 16;
  strata::limits().maxLoopIterations = int64_t(1) << 10;
  auto *registry = new mlir::DialectRegistry();
  strata::registerModelDialects(*registry);
  return registry;
}

/// The steps of runImportFuzzer, exceptions left to it.
template <typename ImportFn>
void runImportFuzzerSteps(mlir::DialectRegistry &registry, FailFn fail,
                          ImportFn import) {
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  CollectedDiagnostics diagnostics(context);
  auto model = import(context);
  if (mlir::failed(model)) {
    if (diagnostics.errors == 0)
      fail("the import failed without reporting an error", diagnostics.text);
    return;
  }
  if (diagnostics.errors != 0)
    fail("the import succeeded but reported errors", diagnostics.text);
  checkImportedModel(context, diagnostics, *model->module, model->weights,
                     fail);
}

/// Runs `import(context)` (returning a FailureOr of a struct with `module`
/// and `weights`) in a fresh context and checks its outcome; `fail` aborts.
/// A tensor refused by the element limit may leave any step as an exception
/// (`strata` reports it, exit 1); any other exception is a bug (`strata`
/// would end with "internal error") and fails with its type and message.
template <typename ImportFn>
void runImportFuzzer(mlir::DialectRegistry &registry, FailFn fail,
                     ImportFn import) {
  try {
    runImportFuzzerSteps(registry, fail, import);
  } catch (const strata::TensorAllocationError &) {
  } catch (const std::exception &e) {
    fail("an exception escaped the import, optimizer or interpreter",
         std::string(typeid(e).name()) + ": " + e.what());
  } catch (...) {
    fail("an exception of unknown type escaped", "");
  }
}

} // namespace strata::fuzz

#endif // STRATA_FUZZ_IMPORTFUZZER_H
