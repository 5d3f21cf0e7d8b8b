//===- strata-npu.cpp - NPU program assembler, disassembler, packager -----===//
//
//   strata-npu asm IN.mlir -o OUT.snpu      npuhw.program -> program bytes
//   strata-npu disasm IN.snpu [-o OUT.mlir] program bytes -> npuhw listing
//
// docs/npu-sim.md describes the format and the commands.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/NpuHW/IR/NpuHW.h"
#include "strata/Target/Npu/NpuProgramIO.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace strata;

namespace {
int usage() {
  llvm::errs() << "usage: strata-npu asm IN.mlir -o OUT.snpu\n"
                  "       strata-npu disasm IN.snpu [-o OUT.mlir]\n";
  return 2;
}

int fail(const llvm::Twine &msg) {
  llvm::errs() << "strata-npu: error: " << msg << "\n";
  return 1;
}

bool writeFile(const std::string &path, llvm::StringRef data,
               std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  os << data;
  return true;
}

/// The one npuhw.program of a parsed module (or the one named `name`).
npuhw::ProgramOp findProgram(ModuleOp module, std::string &error) {
  npuhw::ProgramOp found;
  for (auto p : module.getOps<npuhw::ProgramOp>()) {
    if (found) {
      error = "the module holds more than one npuhw.program";
      return nullptr;
    }
    found = p;
  }
  if (!found)
    error = "the module holds no npuhw.program";
  return found;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  std::string cmd = argv[1], in = argv[2], out;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc)
      out = argv[++i];
    else
      return usage();
  }
  DialectRegistry registry;
  registry.insert<npuhw::NpuHWDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  if (cmd == "asm") {
    if (out.empty())
      return usage();
    llvm::SourceMgr sm;
    std::string err;
    auto buf = llvm::MemoryBuffer::getFileOrSTDIN(in);
    if (!buf)
      return fail("cannot read '" + in + "': " + buf.getError().message());
    sm.AddNewSourceBuffer(std::move(*buf), llvm::SMLoc());
    SourceMgrDiagnosticHandler handler(sm, &ctx);
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, &ctx);
    if (!module)
      return 1;
    npuhw::ProgramOp program = findProgram(*module, err);
    if (!program)
      return fail(in + ": " + err);
    FailureOr<std::vector<uint8_t>> bytes = npuhw::serializeProgram(program);
    if (failed(bytes))
      return 1;
    if (!writeFile(
            out,
            llvm::StringRef(reinterpret_cast<const char *>(bytes->data()),
                            bytes->size()),
            err))
      return fail(err);
    return 0;
  }
  if (cmd == "disasm") {
    auto buf = llvm::MemoryBuffer::getFile(in, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!buf)
      return fail("cannot read '" + in + "': " + buf.getError().message());
    std::string err;
    OwningOpRef<ModuleOp> module = npuhw::disassembleProgram(
        &ctx, reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
        (*buf)->getBufferSize(), err);
    if (!module)
      return fail(in + ": " + err);
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    if (out.empty()) {
      llvm::outs() << text;
      return 0;
    }
    if (!writeFile(out, text, err))
      return fail(err);
    return 0;
  }
  return usage();
}
