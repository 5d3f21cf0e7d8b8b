//===- Quantize.cpp - strata quantize -------------------------------------===//
//
// strata quantize MODEL --quantize int8|bf16|f16 [--calibration table.txt]
//   [--keep-float NAMES] [--keep-float-file F] [--symmetric] -o DIR
// Optimizes the model (top-optimize), runs top-quantize and writes the
// quantized Top model DIR/<name>.mlir with DIR/<name>_TOP_<MODE>_weight.npz
// (docs/quantization.md).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "QuantCommon.h"

#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Quantize.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata::cli {

cl::SubCommand
    QuantizeCommand("quantize",
                    "Quantize a model to int8, bf16 or f16 (a Top model)");

static cl::opt<std::string> model(cl::Positional, cl::Required,
                                  cl::desc("<model.onnx | model.mlir>"),
                                  cl::sub(QuantizeCommand));
static cl::opt<std::string> mode("quantize", cl::Required,
                                 cl::desc("int8, bf16 or f16"),
                                 cl::value_desc("MODE"),
                                 cl::sub(QuantizeCommand));
static QuantizeOptions quantizeOptions(QuantizeCommand);
static cl::list<std::string> inputShapes(
    "input-shapes",
    cl::desc("ONNX: fix an input's shape, name:1x3x224x224 (repeatable or "
             "comma-separated)"),
    cl::value_desc("name:DxDx..."), cl::CommaSeparated,
    cl::sub(QuantizeCommand));
static cl::opt<bool> searchSensitiveOpt(
    "search-sensitive",
    cl::desc("--quantize int8: keep the layers whose quantization costs the "
             "most output cosine in float until --target-cosine holds on the "
             "--data samples"),
    cl::sub(QuantizeCommand));
static cl::opt<bool> searchActivations(
    "search-activations",
    cl::desc("--search-sensitive: search over the fused activations made "
             "int8 tables (<name>_preact: the activation kept float, its "
             "layer int8) instead of the layers"),
    cl::sub(QuantizeCommand));
static cl::opt<double> targetCosine(
    "target-cosine",
    cl::desc("--search-sensitive: the output cosine to reach (default 0.99)"),
    cl::value_desc("C"), cl::init(0.99), cl::sub(QuantizeCommand));
static SampleOptions sampleOptions(QuantizeCommand, /*required=*/false,
                                   "--search-sensitive: ");
static cl::opt<std::string> outDir("o", cl::Required,
                                   cl::desc("the output folder"),
                                   cl::value_desc("DIR"),
                                   cl::sub(QuantizeCommand));
static cl::opt<std::string>
    modelName("name", cl::desc("model name (default: the input's stem)"),
              cl::value_desc("N"), cl::sub(QuantizeCommand));

int quantize() {
  if (modelName.getNumOccurrences() &&
      !checkModelName("strata quantize", modelName))
    return 2;
  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &context, llvm::errs());
  QuantizeRequest request = quantizeOptions.request(mode);
  auto loaded = loadOptimizedForQuant(
      "strata quantize", model, context,
      std::vector<std::string>(inputShapes.begin(), inputShapes.end()));
  if (failed(loaded))
    return 1;
  if (searchSensitiveOpt) {
    if (mode != "int8" || sampleOptions.data.empty()) {
      errs() << "strata quantize: --search-sensitive needs --quantize int8 "
                "and --data\n";
      return 2;
    }
    std::string error;
    if (!checkSearchTarget(targetCosine, error)) {
      errs() << "strata quantize: " << error << "\n";
      return 2;
    }
    std::vector<std::string> files;
    if (!sampleOptions.collect("strata quantize", files))
      return 2;
    std::vector<TensorMap> inputs(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
      std::string error;
      if (!readNpz(files[i], inputs[i], error)) {
        errs() << "strata quantize: sample '" << files[i] << "': " << error
               << "\n";
        return 1;
      }
    }
    auto keep =
        searchSensitive("strata quantize", *loaded->module, loaded->weights,
                        request, inputs, targetCosine, searchActivations);
    if (failed(keep)) {
      errs() << "strata quantize: the sensitive-layer search failed\n";
      return 1;
    }
    request.keepFloat.insert(request.keepFloat.end(), keep->begin(),
                             keep->end());
  } else if (sampleOptions.data.getNumOccurrences() ||
             sampleOptions.samples.getNumOccurrences() ||
             targetCosine.getNumOccurrences() ||
             searchActivations.getNumOccurrences()) {
    errs() << "strata quantize: --data, --samples, --target-cosine and "
              "--search-activations need --search-sensitive\n";
    return 2;
  }
  bool usageError = false;
  FailureOr<TensorMap> weights = quantizeModel(
      "strata quantize", *loaded->module, loaded->weights, request, usageError);
  if (failed(weights))
    return usageError ? 2 : 1;
  std::string name = modelName;
  if (name.empty()) {
    name = sys::path::stem(model).str();
    if (StringRef(name).ends_with("_origin"))
      name.resize(name.size() - StringRef("_origin").size());
  }
  if (!prepareOutputDir("strata quantize", outDir))
    return 1;
  std::string weightFile =
      name + "_TOP_" + StringRef(mode).upper() + "_weight.npz";
  std::string error;
  if (failed(writeModelPair(*loaded->module, *weights, outDir, name,
                            name + ".mlir", weightFile, error))) {
    errs() << "strata quantize: " << error << "\n";
    return 1;
  }
  outs() << "wrote " << outDir << "/" << name << ".mlir and " << outDir << "/"
         << weightFile << "\n";
  if (searchSensitiveOpt) {
    // The layers kept in float, for --keep-float-file next time.
    std::string keepFile = outDir + "/" + name + "_keep_float.txt";
    std::error_code ec;
    raw_fd_ostream os(keepFile, ec);
    if (ec) {
      errs() << "strata quantize: cannot write '" << keepFile
             << "': " << ec.message() << "\n";
      return 1;
    }
    os << "# layers strata quantize --search-sensitive kept in float\n";
    for (const std::string &k : request.keepFloat)
      os << k << "\n";
    outs() << "wrote " << keepFile << "\n";
  }
  return 0;
}

} // namespace strata::cli
