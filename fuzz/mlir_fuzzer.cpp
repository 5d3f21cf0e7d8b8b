//===- mlir_fuzzer.cpp - libFuzzer target for the .mlir reader ------------===//
//
// Each input is the text of a module, read as `strata run-ref` and
// `strata compile` read a .mlir file (parseModuleText: the NUL-byte and
// nesting checks, then parsed with every Strata dialect registered and
// verified — the Top verifiers check attributes, types and the shape rules —
// and the element limit). Besides crashes and sanitizer reports, the target
// aborts when
//   - parsing fails without reporting an error, or
//   - a module that parsed and verified, printed in the generic and the
//     pretty form, does not parse and verify again (the files Strata writes
//     would be unreadable).
//
//===----------------------------------------------------------------------===//

#include "FuzzDiagnostics.h"
#include "strata/InitAll.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {
DialectRegistry *registry;

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "mlir_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

std::string print(ModuleOp module, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  module->print(os, flags);
  return text;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registry = new DialectRegistry();
  strata::registerModelDialects(*registry);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  strata::fuzz::CollectedDiagnostics diagnostics(context);

  std::string_view text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module =
      strata::parseModuleText(text, "fuzz.mlir", context);
  if (!module) {
    if (diagnostics.errors == 0)
      fail("parsing failed without reporting an error", diagnostics.text);
    return 0;
  }
  for (bool generic : {true, false}) {
    std::string printed = print(*module, generic);
    OwningOpRef<ModuleOp> back =
        strata::parseModuleText(printed, "printed.mlir", context);
    if (!back)
      fail(generic ? "the generic form of a valid module does not parse back"
                   : "the printed form of a valid module does not parse back",
           diagnostics.text + printed);
  }
  return 0;
}
