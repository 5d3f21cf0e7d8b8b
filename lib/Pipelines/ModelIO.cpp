//===- ModelIO.cpp - reading and writing Top models -----------------------===//

#include "strata/Pipelines/ModelIO.h"
#include "strata/Dialect/HL/IR/HLOps.h"
#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/InitAll.h"
#include "strata/Interfaces/StaticSizeLimit.h"
#include "strata/Pipelines/BytecodeCheck.h"
#include "strata/Support/InputFile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace strata {

void registerAndLoadDialects(MLIRContext &context) {
  DialectRegistry registry;
  registerModelDialects(registry);
  // The NPU's kernels: `strata run-ref` runs HL modules (docs/npu.md).
  registry.insert<hl::HLDialect>();
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

LogicalResult checkMlirText(std::string_view text, const std::string &path,
                            MLIRContext &context) {
  unsigned line = 1, depth = 0;
  size_t i = 0, lineStart = 0;
  // Line 0: the diagnostic handler then does not print the source line,
  // which for a binary file could be anything, of any length.
  auto fail = [&](const Twine &message) {
    return emitError(FileLineColLoc::get(&context, path, 0, 0))
           << "line " << line << ", column " << (i - lineStart + 1) << ": "
           << message;
  };
  if (text.substr(0, 4) == std::string_view("PK\x03\x04", 4) ||
      text.substr(0, 4) == std::string_view("PK\x05\x06", 4))
    return emitError(FileLineColLoc::get(&context, path, 0, 0))
           << "is a zip archive (an npz weight file?), not a .mlir model; a "
              "model's weights are named by its top.weight_file";
  // MLIR bytecode ("ML\xefR"): binary, so no text checks; its reader keeps
  // nested regions on a worklist (no recursion per level) but trusts its
  // input, so it reads the file first in a child process
  // (BytecodeCheck.h).
  if (text.substr(0, 4) == std::string_view("ML\xefR", 4))
    return checkBytecodeInChild(text, path, context);
  bool inString = false, inComment = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\0')
      return fail("the file holds a NUL byte (byte offset " + Twine(i) +
                  "); a .mlir file is text (an ONNX model is read by "
                  "'strata import' or from a .onnx file)");
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
      inComment = false;
      continue;
    }
    if (inComment)
      continue;
    if (inString) {
      if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
    case '"':
      inString = true;
      break;
    case '/':
      inComment = i + 1 < text.size() && text[i + 1] == '/';
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > kMaxMlirNesting)
        return fail("brackets nest more than " + Twine(kMaxMlirNesting) +
                    " deep; Strata refuses such files before parsing");
      break;
    case '>':
      if (i > 0 && text[i - 1] == '-')
        break; // "->"
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth)
        --depth;
      break;
    default:
      break;
    }
  }
  return success();
}

OwningOpRef<ModuleOp> parseModuleFile(const std::string &path,
                                      MLIRContext &context) {
  InputFile file;
  std::string error;
  if (!file.open(path, "model", error)) {
    // Line 0: the diagnostic handler does not read the file to show a line.
    emitError(FileLineColLoc::get(&context, path, 0, 0)) << error;
    return {};
  }
  return parseModuleText(file.text(), path, context);
}

OwningOpRef<ModuleOp> parseModuleText(std::string_view text,
                                      const std::string &name,
                                      MLIRContext &context) {
  if (failed(checkMlirText(text, name, context)))
    return {};
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(text.data(), text.size()), name),
      llvm::SMLoc());
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (module && failed(checkStaticSizeLimit(module->getOperation())))
    return {};
  // Bytecode skipped the bracket check: refuse regions nested deeper than
  // text may nest them, before anything walks the module recursively. The
  // depth is measured with an explicit stack.
  if (module && text.substr(0, 4) == std::string_view("ML\xefR", 4)) {
    SmallVector<std::pair<Operation *, unsigned>> stack{{*module, 0}};
    while (!stack.empty()) {
      auto [op, depth] = stack.pop_back_val();
      if (depth > kMaxMlirNesting) {
        emitError(FileLineColLoc::get(&context, name, 0, 0))
            << "regions nested deeper than " << kMaxMlirNesting
            << " levels are refused";
        return {};
      }
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Operation &inner : block)
            stack.push_back({&inner, depth + 1});
    }
  }
  return module;
}

