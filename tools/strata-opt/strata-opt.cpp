//===- strata-opt.cpp - Strata's mlir-opt ---------------------------------===//
//
// Parses, verifies, transforms and prints MLIR with Strata's dialects and
// passes registered, plus the upstream func, arith, tensor and quant dialects
// and MLIR's generic passes (canonicalize, cse, ...).
//
//===----------------------------------------------------------------------===//

#include "strata/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  strata::registerAllDialects(registry);
  strata::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Strata optimizer driver\n", registry));
}
