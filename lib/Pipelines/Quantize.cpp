//===- Quantize.cpp - calibration and quantization of a Top model ---------===//
//
// The shared implementation of `strata calibrate`, `strata quantize`,
// `strata compile --quantize` and strata.compile(quantize=...).
//
//===----------------------------------------------------------------------===//

#include "strata/Pipelines/Quantize.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/Transforms/Passes.h"
#include "strata/Dialect/Top/Transforms/QuantUtils.h"
#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Optimize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <set>

namespace strata {

bool checkQuantizeSettings(const QuantizeSettings &settings, std::string &error,
                           const QuantizeSettingNames &names) {
  if (settings.mode != "int8" && settings.mode != "bf16" &&
      settings.mode != "f16") {
    error = names.mode + " '" + settings.mode + "' must be int8, bf16 or f16";
    return false;
  }
  if (settings.mode != "int8" && !settings.calibration.empty()) {
    error = names.calibration + " is only used by " + names.mode +
            " int8 (not " + settings.mode + ")";
    return false;
  }
  if (settings.tableInput != "int8" && settings.tableInput != "int16") {
    error = names.tableInput + " '" + settings.tableInput +
            "' must be int8 or int16";
    return false;
  }
  for (const std::string &name : settings.keepFloat)
    if (name.empty() || name.find_first_of(",{} ") != std::string::npos) {
      error = names.keepFloat + " name '" + name +
              "' is empty or holds one of ',{} ', which tensor names here "
              "cannot";
      return false;
    }
  return true;
}

bool readKeepFloatFile(QuantizeSettings &settings, std::string &error,
                       const QuantizeSettingNames &names) {
  if (settings.keepFloatFile.empty())
    return true;
  auto buffer = llvm::MemoryBuffer::getFile(settings.keepFloatFile, true);
  if (!buffer) {
    error = "cannot read " + names.keepFloatFile + " '" +
            settings.keepFloatFile + "': " + buffer.getError().message();
    return false;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.split('#').first.trim();
    if (!line.empty())
      settings.keepFloat.push_back(line.str());
  }
  settings.keepFloatFile.clear();
  return true;
}

mlir::FailureOr<TensorMap>
quantizeTopModule(mlir::ModuleOp module, const TensorMap &weights,
                  const QuantizeSettings &given, std::string &error,
                  bool &usageError, const QuantizeSettingNames &names) {
  usageError = true;
  QuantizeSettings settings = given;
  if (!readKeepFloatFile(settings, error, names) ||
      !checkQuantizeSettings(settings, error, names))
    return mlir::failure();
  usageError = false;
  top::TopQuantizeOptions options;
  options.mode = settings.mode;
  options.calibration = settings.calibration;
  options.keepFloat.assign(settings.keepFloat.begin(),
                           settings.keepFloat.end());
  options.symmetric = settings.symmetric;
  options.floatActivations = settings.floatActivations;
  options.perChannelTables = settings.perChannelTables;
  options.tableInput = settings.tableInput;
  mlir::PassManager pm(module.getContext());
  pm.addPass(top::createTopQuantize(options));
  pm.addPass(mlir::createCanonicalizerPass());
  mlir::FailureOr<TensorMap> result = runTopPasses(module, weights, pm);
  if (failed(result))
    error = "quantizing to " + settings.mode + " failed";
  return result;
}

bool checkCalibrationSettings(const std::string &method, double percentile,
                              std::string &error,
                              const QuantizeSettingNames &names) {
  if (method != "minmax" && method != "percentile" && method != "kl") {
    error = names.method + " '" + method + "' must be minmax, percentile or kl";
    return false;
  }
  if (!(percentile > 0 && percentile <= 100)) {
    error = names.percentile + " " + std::to_string(percentile) +
            " must be in (0, 100]";
    return false;
  }
  return true;
}

mlir::FailureOr<calib::CalibrationTable> calibrateTopModule(
    mlir::ModuleOp module, const TensorMap &weights, size_t count,
    const SampleReader &sample, const std::string &method, double percentile,
    std::string &error, const std::function<void(int, size_t)> &progress,
    const QuantizeSettingNames &names, bool channelMeans) {
  if (!checkCalibrationSettings(method, percentile, error, names))
    return mlir::failure();
  if (count == 0) {
    error = "calibration needs at least one sample";
    return mlir::failure();
  }
  mlir::FailureOr<mlir::func::FuncOp> entry = findEntryFunction(module);
  if (failed(entry)) {
    error = "the model has no entry function";
    return mlir::failure();
  }
  calib::nameTensors(*entry);
  std::vector<std::string> inputNames;
  for (unsigned i = 0; i < entry->getNumArguments(); ++i)
    inputNames.push_back(inputName(*entry, i));
  // The model runs with each epilogue activation split off its Conv /
  // MatMul, so that the pre-activation tensor (`<name>_preact`, the range
  // top-quantize int8 requantizes the accumulator to) is dumped too.
  mlir::OwningOpRef<mlir::ModuleOp> split = module.clone();
  mlir::func::FuncOp splitEntry = *findEntryFunction(*split);
  calib::splitEpilogueActivations(splitEntry);
  // The run's result holds the outputs under their output names too; the
  // table keeps the names of the values (those the pass looks up).
  std::set<std::string> valueNames;
  splitEntry->walk([&](mlir::Operation *op) {
    for (mlir::Value r : op->getResults())
      valueNames.insert(calib::tensorName(r));
  });

  // The float inputs of the ungrouped Convs and the MatMuls top-quantize
  // may make int8 (bias correction reads their channel means).
  std::map<std::string, calib::ChannelMeans> means;
  if (channelMeans)
    entry->walk([&](mlir::Operation *op) {
      auto conv = mlir::dyn_cast<top::ConvOp>(op);
      if ((conv ? conv.getGroup() == 1 : mlir::isa<top::MatMulOp>(op)) &&
          op->getNumOperands() >= 2 &&
          op->getOperand(1).getDefiningOp<top::WeightOp>())
        means[calib::tensorName(op->getOperand(0))];
    });
  // The pre-activation tensors (`<name>_preact`): their per-channel ranges
  // give each channel of an int8 activation table's input its own scale.
  std::map<std::string, calib::ChannelRanges> ranges;
  entry->walk([&](mlir::Operation *op) {
    if (calib::hasEpilogueActivation(op))
      ranges[calib::preActivationName(op->getResult(0))];
  });
  std::map<std::string, calib::TensorStatistics> stats;
  int passes = method != "minmax" ? 2 : 1;
  InterpreterOptions options;
  options.dumpAll = true;
  for (int pass = 0; pass < passes; ++pass) {
    for (size_t s = 0; s < count; ++s) {
      if (progress)
        progress(pass, s);
      TensorMap inputs;
      std::string sampleError;
      if (!sample(s, inputs, sampleError)) {
        error = sampleError;
        return mlir::failure();
      }
      for (const std::string &name : inputNames)
        if (!inputs.contains(name)) {
          error = "sample " + std::to_string(s) + " has no array '" + name +
                  "' (a model input)";
          return mlir::failure();
        }
      auto dumped = interpretModule(*split, inputs, weights, options);
      if (failed(dumped)) {
        error = "running the model on sample " + std::to_string(s) + " failed";
        return mlir::failure();
      }
      for (const auto &[name, t] : *dumped) {
        if (!isFloat(t.dtype()) || !valueNames.count(name))
          continue;
        if (pass == 0) {
          stats[name].addRange(t);
          if (auto m = means.find(name); m != means.end())
            m->second.add(t);
          if (auto r = ranges.find(name); r != ranges.end())
            r->second.add(t);
        } else
          stats[name].addHistogram(t);
      }
    }
  }
  calib::CalibrationTable table;
  table.method = method == "percentile"
                     ? "percentile " + std::to_string(percentile)
                     : method;
  table.samples = static_cast<int64_t>(count);
  for (const auto &[name, st] : stats)
    table.entries[name] = {st.threshold(method, percentile), st.min(),
                           st.max()};
  for (const auto &[name, m] : means)
    if (std::vector<double> v = m.means(); !v.empty())
      table.channelMeans[name] = std::move(v);
  for (const auto &[name, r] : ranges)
    if (auto v = r.ranges(); !v.empty())
      table.channelRanges[name] = std::move(v);
  return table;
}

} // namespace strata