FailureOr<std::string> weightFileFor(ModuleOp module,
                                     const std::string &mlirPath,
                                     std::string &error) {
  auto attr = module->getAttrOfType<StringAttr>(top::kWeightFileAttr);
  if (!attr)
    return std::string();
  llvm::SmallString<256> dir(mlirPath);
  llvm::sys::path::remove_filename(dir);
  std::string resolved;
  if (!resolveInsideFolder(std::string(dir), attr.str(),
                           "the model's top.weight_file", resolved, error)) {
    error += "; give a weight file elsewhere with --weights";
    return failure();
  }
  return resolved;
}

LogicalResult loadTopModel(const std::string &mlirPath,
                           const std::string &weightsPath, MLIRContext &context,
                           OwningOpRef<ModuleOp> &module, TensorMap &weights,
                           std::string &error) {
  module = parseModuleFile(mlirPath, context);
  if (!module) {
    error = "cannot load model '" + mlirPath + "'";
    return failure();
  }
  std::string path = weightsPath;
  if (path.empty()) {
    FailureOr<std::string> named = weightFileFor(*module, mlirPath, error);
    if (failed(named)) {
      error = "weights of '" + mlirPath + "': " + error;
      return failure();
    }
    path = *named;
  }
  if (path.empty()) {
    // Weights with inline data need no file.
    std::string needsFile;
    module->walk([&](top::WeightOp w) {
      if (!w.getValueAttr() && needsFile.empty())
        needsFile = w.getName().str();
    });
    if (!needsFile.empty()) {
      error = "model '" + mlirPath + "' has weights whose data is in a file " +
              "(top.Weight '" + needsFile +
              "') but no top.weight_file attribute naming it; give the file "
              "with --weights";
      return failure();
    }
    return success();
  }
  if (!readNpz(path, weights, error)) {
    error = "weights of '" + mlirPath + "': " + error;
    return failure();
  }
  return success();
}

LogicalResult writeModuleFile(ModuleOp module, const std::string &path,
                              std::string &error) {
  std::string tmp = path + ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec) {
      error = "cannot write '" + tmp + "': " + ec.message();
      return failure();
    }
    OpPrintingFlags flags;
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    module->print(os, flags);
    os << "\n";
    os.close();
    if (os.has_error()) {
      error = "cannot write '" + tmp + "': " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return failure();
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
    error = "cannot rename '" + tmp + "' to '" + path + "': " + ec.message();
    llvm::sys::fs::remove(tmp);
    return failure();
  }
  return success();
}

LogicalResult writeModelPair(ModuleOp module, const TensorMap &weights,
                             const std::string &dir, const std::string &name,
                             const std::string &mlirFile,
                             const std::string &weightFile,
                             std::string &error) {
  Builder b(module.getContext());
  module->setAttr(top::kModelNameAttr, b.getStringAttr(name));
  module->setAttr(top::kWeightFileAttr, b.getStringAttr(weightFile));
  llvm::SmallString<256> npz(dir), mlir(dir);
  llvm::sys::path::append(npz, weightFile);
  llvm::sys::path::append(mlir, mlirFile);
  if (!writeNpz(std::string(npz), weights, error))
    return failure();
  if (failed(writeModuleFile(module, std::string(mlir), error))) {
    llvm::sys::fs::remove(npz);
    return failure();
  }
  return success();
}

LogicalResult writeTopModel(ModuleOp module, const TensorMap &weights,
                            const std::string &dir, const std::string &name,
                            std::string &error) {
  return writeModelPair(module, weights, dir, name, name + "_origin.mlir",
                        name + "_TOP_F32_all_weight.npz", error);
}

} // namespace strata
