//===- ImportChecks.h - what a fuzzed import must survive --------*- C++
//-*-===//
//
// Shared by the importer fuzz targets (ONNX, TFLite): after a successful
// import, the path of `strata import` and `strata run-ref`, in memory. The
// module is printed as the .mlir file would be written and every weight
// serialized as its npz member would be; the text is parsed back and
// verified, as `strata run-ref` would read it; the default optimization
// pipeline (top-optimize) runs on it, as `strata import` writes <name>.mlir;
// and the reference interpreter runs the optimized module on seeded random
// inputs (dynamic dims as 1) under the limits the target set. `fail` aborts
// with a message when a step fails without reporting an error, a module does
// not parse back or verify, or the IR names a weight that was not written.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_FUZZ_IMPORTCHECKS_H
#define STRATA_FUZZ_IMPORTCHECKS_H

#include "FuzzDiagnostics.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Interfaces/HostTypes.h"
#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/Optimize.h"
#include "strata/Pipelines/RandomInputs.h"
#include "strata/Support/Limits.h"
#include "strata/Support/Npz.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace strata::fuzz {

using FailFn = void (*)(const char *what, const std::string &detail);

inline void checkImportedModel(mlir::MLIRContext &context,
                               CollectedDiagnostics &diagnostics,
                               mlir::ModuleOp module, const TensorMap &weights,
                               FailFn fail) {
  using namespace mlir;
  // What `strata import` writes: the module text and one npy per weight.
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    OpPrintingFlags flags;
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    module.print(os, flags);
  }
  size_t npzBytes = 0;
  for (const auto &[name, tensor] : weights)
    npzBytes += strata::serializeNpy(tensor).size() + name.size();
  (void)npzBytes;

  // What `strata run-ref` reads back.
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(text, config);
  if (!reparsed)
    fail("the imported module does not parse back", diagnostics.text + text);
  reparsed->walk([&](strata::top::WeightOp w) {
    if (!weights.find(w.getName().str()))
      fail("the imported module names a weight that was not written",
           w.getName().str());
  });

  // What `strata import` does next: top-optimize on the imported module.
  int errorsBefore = diagnostics.errors;
  auto optimizedWeights = strata::optimizeTopModule(*reparsed, weights);
  if (failed(optimizedWeights)) {
    if (diagnostics.errors == errorsBefore)
      fail("the optimizer failed without reporting an error", diagnostics.text);
    return;
  }
  if (failed(verify(*reparsed)))
    fail("the optimized module does not verify", diagnostics.text);

  // What `strata run-ref` does with it, on seeded random inputs.
  FailureOr<func::FuncOp> entry = strata::findEntryFunction(*reparsed);
  if (failed(entry))
    return;
  std::vector<strata::InputSpec> specs;
  for (unsigned i = 0; i < entry->getNumArguments(); ++i) {
    auto t = dyn_cast<RankedTensorType>(entry->getArgument(i).getType());
    std::optional<strata::DType> d =
        t ? strata::dtypeOf(t.getElementType()) : std::nullopt;
    if (!d)
      return; // an input run-ref could not be given either
    strata::InputSpec spec;
    spec.name = strata::inputName(*entry, i);
    spec.dtype = *d;
    int64_t count = 1;
    for (int64_t dim : t.getShape()) {
      spec.shape.push_back(ShapedType::isDynamic(dim) ? 1 : dim);
      count *= std::max<int64_t>(spec.shape.back(), 1);
      if (count > strata::limits().maxElements)
        return; // run-ref would refuse the input file
    }
    specs.push_back(std::move(spec));
  }
  strata::TensorMap inputs = strata::randomInputs(specs, /*seed=*/1);
  errorsBefore = diagnostics.errors;
  try {
    auto outputs =
        strata::interpretModule(*reparsed, inputs, *optimizedWeights);
    if (failed(outputs) && diagnostics.errors == errorsBefore)
      fail("the interpreter failed without reporting an error",
           diagnostics.text);
  } catch (const strata::TensorAllocationError &) {
    // Refused by the element limit or out of memory: `strata` reports it.
  }
}

} // namespace strata::fuzz

#endif // STRATA_FUZZ_IMPORTCHECKS_H
