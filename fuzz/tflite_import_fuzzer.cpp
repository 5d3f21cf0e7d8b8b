//===- tflite_import_fuzzer.cpp - libFuzzer target for the TFLite importer ===//
//
// Each input is a .tflite FlatBuffer. It goes through the path of `strata
// import` in memory: the FlatBuffers verifier, the TFLite reader and its
// converters (resource variables and CALL_ONCE subgraphs included), then
// the checks every importer target shares (ImportChecks.h: print, parse
// back, verify, top-optimize, a bounded interpreter run). Besides crashes
// and sanitizer reports, the target aborts when the import fails without
// reporting an error or succeeds while reporting one.
//
//===----------------------------------------------------------------------===//

#include "FuzzDiagnostics.h"
#include "ImportChecks.h"
#include "strata/Frontend/TFLite/TFLiteImporter.h"
#include "strata/InitAll.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace mlir;

namespace {
DialectRegistry *registry;

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "tflite_import_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
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
  // FlatBuffers reads scalars in place: give the reader an aligned copy, as
  // a mapped file is.
  std::vector<uint64_t> aligned((size + 7) / 8);
  if (size)
    std::memcpy(aligned.data(), data, size);
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>(aligned.data()), size);
  auto model = strata::tflite_import::importTFLiteBuffer(bytes, "fuzz.tflite",
                                                         context, "fuzz");
  if (failed(model)) {
    if (diagnostics.errors == 0)
      fail("the import failed without reporting an error", diagnostics.text);
    return 0;
  }
  if (diagnostics.errors != 0)
    fail("the import succeeded but reported errors", diagnostics.text);
  strata::fuzz::checkImportedModel(context, diagnostics, *model->module,
                                   model->weights, fail);
  return 0;
}
