//===- Calibrate.cpp - strata calibrate -----------------------------------===//
//
// strata calibrate MODEL --data DIR|FILE.npz... [--samples N]
//   [--method minmax|percentile|kl] -o table.txt
// Runs the optimized model (top-optimize, as strata quantize and compile
// --quantize see it) through the reference interpreter once per sample
// (twice for the histogram methods; calibrateTopModule in
// lib/Pipelines/Quantize.cpp, shared with the Python package) and writes the
// calibration table (docs/quantization.md).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "QuantCommon.h"

#include "strata/Dialect/Top/Transforms/Calibration.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Quantize.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata::cli {

cl::SubCommand CalibrateCommand(
    "calibrate",
    "Collect activation statistics over sample inputs into a calibration "
    "table for int8 quantization");

static cl::opt<std::string> model(cl::Positional, cl::Required,
                                  cl::desc("<model.onnx | model.mlir>"),
                                  cl::sub(CalibrateCommand));
static SampleOptions sampleOptions(CalibrateCommand, /*required=*/true, "");
static cl::opt<std::string> method(
    "method", cl::desc("threshold method: minmax, percentile (default) or kl"),
    cl::value_desc("M"), cl::init("percentile"), cl::sub(CalibrateCommand));
static cl::opt<double>
    percentile("percentile",
               cl::desc("--method percentile: the percentile of |x| "
                        "(default 99.99)"),
               cl::value_desc("P"), cl::init(99.99), cl::sub(CalibrateCommand));
static cl::opt<bool> biasCorrection(
    "bias-correction",
    cl::desc("also write the per-channel means of the int8 layers' inputs "
             "(@mean rows), from which strata quantize / compile --quantize "
             "int8 correct the biases for the weights' rounding"),
    cl::sub(CalibrateCommand));
static cl::list<std::string> inputShapes(
    "input-shapes",
    cl::desc("ONNX: fix an input's shape, name:1x3x224x224 (repeatable or "
             "comma-separated)"),
    cl::value_desc("name:DxDx..."), cl::CommaSeparated,
    cl::sub(CalibrateCommand));
static cl::opt<std::string> outFile("o", cl::Required,
                                    cl::desc("the calibration table to write"),
                                    cl::value_desc("table.txt"),
                                    cl::sub(CalibrateCommand));

int calibrate() {
  std::vector<std::string> files;
  if (!sampleOptions.collect("strata calibrate", files))
    return 2;
  // A bad method or percentile is a usage error (exit 2), found before the
  // model is read.
  std::string error;
  if (!checkCalibrationSettings(method, percentile, error)) {
    errs() << "strata calibrate: " << error << "\n";
    return 2;
  }

  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &context, llvm::errs());
  auto loaded = loadOptimizedForQuant(
      "strata calibrate", model, context,
      std::vector<std::string>(inputShapes.begin(), inputShapes.end()));
  if (failed(loaded))
    return 1;
  auto readSample = [&](size_t s, TensorMap &inputs, std::string &why) {
    if (readNpz(files[s], inputs, why))
      return true;
    why = "sample '" + files[s] + "': " + why;
    return false;
  };
  auto progress = [&](int pass, size_t s) {
    errs() << "\rstrata calibrate: " << (pass ? "histograms" : "ranges") << " ["
           << (s + 1) << "/" << files.size() << "]";
  };
  FailureOr<calib::CalibrationTable> table = calibrateTopModule(
      *loaded->module, loaded->weights, files.size(), readSample, method,
      percentile, error, progress, QuantizeSettingNames{}, biasCorrection);
  errs() << "\n";
  if (failed(table)) {
    errs() << "strata calibrate: " << error << "\n";
    return 1;
  }
  if (!calib::writeCalibrationTable(outFile, *table, error)) {
    errs() << "strata calibrate: " << error << "\n";
    return 1;
  }
  outs() << "wrote " << outFile << " (" << table->entries.size() << " tensors, "
         << files.size() << " samples, " << method
         << (biasCorrection ? ", channel means" : "") << ")\n";
  return 0;
}

} // namespace strata::cli
