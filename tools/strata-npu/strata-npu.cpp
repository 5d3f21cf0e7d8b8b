//===- strata-npu.cpp - NPU program assembler, disassembler, packager -----===//
//
//   strata-npu asm IN.mlir -o OUT.snpu      npuhw.program -> program bytes
//   strata-npu disasm IN.snpu [-o OUT.mlir] program bytes -> npuhw listing
//   strata-npu disasm MODEL.strata [-o ..]  the listing of every NPU program
//                                           of an artifact (verified first)
//   strata-npu package IN.mlir [--constants W.npz] --input NAME=DTYPE:SHAPE
//              --output NAME=DTYPE:SHAPE ... -o OUT.strata
//     an artifact whose one dispatch runs the program on the npu-sim device:
//     each binding named in W.npz becomes a constant (the array's bytes),
//     each --input/--output binding a model input/output, any other binding
//     a scratch buffer of the arena.
//
// docs/npu-sim.md describes the format and the commands.
//
//===----------------------------------------------------------------------===//

#include "strata/Artifact/ArtifactWriter.h"
#include "strata/Artifact/Format.h"
#include "strata/Artifact/artifact_generated.h"
#include "strata/Dialect/NpuHW/IR/NpuHW.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Runtime/NpuSimProfile.h"
#include "strata/Runtime/strata_runtime.h"
#include "strata/Support/InputFile.h"
#include "strata/Support/Npz.h"
#include "strata/Target/Npu/NpuProgramIO.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <string>
#include <vector>

using namespace mlir;
using namespace strata;

