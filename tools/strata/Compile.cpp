//===- Compile.cpp - strata compile ---------------------------------------===//
//
// strata compile MODEL(.onnx | .mlir) -o DIR: import (for ONNX), run the
// default Top optimization pipeline and write the result. The only target so
// far is `top` (the optimized, hardware-independent Top model); the CPU and
// NPU back ends add theirs.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "strata/Frontend/Onnx/OnnxImporter.h"
#include "strata/InitAll.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Optimize.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata::cli {

cl::SubCommand CompileCommand(
    "compile", "Compile an ONNX or Top model (default: optimize it in Top)");

static cl::opt<std::string>
    modelFile(cl::Positional, cl::Required,
              cl::desc("<model.onnx | model.mlir>"), cl::sub(CompileCommand));
static cl::opt<std::string> outDir("o", cl::Required,
                                   cl::desc("output folder (created if missing)"),
                                   cl::value_desc("DIR"),
                                   cl::sub(CompileCommand));
static cl::opt<std::string> modelName(
    "name",
    cl::desc("model name: files are DIR/<name>.mlir and "
             "DIR/<name>_TOP_F32_weight.npz (default: the input's stem "
             "without a trailing _origin)"),
    cl::value_desc("N"), cl::sub(CompileCommand));
static cl::opt<std::string> target(
    "target",
    cl::desc("what to produce; 'top' (the only target so far): the "
             "optimized Top model"),
    cl::value_desc("T"), cl::init("top"), cl::sub(CompileCommand));
static cl::list<std::string> inputShapes(
    "input-shapes",
    cl::desc("ONNX input only: fix an input's shape, name:1x3x224x224 "
             "(repeatable or comma-separated)"),
    cl::value_desc("name:DxDx..."), cl::CommaSeparated,
    cl::sub(CompileCommand));
static cl::opt<bool> noOptimize(
    "no-optimize",
    cl::desc("skip top-optimize: write the model as imported or read"),
    cl::sub(CompileCommand));
static cl::opt<std::string> passes(
    "passes",
    cl::desc("run this pass pipeline instead of top-optimize: strata-opt's "
             "pass names, comma-separated (e.g. 'top-fold-batchnorm' or "
             "'top-fuse-idioms,canonicalize'), with the weights' data "
             "available to the passes as in top-optimize"),
    cl::value_desc("PIPELINE"), cl::sub(CompileCommand));
static cl::opt<std::string> layout(
    "layout",
    cl::desc("convert layout-sensitive ops (Conv, pools, norms, ...) to "
             "'nchw' or 'nhwc' while optimizing (default: keep the model's)"),
    cl::value_desc("L"), cl::sub(CompileCommand));

/// Reads `modelFile` as an ONNX model or as a Top module with its weights.
static FailureOr<onnx_import::ImportedModel> load(mlir::MLIRContext &context) {
  onnx_import::ImportedModel model;
  if (StringRef(modelFile).ends_with(".onnx")) {
    onnx_import::ImportOptions options;
    options.name = modelName;
    for (const std::string &spec : inputShapes)
      if (!parseInputShape("strata compile", spec, options.inputShapes))
        return failure();
    return onnx_import::importOnnxFile(modelFile, context, options);
  }
  if (!inputShapes.empty()) {
    errs() << "strata compile: --input-shapes applies to ONNX models only\n";
    return failure();
  }
  std::string error;
  if (failed(loadTopModel(modelFile, "", context, model.module, model.weights,
                          error))) {
    errs() << "strata compile: " << error << "\n";
    return failure();
  }
  return model;
}

int compile() {
  if (target != "top") {
    errs() << "strata compile: --target '" << target
           << "' is not available; the only target so far is 'top'\n";
    return 2;
  }
  if (!layout.empty() && layout != "nchw" && layout != "nhwc") {
    errs() << "strata compile: --layout '" << layout
           << "' must be 'nchw' or 'nhwc'\n";
    return 2;
  }
  if (!passes.empty() && (noOptimize || !layout.empty())) {
    errs() << "strata compile: --passes replaces top-optimize; it cannot be "
              "combined with --no-optimize or --layout\n";
    return 2;
  }
  if (!passes.empty()) {
    registerAllPasses();
    mlir::OpPassManager probe("builtin.module");
    if (failed(parseTopPipeline(passes, probe, errs()))) {
      errs() << "strata compile: --passes '" << passes
             << "' is not a pass pipeline ('strata-opt --help' lists the "
                "passes)\n";
      return 2;
    }
  }
  if (modelName.getNumOccurrences() &&
      !checkModelName("strata compile", modelName))
    return 2;
  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  // Errors name the op and its node; printing the op (a whole function for
  // an error on the entry function) would bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &context, llvm::errs());

  FailureOr<onnx_import::ImportedModel> model = load(context);
  if (failed(model)) {
    errs() << "strata compile: cannot read '" << modelFile << "'\n";
    return 1;
  }
  TensorMap weights = std::move(model->weights);
  if (!noOptimize) {
    FailureOr<TensorMap> optimized =
        passes.empty() ? optimizeTopModule(*model->module, weights, layout)
                       : runTopPipeline(*model->module, weights, passes);
    if (failed(optimized)) {
      errs() << "strata compile: optimizing '" << modelFile
             << "' failed (--no-optimize skips it)\n";
      return 1;
    }
    weights = std::move(*optimized);
  }
  std::string name = modelName;
  if (name.empty()) {
    name = sys::path::stem(modelFile).str();
    if (StringRef(name).ends_with("_origin"))
      name.resize(name.size() - StringRef("_origin").size());
  }
  if (!prepareOutputDir("strata compile", outDir))
    return 1;
  std::string error;
  if (failed(writeOptimizedTopModel(*model->module, weights, outDir, name,
                                    error))) {
    errs() << "strata compile: " << error << "\n";
    return 1;
  }
  outs() << "wrote " << outDir << "/" << name << ".mlir and " << outDir << "/"
         << name << "_TOP_F32_weight.npz\n";
  return 0;
}

} // namespace strata::cli
