//===- strata.cpp - the Strata command-line driver ------------------------===//
//
// strata <command> [options]; `strata <command> --help` describes each.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "strata/Support/Limits.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace strata;
using namespace strata::cli;

/// Runs the command the command line names.
static int runCommand() {
  struct Command {
    cl::SubCommand &sub;
    int (*run)();
  };
  Command commands[] = {
      {RunRefCommand, runRef},         {CompareCommand, compare},
      {CheckEquivCommand, checkEquiv}, {ImportCommand, import},
      {CompileCommand, compile},       {RunCommand, run},
      {InspectCommand, inspect},       {CalibrateCommand, calibrate},
      {QuantizeCommand, quantize},
      {TuneCommand, tune}};
  for (Command &c : commands) {
    if (!c.sub)
      continue;
    if (!applyCommonOptions("strata " + c.sub.getName().str(), c.sub))
      return 2;
    return c.run();
  }
  llvm::errs() << "strata: no command given; run 'strata --help'\n";
  return 2;
}

/// LLVM's containers report a failed allocation here; by default LLVM then
/// aborts. Throwing lets the interpreter name the op that ran out of memory
/// and main end with a message.
static void throwBadAlloc(void *, const char *, bool) {
  throw std::bad_alloc();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::install_bad_alloc_error_handler(throwBadAlloc);
  hideForeignOptions();
  cl::ParseCommandLineOptions(
      argc, argv,
      "Strata neural-network compiler\n\n"
      "  strata import MODEL(.onnx|.tflite|.mlir|.mlirbc) -o DIR [--name N] ...\n"
      "      import an ONNX, TFLite or TOSA model into a Top model\n"
      "  strata compile MODEL(.onnx|.mlir) -o DIR [--name N] [--no-optimize]\n"
      "      optimize a model into an optimized Top model (--target top)\n"
      "  strata compile MODEL(.onnx|.mlir) --target cpu -o MODEL.strata\n"
      "                [--input-shapes name:DxD...]... [--report]\n"
      "      compile a model for this CPU into one artifact\n"
      "  strata tune MODEL(.onnx|.mlir) --log tune.jsonl [--budget-seconds N]\n"
      "      time the strategy's candidates per workload (docs/tuning.md)\n"
      "  strata run MODEL.strata --input in.npz --output out.npz [--repeat N]\n"
      "      run a compiled model through the Strata runtime\n"
      "  strata inspect MODEL.strata [--json]\n"
      "      print a compiled model's signature, variants, dispatches and "
      "sizes\n"
      "  strata calibrate MODEL --data DIR|FILE.npz -o table.txt\n"
      "      collect activation ranges for int8 quantization\n"
      "  strata quantize MODEL --quantize int8|bf16|f16 -o DIR\n"
      "      write a quantized Top model (docs/quantization.md)\n"
      "  strata run-ref MODEL.mlir --input in.npz --output out.npz\n"
      "      run a Top model through the reference interpreter\n"
      "  strata compare a.npz b.npz [--tolerance cos,euclid]\n"
      "      compare two npz files tensor by tensor\n"
      "  strata check-equiv A.mlir B.mlir [--runs N] [--seed S] [--input "
      "in.npz]\n"
      "      check that two Top models compute the same outputs\n\n"
      "Run 'strata <command> --help' for a command's options.\n");
  // No exception may end the tool: a failure that escapes a command (an
  // allocation outside the interpreter, a bug) becomes a message and exit 1.
  try {
    return runCommand();
  } catch (const TensorAllocationError &e) {
    llvm::errs() << "strata: " << describe(e) << "\n";
  } catch (const std::bad_alloc &) {
    llvm::errs() << "strata: out of memory\n";
  } catch (const std::exception &e) {
    llvm::errs() << "strata: internal error: " << e.what() << "\n";
  } catch (...) {
    llvm::errs() << "strata: internal error: unknown exception\n";
  }
  return 1;
}
