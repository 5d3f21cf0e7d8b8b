//===- Import.cpp - strata import -----------------------------------------===//

#include "Commands.h"

#include "strata/Conversion/TosaToTop/TosaToTop.h"
#include "strata/Frontend/Onnx/OnnxImporter.h"
#include "strata/Frontend/TFLite/TFLiteImporter.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Optimize.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata::cli {

cl::SubCommand ImportCommand(
    "import", "Import an ONNX, TFLite or TOSA (.mlir, .mlirbc) model into a "
              "Top model (.mlir + weight npz)");

static cl::opt<std::string> onnxFile(cl::Positional, cl::Required,
                                     cl::desc("<model.onnx|.tflite|.mlir|.mlirbc>"),
                                     cl::sub(ImportCommand));
static cl::opt<std::string> outDir("o", cl::Required,
                                   cl::desc("output folder (created if missing)"),
                                   cl::value_desc("DIR"), cl::sub(ImportCommand));
static cl::opt<std::string>
    modelName("name",
              cl::desc("model name: files are DIR/<name>_origin.mlir and "
                       "DIR/<name>_TOP_F32_all_weight.npz (default: the ONNX "
                       "file's stem)"),
              cl::value_desc("N"), cl::sub(ImportCommand));
static cl::list<std::string> inputShapes(
    "input-shapes",
    cl::desc("fix an input's shape, replacing symbolic dims: name:1x3x224x224 "
             "(repeatable or comma-separated)"),
    cl::value_desc("name:DxDx..."), cl::CommaSeparated, cl::sub(ImportCommand));

static cl::list<std::string> sequenceLengths(
    "sequence-lengths",
    cl::desc("length of a sequence-typed input: name:N; element i is the "
             "input name.i (repeatable or comma-separated)"),
    cl::value_desc("name:N"), cl::CommaSeparated, cl::sub(ImportCommand));
static cl::list<std::string> absentInputs(
    "absent-inputs",
    cl::desc("optional-typed inputs that are empty (absent) in this import "
             "(repeatable or comma-separated)"),
    cl::value_desc("name"), cl::CommaSeparated, cl::sub(ImportCommand));

static cl::opt<std::string> freezeInputs(
    "freeze-inputs",
    cl::desc("npz of input values to bake into the model as constants (for "
             "shape-like inputs: a Reshape's shape, axes, indices)"),
    cl::value_desc("values.npz"), cl::sub(ImportCommand));

static cl::opt<bool> noOptimize(
    "no-optimize",
    cl::desc("write only the imported model (<name>_origin.mlir), without the "
             "optimized <name>.mlir that top-optimize makes from it"),
    cl::sub(ImportCommand));
static cl::opt<std::string> layout(
    "layout",
    cl::desc("convert layout-sensitive ops (Conv, pools, norms, ...) of the "
             "optimized model to 'nchw' or 'nhwc' (default: keep the model's)"),
    cl::value_desc("L"), cl::sub(ImportCommand));

bool parseInputShape(StringRef tool, StringRef spec,
                     std::map<std::string, std::vector<int64_t>> &shapes) {
  auto [name, dims] = spec.rsplit(':');
  if (name.empty() || dims.empty()) {
    errs() << tool << ": --input-shapes expects name:D0xD1x..., got '" << spec
           << "'\n";
    return false;
  }
  std::vector<int64_t> shape;
  SmallVector<StringRef> parts;
  dims.split(parts, 'x');
  for (StringRef p : parts) {
    int64_t d;
    if (p.getAsInteger(10, d) || d < 0) {
      errs() << tool << ": --input-shapes '" << spec << "': dim '" << p
             << "' is not a non-negative integer\n";
      return false;
    }
    shape.push_back(d);
  }
  shapes[name.str()] = shape;
  return true;
}

/// Whether `path` names a TFLite model: its extension, or the "TFL3" file
/// identifier at bytes 4..7 of a regular file.
static bool isTFLiteFile(StringRef path) {
  if (sys::path::extension(path).equals_insensitive(".tflite"))
    return true;
  // Only a regular file is peeked at (a FIFO would block); the ONNX path
  // reports anything else.
  if (!sys::fs::is_regular_file(path))
    return false;
  auto buf = MemoryBuffer::getFileSlice(path, 8, 0);
  if (!buf)
    return false;
  StringRef b = (*buf)->getBuffer();
  return tflite_import::isTFLiteBuffer(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(b.data()), b.size()));
}

