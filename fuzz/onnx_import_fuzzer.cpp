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

#include "ImportFuzzer.h"
#include "strata/Frontend/Onnx/OnnxImporter.h"

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
  registry = strata::fuzz::initImportFuzzer();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  strata::fuzz::runImportFuzzer(*registry, fail, [&](MLIRContext &context) {
    strata::onnx_import::ImportOptions options;
    options.name = "fuzz";
    return strata::onnx_import::importOnnxBuffer(bytes, scratchDir, "fuzz.onnx",
                                                 context, options);
  });
  return 0;
}
