//===- RunRef.cpp - strata run-ref ----------------------------------------===//

#include "Commands.h"

#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata::cli {

cl::SubCommand RunRefCommand(
    "run-ref",
    "Run a Top model (.mlir + weight npz) through the reference interpreter");

static cl::opt<std::string> model(cl::Positional, cl::Required,
                                  cl::desc("<model.mlir>"),
                                  cl::sub(RunRefCommand));
static cl::opt<std::string>
    inputFile("input", cl::Required,
              cl::desc("npz with one array per model input, keyed by name"),
              cl::value_desc("in.npz"), cl::sub(RunRefCommand));
static cl::opt<std::string>
    outputFile("output", cl::Required,
               cl::desc("npz to write the outputs to, keyed by name"),
               cl::value_desc("out.npz"), cl::sub(RunRefCommand));
static cl::opt<std::string> weightsFile(
    "weights",
    cl::desc("weight npz (default: the module's top.weight_file attribute, "
             "which must lie inside the model's folder)"),
    cl::value_desc("W.npz"), cl::sub(RunRefCommand));
static cl::opt<bool>
    dumpAll("dump-all",
            cl::desc("also write every intermediate tensor to the output"),
            cl::sub(RunRefCommand));

int runRef() {
  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  // Errors name the op and its node; printing the op (a whole function for
  // an error on the entry function) would bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &context, llvm::errs());

  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string error;
  TensorMap inputs, weights;
  if (failed(loadTopModel(model, weightsFile, context, module, weights,
                          error))) {
    errs() << "strata run-ref: " << error << "\n";
    return 1;
  }
  if (!readNpz(inputFile, inputs, error)) {
    errs() << "strata run-ref: " << error << "\n";
    return 1;
  }
  InterpreterOptions options;
  options.dumpAll = dumpAll;
  auto outputs = interpretModule(*module, inputs, weights, options);
  if (failed(outputs)) {
    errs() << "strata run-ref: execution of '" << model << "' failed\n";
    return 1;
  }
  if (!writeNpz(outputFile, *outputs, error)) {
    errs() << "strata run-ref: " << error << "\n";
    return 1;
  }
  return 0;
}

} // namespace strata::cli