namespace {
int usage() {
  llvm::errs() << "usage: strata-npu asm IN.mlir -o OUT.snpu\n"
                  "       strata-npu disasm IN.snpu [-o OUT.mlir]\n"
                  "       strata-npu package IN.mlir [--constants W.npz]\n"
                  "              [--input NAME=DTYPE:D0xD1..]... "
                  "[--output NAME=DTYPE:D0xD1..]... -o OUT.strata\n";
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

/// An input/output of `package`: NAME=DTYPE:D0xD1x...
struct IoSpec {
  std::string name;
  artifact::DType dtype = artifact::DType::I8;
  uint64_t elementBytes = 1;
  std::vector<int64_t> shape;
};

bool parseIo(const std::string &text, IoSpec &out, std::string &error) {
  size_t eq = text.find('='), colon = text.find(':');
  if (eq == std::string::npos || colon == std::string::npos || colon < eq) {
    error = "'" + text + "' is not NAME=DTYPE:D0xD1..";
    return false;
  }
  out.name = text.substr(0, eq);
  std::string dt = text.substr(eq + 1, colon - eq - 1);
  static const struct {
    const char *name;
    artifact::DType dtype;
    uint64_t bytes;
  } dtypes[] = {
      {"i8", artifact::DType::I8, 1},   {"u8", artifact::DType::U8, 1},
      {"i16", artifact::DType::I16, 2}, {"bf16", artifact::DType::BF16, 2},
      {"i32", artifact::DType::I32, 4}, {"f32", artifact::DType::F32, 4}};
  bool known = false;
  for (const auto &d : dtypes)
    if (dt == d.name) {
      out.dtype = d.dtype;
      out.elementBytes = d.bytes;
      known = true;
    }
  if (!known) {
    error = "'" + text + "': dtype '" + dt +
            "' is not one of i8, u8, i16, bf16, i32, f32";
    return false;
  }
  llvm::SmallVector<llvm::StringRef> dims;
  llvm::StringRef(text).substr(colon + 1).split(dims, 'x');
  for (llvm::StringRef d : dims) {
    int64_t v;
    if (d.getAsInteger(10, v) || v < 1 || v > (int64_t(1) << 31)) {
      error = "'" + text + "': dim '" + d.str() + "' is not in 1..2^31";
      return false;
    }
    out.shape.push_back(v);
  }
  return true;
}

uint64_t ioBytes(const IoSpec &s) {
  uint64_t n = s.elementBytes;
  for (int64_t d : s.shape)
    n *= static_cast<uint64_t>(d);
  return n;
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
/// Writes an artifact running `program` (its `bytes`) on npu-sim.
int package(npuhw::ProgramOp program, const std::vector<uint8_t> &bytes,
            const std::string &constantsPath,
            const std::vector<std::string> &inputTexts,
            const std::vector<std::string> &outputTexts,
            const std::string &outPath) {
  std::string err;
  TensorMap constants;
  if (!constantsPath.empty() && !readNpz(constantsPath, constants, err))
    return fail(err);
  std::vector<IoSpec> ins, outs;
  for (auto [texts, specs] :
       {std::pair(&inputTexts, &ins), std::pair(&outputTexts, &outs)})
    for (const std::string &t : *texts) {
      IoSpec spec;
      if (!parseIo(t, spec, err))
        return fail(err);
      specs->push_back(spec);
    }
  std::string name = program.getSymName().str();
  artifact::ArtifactWriter w(name, "strata-npu package");
  for (const IoSpec &s : ins)
    w.addInput({s.name, s.dtype, s.shape, std::nullopt});
  for (const IoSpec &s : outs)
    w.addOutput({s.name, s.dtype, s.shape, std::nullopt});
  artifact::VariantSpec v;
  for (const IoSpec &s : ins)
    v.inputShapes.push_back(s.shape);
  for (const IoSpec &s : outs)
    v.outputShapes.push_back(s.shape);
  artifact::DispatchSpec d;
  d.device = "npu-sim";
  d.symbol = name;
  d.executable =
      w.addExecutable(name, "npu-sim", "strata-npu-program",
                      std::string(bytes.begin(), bytes.end()), {name});
  std::vector<bool> used(ins.size() + outs.size(), false);
  for (Attribute a : program.getBindings()) {
    auto b = cast<npuhw::BindingAttr>(a);
    std::string bn = b.getName().str();
    uint64_t need = static_cast<uint64_t>(b.getSize());
    artifact::BufferSpec buf;
    buf.dtype = artifact::DType::U8;
    bool found = false;
    for (size_t i = 0; i < ins.size() + outs.size() && !found; ++i) {
      const IoSpec &s = i < ins.size() ? ins[i] : outs[i - ins.size()];
      if (s.name != bn)
        continue;
      found = used[i] = true;
      buf.kind = i < ins.size() ? artifact::BufferKind::Input
                                : artifact::BufferKind::Output;
      buf.index = static_cast<uint32_t>(i < ins.size() ? i : i - ins.size());
      buf.size = ioBytes(s);
      buf.dtype = s.dtype;
      buf.shape = s.shape;
      if (buf.size < need)
        return fail("binding '" + bn + "' needs " + std::to_string(need) +
                    " bytes, " + (i < ins.size() ? "input" : "output") + " '" +
                    bn + "' has " + std::to_string(buf.size));
    }
    if (!found)
      if (const Tensor *t = constants.find(bn)) {
        found = true;
        if (t->byteSize() < need)
          return fail("binding '" + bn + "' needs " + std::to_string(need) +
                      " bytes, constant '" + bn + "' in '" + constantsPath +
                      "' has " + std::to_string(t->byteSize()));
        buf.kind = artifact::BufferKind::Constant;
        buf.size = t->byteSize();
        buf.shape = {static_cast<int64_t>(buf.size)};
        buf.offset = w.addData(t->raw(), buf.size);
      }
    if (!found) {
      buf.kind = artifact::BufferKind::Arena;
      buf.offset = (v.arenaSize + 63) / 64 * 64;
      buf.size = need;
      buf.shape = {static_cast<int64_t>(need)};
      v.arenaSize = buf.offset + need;
    }
    d.bindings.push_back(static_cast<uint32_t>(v.buffers.size()));
    v.buffers.push_back(buf);
  }
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i])
      return fail(std::string(i < ins.size() ? "input" : "output") + " '" +
                  (i < ins.size() ? ins[i].name : outs[i - ins.size()].name) +
                  "' names no binding of program '" + name + "'");
  v.dispatches.push_back(d);
  w.addVariant(v);
  if (!w.writeFile(outPath, err))
    return fail(err);
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  std::string cmd = argv[1], in = argv[2], out, constants;
  std::vector<std::string> inputs, outputs;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc)
      out = argv[++i];
    else if (cmd == "package" && a == "--constants" && i + 1 < argc)
      constants = argv[++i];
    else if (cmd == "package" && a == "--input" && i + 1 < argc)
      inputs.push_back(argv[++i]);
    else if (cmd == "package" && a == "--output" && i + 1 < argc)
      outputs.push_back(argv[++i]);
    else
      return usage();
  }
  DialectRegistry registry;
  registry.insert<npuhw::NpuHWDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  if (cmd == "asm" || cmd == "package") {
    if (out.empty())
      return usage();
    llvm::SourceMgr sm;
    std::string err;
    // Through InputFile: a regular file within the size limit (never a
    // device or pipe read without end).
    InputFile file;
    if (!file.open(in, "npuhw program", err))
      return fail(err);
    sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(
            llvm::StringRef(file.text().data(), file.text().size()), in,
            /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    SourceMgrDiagnosticHandler handler(sm, &ctx);
    // The checks every Strata tool makes before MLIR's parser reads a file
    // (NUL bytes, nesting depth; bytecode read first in a child process).
    if (failed(checkMlirText(file.text(), in, ctx)))
      return 1;
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, &ctx);
    if (!module)
      return 1;
    npuhw::ProgramOp program = findProgram(*module, err);
    if (!program)
      return fail(in + ": " + err);
    FailureOr<std::vector<uint8_t>> bytes = npuhw::serializeProgram(program);
    if (failed(bytes))
      return 1;
    if (cmd == "package")
      return package(program, *bytes, constants, inputs, outputs, out);
    if (!writeFile(
            out,
            llvm::StringRef(reinterpret_cast<const char *>(bytes->data()),
                            bytes->size()),
            err))
      return fail(err);
    return 0;
  }
  if (cmd == "disasm") {
    std::string err;
    InputFile file;
    if (!file.open(in, "npu program or artifact", err))
      return fail(err);
    const uint8_t *bytes = file.data();
    uint64_t size = file.size();
    OwningOpRef<ModuleOp> module;
    if (size >= artifact::kHeaderSize &&
        std::memcmp(bytes, artifact::kMagic, 8) == 0) {
      // An artifact: the runtime verifies it (and every NPU program) first.
      strata_model *model = nullptr;
      if (strata_status *st = strata_model_load_memory(bytes, size, &model)) {
        std::string msg = strata_status_message(st);
        strata_status_free(st);
        return fail(in + ": " + msg);
      }
      strata_model_release(model);
      artifact::Header h = artifact::decodeHeader(bytes);
      const auto *m = artifact::fb::GetModel(bytes + h.tableOffset);
      module = ModuleOp::create(UnknownLoc::get(&ctx));
      OpBuilder b(&ctx);
      b.setInsertionPointToEnd(module->getBody());
      if (m->executables())
        for (const auto *e : *m->executables()) {
          if (e->format()->str() != runtime::npusim::kNpuProgramFormat)
            continue;
          OwningOpRef<ModuleOp> one = npuhw::disassembleProgram(
              &ctx, bytes + h.dataOffset + e->code_offset(), e->code_size(),
              err);
          if (!one)
            return fail(in + ": executable '" + e->name()->str() + "': " + err);
          for (Operation &op : llvm::make_early_inc_range(*one->getBody()))
            op.moveBefore(module->getBody(), module->getBody()->end());
        }
    } else {
      module = npuhw::disassembleProgram(&ctx, bytes, size, err);
    }
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
