//===- onnx_import_fuzzer.cpp - libFuzzer target for the ONNX importer ----===//
//
// Each input is a serialized ModelProto. It goes through the path of
// `strata import`, in memory: parse, import into a Top module (the importer
// verifies it), print the module as the .mlir file would be written and
// serialize every weight as the npz member would be. Then the printed module
// is parsed back and verified, as `strata run-ref` would read it, and the
// default optimization pipeline (top-optimize) runs on it, as `strata
// import` writes <name>.mlir. Finally the reference interpreter runs the
// optimized module on seeded random inputs (dynamic dims as 1), as `strata
// run-ref` would, under small limits (2^16 elements per tensor, 2^10 loop
// iterations) so that one input stays fast.
//
// Diagnostics are collected, not printed. Besides crashes and sanitizer
// reports, the target aborts when
//   - the import fails without reporting an error (a silent failure), or
//   - an imported module does not parse back or verify, or a weight its IR
//     names is missing (the files `strata import` writes would be unusable),
//   - the optimizer fails without reporting an error, or its result does
//     not verify,
//   - the interpreter fails without reporting an error.
//
// External data locations resolve inside a scratch folder holding one small
// file, `data.bin` (4 KiB), so paths inside and outside the folder are both
// reachable.
//
//===----------------------------------------------------------------------===//

#include "FuzzDiagnostics.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Frontend/Onnx/OnnxImporter.h"
#include "strata/InitAll.h"
#include "strata/Interfaces/HostTypes.h"
#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/Optimize.h"
#include "strata/Pipelines/RandomInputs.h"
#include "strata/Support/Limits.h"
#include "strata/Support/Npz.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {
std::string scratchDir;
DialectRegistry *registry;

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "onnx_import_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

/// Makes the folder external data resolves in: one 4 KiB file of a counting
/// byte pattern.
void makeScratchDir() {
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("strata-onnx-fuzz", dir))
    fail("cannot create a scratch folder", "");
  scratchDir = std::string(dir);
  llvm::SmallString<128> file(dir);
  llvm::sys::path::append(file, "data.bin");
  std::error_code ec;
  llvm::raw_fd_ostream os(file, ec);
  if (ec)
    fail("cannot write data.bin", ec.message());
  for (int i = 0; i < 4096; ++i)
    os << static_cast<char>(i & 0xff);
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  makeScratchDir();
  strata::limits().maxElements = int64_t(1) << 16;
  strata::limits().maxLoopIterations = int64_t(1) << 10;
  registry = new DialectRegistry();
  strata::registerModelDialects(*registry);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  strata::fuzz::CollectedDiagnostics diagnostics(context);

  strata::onnx_import::ImportOptions options;
  options.name = "fuzz";
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto model = strata::onnx_import::importOnnxBuffer(
      bytes, scratchDir, "fuzz.onnx", context, options);
  if (failed(model)) {
    if (diagnostics.errors == 0)
      fail("the import failed without reporting an error", diagnostics.text);
    return 0;
  }
  if (diagnostics.errors != 0)
    fail("the import succeeded but reported errors", diagnostics.text);

  // What `strata import` writes: the module text and one npy per weight.
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    OpPrintingFlags flags;
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    model->module->print(os, flags);
  }
  size_t npzBytes = 0;
  for (const auto &[name, tensor] : model->weights)
    npzBytes += strata::serializeNpy(tensor).size() + name.size();
  (void)npzBytes;

  // What `strata run-ref` reads back.
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(text, config);
  if (!reparsed)
    fail("the imported module does not parse back", diagnostics.text + text);
  reparsed->walk([&](strata::top::WeightOp w) {
    if (!model->weights.find(w.getName().str()))
      fail("the imported module names a weight that was not written",
           w.getName().str());
  });

  // What `strata import` does next: top-optimize on the imported module.
  int errorsBefore = diagnostics.errors;
  auto optimizedWeights = strata::optimizeTopModule(*reparsed, model->weights);
  if (failed(optimizedWeights)) {
    if (diagnostics.errors == errorsBefore)
      fail("the optimizer failed without reporting an error", diagnostics.text);
    return 0;
  }
  if (failed(verify(*reparsed)))
    fail("the optimized module does not verify", diagnostics.text);

  // What `strata run-ref` does with it, on seeded random inputs.
  FailureOr<func::FuncOp> entry = strata::findEntryFunction(*reparsed);
  if (failed(entry))
    return 0;
  std::vector<strata::InputSpec> specs;
  for (unsigned i = 0; i < entry->getNumArguments(); ++i) {
    auto t = dyn_cast<RankedTensorType>(entry->getArgument(i).getType());
    std::optional<strata::DType> d =
        t ? strata::dtypeOf(t.getElementType()) : std::nullopt;
    if (!d)
      return 0; // an input run-ref could not be given either
    strata::InputSpec spec;
    spec.name = strata::inputName(*entry, i);
    spec.dtype = *d;
    int64_t count = 1;
    for (int64_t dim : t.getShape()) {
      spec.shape.push_back(ShapedType::isDynamic(dim) ? 1 : dim);
      count *= std::max<int64_t>(spec.shape.back(), 1);
      if (count > strata::limits().maxElements)
        return 0; // run-ref would refuse the input file
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
  return 0;
}
