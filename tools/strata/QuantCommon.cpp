//===- QuantCommon.cpp - shared by strata calibrate, quantize, compile ---===//

#include "QuantCommon.h"
#include "Commands.h"

#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Optimize.h"
#include "strata/Pipelines/Quantize.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"

#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;

namespace strata::cli {

FailureOr<onnx_import::ImportedModel>
loadOptimizedForQuant(StringRef tool, const std::string &path,
                      mlir::MLIRContext &context,
                      const std::vector<std::string> &inputShapes) {
  FailureOr<onnx_import::ImportedModel> model;
  onnx_import::ImportOptions options;
  for (const std::string &spec : inputShapes)
    if (!parseInputShape(tool, spec, options.inputShapes))
      return failure();
  if (StringRef(path).ends_with(".onnx")) {
    model = onnx_import::importOnnxFile(path, context, options);
  } else {
    if (!inputShapes.empty()) {
      errs() << tool << ": --input-shapes applies to ONNX models\n";
      return failure();
    }
    onnx_import::ImportedModel m;
    std::string error;
    if (failed(loadTopModel(path, "", context, m.module, m.weights, error))) {
      errs() << tool << ": " << error << "\n";
      return failure();
    }
    model = std::move(m);
  }
  if (failed(model)) {
    errs() << tool << ": cannot read '" << path << "'\n";
    return failure();
  }
  FailureOr<TensorMap> optimized =
      optimizeTopModule(*model->module, model->weights);
  if (failed(optimized)) {
    errs() << tool << ": optimizing '" << path << "' failed\n";
    return failure();
  }
  model->weights = std::move(*optimized);
  return model;
}

/// The library's settings for `request`.
static QuantizeSettings settingsOf(const QuantizeRequest &request) {
  return {
      request.mode,         request.calibration,      request.keepFloat,
      request.symmetric,    request.floatActivations, request.perChannelTables,
      request.keepFloatFile, request.tableInput};
}

FailureOr<TensorMap> quantizeModel(StringRef tool, mlir::ModuleOp module,
                                   const TensorMap &weights,
                                   QuantizeRequest request, bool &usageError) {
  std::string error;
  FailureOr<TensorMap> result = quantizeTopModule(
      module, weights, settingsOf(request), error, usageError);
  if (failed(result))
    errs() << tool << ": " << error << "\n";
  return result;
}

FailureOr<std::vector<std::string>>
searchSensitive(StringRef tool, mlir::ModuleOp module, const TensorMap &weights,
                const QuantizeRequest &base,
                const std::vector<TensorMap> &samples, double target,
                bool activations) {
  std::string error;
  bool progressed = false;
  auto progress = [&](size_t i, size_t n) {
    errs() << "\r" << tool << ": sensitivity [" << (i + 1) << "/" << n << "]";
    progressed = true;
  };
  FailureOr<SensitiveSearchResult> result =
      searchSensitiveLayers(module, weights, settingsOf(base), samples, target,
                            activations, error, progress);
  if (progressed)
    errs() << "\n";
  if (failed(result)) {
    errs() << tool << ": " << error << "\n";
    return failure();
  }
  outs() << (activations ? "activation table" : "layer")
         << " sensitivity (output cosine loss when quantized alone):\n";
  for (const auto &[name, loss] : result->ranking)
    outs() << "  " << name << " " << format("%.3g", loss) << "\n";
  outs() << "kept in float: " << result->keepFloat.size() << " of "
         << result->ranking.size()
         << (activations ? " activation tables" : " layers")
         << "; output cosine " << format("%.6f", result->cosine) << " (target "
         << format("%g", target) << ")"
         << (result->cosine < target ? ", NOT reached" : "") << "\n";
  return result->keepFloat;
}

QuantizeOptions::QuantizeOptions(cl::SubCommand &sub)
    : calibration("calibration",
                  cl::desc("--quantize int8: the table strata calibrate wrote"),
                  cl::value_desc("table.txt"), cl::sub(sub)),
      keepFloat("keep-float", cl::CommaSeparated,
                cl::desc("--quantize: keep the ops producing these tensors "
                         "in float"),
                cl::value_desc("NAMES"), cl::sub(sub)),
      keepFloatFile("keep-float-file",
                    cl::desc("--quantize: a file of tensor names to keep in "
                             "float, one a line"),
                    cl::value_desc("F"), cl::sub(sub)),
      symmetric("symmetric",
                cl::desc("--quantize int8: symmetric activations (zero point "
                         "0; default asymmetric)"),
                cl::sub(sub)),
      floatActivations(
          "float-activations",
          cl::desc("--quantize int8: compute fused activations (SiLU, "
                   "HardSwish, ...) in float from the int32 accumulator "
                   "instead of an int8 table (the layer then stays on the "
                   "CPU's int32 path)"),
          cl::sub(sub)),
      perChannelTables(
          "per-channel-tables",
          cl::desc("--quantize int8: give each channel of a fused "
                   "activation's table input its own scale (the calibration "
                   "table's @range rows; one table per channel)"),
          cl::sub(sub)),
      tableInput("table-input",
                 cl::desc("--quantize int8: int16 requantizes the "
                          "accumulator to int16 (not int8) and looks the "
                          "fused activation up in an interpolated 513-entry "
                          "table (top.Table16)"),
                 cl::value_desc("int8|int16"), cl::init("int8"), cl::sub(sub)) {
}

QuantizeRequest QuantizeOptions::request(const std::string &mode) const {
  return {mode,
          calibration,
          std::vector<std::string>(keepFloat.begin(), keepFloat.end()),
          keepFloatFile,
          symmetric,
          floatActivations,
          perChannelTables,
          tableInput};
}

bool QuantizeOptions::anyGiven() const {
  return calibration.getNumOccurrences() || keepFloat.getNumOccurrences() ||
         keepFloatFile.getNumOccurrences() || symmetric.getNumOccurrences() ||
         floatActivations.getNumOccurrences() ||
         perChannelTables.getNumOccurrences() ||
         tableInput.getNumOccurrences();
}

SampleOptions::SampleOptions(cl::SubCommand &sub, bool required,
                             StringRef purpose)
    : dataHelp(purpose.str() +
               "sample inputs: npz files (one sample each, one array "
               "per model input, keyed by name) or folders of them"),
      samplesHelp(purpose.str() +
                  "use the first N samples (default: all); more than "
                  "--data holds is an error"),
      data("data", required ? cl::OneOrMore : cl::ZeroOrMore,
           cl::desc(dataHelp), cl::value_desc("DIR|FILE.npz"), cl::sub(sub)),
      samples("samples", cl::desc(samplesHelp), cl::value_desc("N"),
              cl::init(0), cl::sub(sub)) {}

bool SampleOptions::collect(StringRef tool,
                            std::vector<std::string> &files) const {
  return collectSampleFiles(
      tool, std::vector<std::string>(data.begin(), data.end()), samples, files);
}

/// The sample files --data names, in order (a folder's npz files sorted).
bool collectSampleFiles(StringRef tool, const std::vector<std::string> &data,
                        unsigned samples, std::vector<std::string> &files) {
  for (const std::string &d : data) {
    if (sys::fs::is_directory(d)) {
      std::error_code ec;
      std::vector<std::string> inDir;
      for (sys::fs::directory_iterator it(d, ec), end; it != end && !ec;
           it.increment(ec))
        if (StringRef(it->path()).ends_with(".npz"))
          inDir.push_back(it->path());
      if (ec) {
        errs() << tool << ": cannot list '" << d << "': " << ec.message()
               << "\n";
        return false;
      }
      if (inDir.empty()) {
        errs() << tool << ": --data folder '" << d << "' holds no .npz file\n";
        return false;
      }
      std::sort(inDir.begin(), inDir.end());
      files.insert(files.end(), inDir.begin(), inDir.end());
    } else if (sys::fs::exists(d)) {
      files.push_back(d);
    } else {
      errs() << tool << ": --data '" << d << "' does not exist\n";
      return false;
    }
  }
  if (samples > files.size()) {
    errs() << tool << ": --samples " << samples << " but --data holds "
           << files.size() << " sample(s)\n";
    return false;
  }
  if (samples)
    files.resize(samples);
  return true;
}

} // namespace strata::cli
