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

#include "ImportFuzzer.h"
#include "strata/Frontend/TFLite/TFLiteImporter.h"

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
  registry = strata::fuzz::initImportFuzzer();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // FlatBuffers reads scalars in place: give the reader an aligned copy, as
  // a mapped file is.
  std::vector<uint64_t> aligned((size + 7) / 8);
  if (size)
    std::memcpy(aligned.data(), data, size);
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>(aligned.data()), size);
  strata::fuzz::runImportFuzzer(*registry, fail, [&](MLIRContext &context) {
    return strata::tflite_import::importTFLiteBuffer(bytes, "fuzz.tflite",
                                                     context, "fuzz");
  });
  return 0;
}
