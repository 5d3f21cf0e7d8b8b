//===- strata.cpp - the Strata command-line driver ------------------------===//
//
// strata <command> [options]; `strata <command> --help` describes each.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace strata::cli;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "Strata neural-network compiler\n\n"
      "  strata import MODEL.onnx -o DIR [--name N] [--input-shapes ...]\n"
      "      import an ONNX model into a Top model\n"
      "  strata compile MODEL(.onnx|.mlir) -o DIR [--name N] [--no-optimize]\n"
      "      optimize a model (the only target so far: optimized Top)\n"
      "  strata run-ref MODEL.mlir --input in.npz --output out.npz\n"
      "      run a Top model through the reference interpreter\n"
      "  strata compare a.npz b.npz [--tolerance cos,euclid]\n"
      "      compare two npz files tensor by tensor\n"
      "  strata check-equiv A.mlir B.mlir [--runs N] [--seed S] [--input in.npz]\n"
      "      check that two Top models compute the same outputs\n\n"
      "Run 'strata <command> --help' for a command's options.\n");
  if (RunRefCommand)
    return runRef();
  if (CompareCommand)
    return compare();
  if (CheckEquivCommand)
    return checkEquiv();
  if (ImportCommand)
    return import();
  if (CompileCommand)
    return compile();
  llvm::errs() << "strata: no command given; run 'strata --help'\n";
  return 2;
}
