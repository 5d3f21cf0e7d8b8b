//===- Calibrate.cpp - strata calibrate -----------------------------------===//
//
// strata calibrate MODEL --data DIR|FILE.npz... [--samples N]
//   [--method minmax|percentile|kl] -o table.txt
// Runs the optimized model (top-optimize, as strata quantize and compile
// --quantize see it) through the reference interpreter once per sample
// (twice for the histogram methods) and writes the calibration table
// (docs/quantization.md).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "QuantCommon.h"

#include "strata/Dialect/Top/Transforms/Calibration.h"
#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;

namespace strata::cli {

cl::SubCommand CalibrateCommand(
    "calibrate",
    "Collect activation statistics over sample inputs into a calibration "
    "table for int8 quantization");

static cl::opt<std::string> model(cl::Positional, cl::Required,
                                  cl::desc("<model.onnx | model.mlir>"),
                                  cl::sub(CalibrateCommand));
static cl::list<std::string>
    data("data", cl::OneOrMore,
         cl::desc("sample inputs: npz files (one sample each, one array per "
                  "model input, keyed by name) or folders of them"),
         cl::value_desc("DIR|FILE.npz"), cl::sub(CalibrateCommand));
static cl::opt<unsigned>
    samples("samples",
            cl::desc("use the first N samples (default: all); more than "
                     "--data holds is an error"),
            cl::value_desc("N"), cl::init(0), cl::sub(CalibrateCommand));
static cl::opt<std::string> method(
    "method", cl::desc("threshold method: minmax, percentile (default) or kl"),
    cl::value_desc("M"), cl::init("percentile"), cl::sub(CalibrateCommand));
static cl::opt<double>
    percentile("percentile",
               cl::desc("--method percentile: the percentile of |x| "
                        "(default 99.99)"),
               cl::value_desc("P"), cl::init(99.99), cl::sub(CalibrateCommand));
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

static bool isFloatTensor(const Tensor &t) { return isFloat(t.dtype()); }

int calibrate() {
  if (method != "minmax" && method != "percentile" && method != "kl") {
    errs() << "strata calibrate: --method '" << method
           << "' must be minmax, percentile or kl\n";
    return 2;
  }
  if (!(percentile > 0 && percentile <= 100)) {
    errs() << "strata calibrate: --percentile " << percentile
           << " must be in (0, 100]\n";
    return 2;
  }
  std::vector<std::string> files;
  if (!collectSampleFiles("strata calibrate",
                          std::vector<std::string>(data.begin(), data.end()),
                          samples, files))
    return 2;

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
  mlir::ModuleOp module = *loaded->module;
  FailureOr<mlir::func::FuncOp> entry = findEntryFunction(module);
  if (failed(entry)) {
    errs() << "strata calibrate: the model has no entry function\n";
    return 1;
  }
  calib::nameTensors(*entry);
  std::vector<std::string> inputNames;
  for (unsigned i = 0; i < entry->getNumArguments(); ++i)
    inputNames.push_back(inputName(*entry, i));
  // The run's result holds the outputs under their output names too; the
  // table keeps the names of the values (those the pass looks up).
  std::set<std::string> valueNames;
  entry->walk([&](mlir::Operation *op) {
    for (mlir::Value r : op->getResults())
      valueNames.insert(calib::tensorName(r));
  });

  std::map<std::string, calib::TensorStatistics> stats;
  bool histograms = method != "minmax";
  int passes = histograms ? 2 : 1;
  InterpreterOptions options;
  options.dumpAll = true;
  for (int pass = 0; pass < passes; ++pass) {
    for (size_t s = 0; s < files.size(); ++s) {
      errs() << "\rstrata calibrate: " << (pass ? "histograms" : "ranges")
             << " [" << (s + 1) << "/" << files.size() << "]";
      TensorMap inputs;
      std::string error;
      if (!readNpz(files[s], inputs, error)) {
        errs() << "\nstrata calibrate: sample '" << files[s] << "': " << error
               << "\n";
        return 1;
      }
      for (const std::string &name : inputNames)
        if (!inputs.contains(name)) {
          errs() << "\nstrata calibrate: sample '" << files[s]
                 << "' has no array '" << name << "' (a model input)\n";
          return 1;
        }
      auto dumped = interpretModule(module, inputs, loaded->weights, options);
      if (failed(dumped)) {
        errs() << "\nstrata calibrate: running the model on sample '"
               << files[s] << "' failed\n";
        return 1;
      }
      for (const auto &[name, t] : *dumped) {
        if (!isFloatTensor(t) || !valueNames.count(name))
          continue;
        if (pass == 0)
          stats[name].addRange(t);
        else
          stats[name].addHistogram(t);
      }
    }
  }
  errs() << "\n";
  calib::CalibrationTable table;
  table.method = method == "percentile"
                     ? "percentile " + std::to_string(percentile)
                     : method.getValue();
  table.samples = files.size();
  for (const auto &[name, st] : stats)
    table.entries[name] = {st.threshold(method, percentile), st.min(),
                           st.max()};
  std::string error;
  if (!calib::writeCalibrationTable(outFile, table, error)) {
    errs() << "strata calibrate: " << error << "\n";
    return 1;
  }
  outs() << "wrote " << outFile << " (" << table.entries.size() << " tensors, "
         << files.size() << " samples, " << method << ")\n";
  return 0;
}

} // namespace strata::cli
