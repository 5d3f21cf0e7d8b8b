//===- ModelIO.cpp - reading and writing Top models -----------------------===//

#include "strata/Pipelines/ModelIO.h"
#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/InitAll.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace strata {

void registerAndLoadDialects(MLIRContext &context) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

OwningOpRef<ModuleOp> parseModuleFile(const std::string &path,
                                      MLIRContext &context) {
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  return parseSourceFile<ModuleOp>(path, config);
}

std::string weightFileFor(ModuleOp module, const std::string &mlirPath) {
  auto attr = module->getAttrOfType<StringAttr>(top::kWeightFileAttr);
  if (!attr)
    return "";
  if (llvm::sys::path::is_absolute(attr.getValue()))
    return attr.str();
  llvm::SmallString<256> dir(mlirPath);
  llvm::sys::path::remove_filename(dir);
  llvm::sys::path::append(dir, attr.getValue());
  return std::string(dir);
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