int import() {
  if (!layout.empty() && layout != "nchw" && layout != "nhwc") {
    errs() << "strata import: --layout '" << layout
           << "' must be 'nchw' or 'nhwc'\n";
    return 2;
  }
  if (!layout.empty() && noOptimize) {
    errs() << "strata import: --layout applies to the optimized model; it "
              "cannot be combined with --no-optimize\n";
    return 2;
  }
  if (modelName.getNumOccurrences() && !checkModelName("strata import", modelName))
    return 2;
  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  // Errors name the op and its node; printing the op (a whole function for
  // an error on the entry function) would bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &context, llvm::errs());

  onnx_import::ImportOptions options;
  options.name = modelName;
  for (const std::string &spec : inputShapes)
    if (!parseInputShape("strata import", spec, options.inputShapes))
      return 2;
  for (StringRef spec : sequenceLengths) {
    auto [name, len] = spec.rsplit(':');
    int64_t n;
    if (name.empty() || len.getAsInteger(10, n) || n < 0) {
      errs() << "strata import: --sequence-lengths expects name:N with N >= "
                "0, got '"
             << spec << "'\n";
      return 2;
    }
    options.sequenceLengths[name.str()] = n;
  }
  options.absentInputs.assign(absentInputs.begin(), absentInputs.end());
  if (!freezeInputs.empty()) {
    std::string error;
    if (!readNpz(freezeInputs, options.frozenInputs, error)) {
      errs() << "strata import: " << error << "\n";
      return 1;
    }
  }
  StringRef ext = sys::path::extension(onnxFile);
  FailureOr<onnx_import::ImportedModel> model = failure();
  if (ext == ".mlir" || ext == ".mlirbc") {
    // A TOSA model (docs/tosa.md); the ONNX options do not apply.
    if (auto tosa = conversion::importTosaFile(onnxFile, context);
        succeeded(tosa))
      model = onnx_import::ImportedModel{std::move(tosa->module),
                                         std::move(tosa->weights)};
  } else if (isTFLiteFile(onnxFile)) {
    // A .tflite file (or one with the TFLite identifier, docs/tflite.md);
    // of the ONNX options only --input-shapes applies.
    auto tfl = tflite_import::importTFLiteFile(onnxFile, context, modelName,
                                                options.inputShapes);
    if (succeeded(tfl))
      model = onnx_import::ImportedModel{std::move(tfl->module),
                                         std::move(tfl->weights)};
  } else {
    model = onnx_import::importOnnxFile(onnxFile, context, options);
  }
  if (failed(model)) {
    errs() << "strata import: cannot import '" << onnxFile << "'\n";
    return 1;
  }
  std::string name =
      modelName.empty() ? sys::path::stem(onnxFile).str() : modelName.getValue();
  if (!prepareOutputDir("strata import", outDir))
    return 1;
  // Optimize a copy first, so that a failure leaves no file behind.
  mlir::OwningOpRef<mlir::ModuleOp> optimized;
  TensorMap optimizedWeights;
  if (!noOptimize) {
    optimized = model->module->clone();
    FailureOr<TensorMap> w =
        optimizeTopModule(*optimized, model->weights, layout);
    if (failed(w)) {
      errs() << "strata import: optimizing '" << onnxFile
             << "' failed (--no-optimize skips it)\n";
      return 1;
    }
    optimizedWeights = std::move(*w);
  }
  std::string error;
  if (failed(writeTopModel(*model->module, model->weights, outDir, name,
                           error))) {
    errs() << "strata import: " << error << "\n";
    return 1;
  }
  if (optimized &&
      failed(writeOptimizedTopModel(*optimized, optimizedWeights, outDir, name,
                                    error))) {
    errs() << "strata import: " << error << "\n";
    SmallString<256> origin(outDir), npz(outDir);
    sys::path::append(origin, name + "_origin.mlir");
    sys::path::append(npz, name + "_TOP_F32_all_weight.npz");
    sys::fs::remove(origin);
    sys::fs::remove(npz);
    return 1;
  }
  // Only now that every file is in place: none is reported and then removed.
  outs() << "wrote " << outDir << "/" << name << "_origin.mlir and " << outDir
         << "/" << name << "_TOP_F32_all_weight.npz\n";
  if (optimized)
    outs() << "wrote " << outDir << "/" << name << ".mlir and " << outDir
           << "/" << name << "_TOP_F32_weight.npz\n";
  return 0;
}

} // namespace strata::cli
