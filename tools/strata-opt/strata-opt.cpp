//===- strata-opt.cpp - Strata optimizer driver ---------------------------===//
//
// MlirOptMain with Strata's dialects and passes (and every upstream one).
// Before MLIR's parser sees an input file, it gets the checks every Strata
// tool makes (strata/Support/InputFile.h, checkMlirText): a regular file
// under the size limit, text without NUL bytes, brackets nested at most 256
// deep, MLIR bytecode read and verified first in a child process. Standard
// input ("-") is read by MlirOptMain as usual.
//
//===----------------------------------------------------------------------===//

#include "strata/InitAll.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Support/InputFile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  strata::registerAllDialects(registry);
  strata::registerAllPasses();
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "Strata optimizer driver\n", registry);
  if (inputFile != "-") {
    strata::InputFile file;
    std::string error;
    if (!file.open(inputFile, "input", error)) {
      llvm::errs() << "strata-opt: " << error << "\n";
      return 1;
    }
    // The dialects and the unregistered-dialect setting MlirOptMain parses
    // with: bytecode is read first in a child process with them.
    mlir::MLIRContext context(registry);
    context.allowUnregisteredDialects(
        mlir::MlirOptMainConfig::createFromCLOptions()
            .shouldAllowUnregisteredDialects());
    if (mlir::failed(strata::checkMlirText(file.text(), inputFile, context)))
      return 1;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFile, outputFile, registry));
}
