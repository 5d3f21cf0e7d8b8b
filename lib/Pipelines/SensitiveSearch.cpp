//===- SensitiveSearch.cpp - the sensitive-layer search -------------------===//
//
// Mixed precision found automatically (TPU-MLIR's sensitive layer search):
// each int8 layer is quantized alone and ranked by the output-cosine loss
// it causes on the samples; then, starting from the fully quantized model,
// the worst layers are kept in float one by one until the output cosine
// (the minimum over the samples, every float output flattened together)
// reaches the target. With `activations` the candidates are the fused
// activations made int8 tables (`<name>_preact`; kept float, their layer
// stays int8) instead of the layers. Shared by `strata quantize
// --search-sensitive` and strata.quantize(search_sensitive=True).
//
//===----------------------------------------------------------------------===//

#include "strata/Pipelines/Quantize.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Interpreter/Executor.h"
#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace strata {

namespace {
/// The float outputs of one run, flattened into one f64 vector.
std::vector<double> flatOutputs(const TensorMap &outputs,
                                const std::set<std::string> &names) {
  std::vector<double> v;
  for (const auto &[name, t] : outputs)
    if (names.count(name) && isFloat(t.dtype()))
      for (int64_t i = 0; i < t.numElements(); ++i)
        v.push_back(t.getAsDouble(i));
  return v;
}

double cosine(const std::vector<double> &a, const std::vector<double> &b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  if (aa == 0 && bb == 0)
    return 1.0;
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}
} // namespace

bool checkSearchTarget(double target, std::string &error,
                       const QuantizeSettingNames &names) {
  if (target >= -1 && target <= 1)
    return true;
  error = names.targetCosine + " " + std::to_string(target) +
          " must be in [-1, 1] (an output cosine)";
  return false;
}

mlir::FailureOr<SensitiveSearchResult>
searchSensitiveLayers(mlir::ModuleOp module, const TensorMap &weights,
                      const QuantizeSettings &base,
                      const std::vector<TensorMap> &samples, double target,
                      bool activations, std::string &error,
                      const std::function<void(size_t, size_t)> &progress,
                      const QuantizeSettingNames &names) {
  if (!checkSearchTarget(target, error, names))
    return mlir::failure();
  if (samples.empty()) {
    error = "the sensitive-layer search needs at least one sample";
    return mlir::failure();
  }
  mlir::FailureOr<mlir::func::FuncOp> entry = findEntryFunction(module);
  if (failed(entry)) {
    error = "the model has no entry function";
    return mlir::failure();
  }
  std::set<std::string> outputNames;
  for (unsigned i = 0; i < entry->getNumResults(); ++i)
    outputNames.insert(outputName(*entry, i));
  std::vector<std::vector<double>> reference;
  for (size_t s = 0; s < samples.size(); ++s) {
    for (unsigned i = 0; i < entry->getNumArguments(); ++i)
      if (!samples[s].contains(inputName(*entry, i))) {
        error = "sample " + std::to_string(s) + " has no array '" +
                inputName(*entry, i) + "' (a model input)";
        return mlir::failure();
      }
    auto out = interpretModule(module, samples[s], weights);
    if (failed(out)) {
      error =
          "running the float model on sample " + std::to_string(s) + " failed";
      return mlir::failure();
    }
    reference.push_back(flatOutputs(*out, outputNames));
  }
  // Quantizes a clone of the model keeping `keep` float as well.
  auto quantizeClone = [&](const std::vector<std::string> &keep,
                           mlir::OwningOpRef<mlir::ModuleOp> &clone)
      -> mlir::FailureOr<TensorMap> {
    clone = module.clone();
    QuantizeSettings settings = base;
    settings.keepFloat.insert(settings.keepFloat.end(), keep.begin(),
                              keep.end());
    bool usage = false;
    return quantizeTopModule(*clone, weights, settings, error, usage, names);
  };
  // The minimum output cosine of the model quantized keeping `keep` float.
  auto evaluate =
      [&](const std::vector<std::string> &keep) -> mlir::FailureOr<double> {
    mlir::OwningOpRef<mlir::ModuleOp> clone;
    mlir::FailureOr<TensorMap> qweights = quantizeClone(keep, clone);
    if (failed(qweights))
      return mlir::failure();
    double worst = 1.0;
    for (size_t s = 0; s < samples.size(); ++s) {
      auto out = interpretModule(*clone, samples[s], *qweights);
      if (failed(out)) {
        error = "running the quantized model on sample " + std::to_string(s) +
                " failed";
        return mlir::failure();
      }
      worst =
          std::min(worst, cosine(reference[s], flatOutputs(*out, outputNames)));
    }
    return worst;
  };
  // The layers top-quantize makes int8: those with an "<name>_acc" op; or
  // the activation tables: the Requants to a "<name>_preact".
  std::vector<std::string> layers;
  llvm::StringRef suffix = activations ? "_preact" : "_acc";
  {
    mlir::OwningOpRef<mlir::ModuleOp> clone;
    if (failed(quantizeClone({}, clone)))
      return mlir::failure();
    clone->walk([&](mlir::Operation *op) {
      if (op->getNumResults() != 1)
        return;
      std::string n = valueName(op->getResult(0), 0);
      if (!llvm::StringRef(n).ends_with(suffix))
        return;
      if (!activations)
        layers.push_back(n.substr(0, n.size() - suffix.size()));
      else if (mlir::isa<top::RequantOp>(op))
        layers.push_back(n);
    });
  }
  std::vector<std::pair<double, std::string>> loss;
  for (size_t i = 0; i < layers.size(); ++i) {
    if (progress)
      progress(i, layers.size());
    std::vector<std::string> others;
    for (const std::string &l : layers)
      if (l != layers[i])
        others.push_back(l);
    mlir::FailureOr<double> c = evaluate(others);
    if (failed(c))
      return mlir::failure();
    loss.push_back({1.0 - *c, layers[i]});
  }
  // Worst first; ties in layer order (the index breaks them).
  std::vector<size_t> order(loss.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return loss[a].first != loss[b].first ? loss[a].first > loss[b].first
                                          : a < b;
  });
  SensitiveSearchResult result;
  for (size_t i : order)
    result.ranking.push_back({loss[i].second, loss[i].first});
  mlir::FailureOr<double> c = evaluate(result.keepFloat);
  if (failed(c))
    return mlir::failure();
  size_t next = 0;
  while (*c < target && next < result.ranking.size()) {
    result.keepFloat.push_back(result.ranking[next++].first);
    c = evaluate(result.keepFloat);
    if (failed(c))
      return mlir::failure();
  }
  result.cosine = *c;
  return result;
}

} // namespace strata
