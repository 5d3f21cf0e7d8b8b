//===- SensitiveSearch.cpp - strata quantize --search-sensitive -----------===//
//
// Mixed precision found automatically (TPU-MLIR's sensitive layer search):
// each int8 layer is quantized alone and ranked by the output-cosine loss
// it causes on the samples; then, starting from the fully quantized model,
// the worst layers are kept in float one by one until the output cosine
// (the minimum over the samples, every float output flattened together)
// reaches the target. With `activations` the candidates are the fused
// activations made int8 tables (`<name>_preact`; kept float, their layer
// stays int8) instead of the layers.
//
//===----------------------------------------------------------------------===//

#include "QuantCommon.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Interpreter/Interpreter.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace llvm;

namespace strata::cli {

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

FailureOr<std::vector<std::string>>
searchSensitive(StringRef tool, mlir::ModuleOp module, const TensorMap &weights,
                const QuantizeRequest &base,
                const std::vector<TensorMap> &samples, double target,
                bool activations) {
  FailureOr<mlir::func::FuncOp> entry = findEntryFunction(module);
  if (failed(entry))
    return failure();
  std::set<std::string> outputNames;
  for (unsigned i = 0; i < entry->getNumResults(); ++i)
    outputNames.insert(outputName(*entry, i));
  std::vector<std::vector<double>> reference;
  for (const TensorMap &s : samples) {
    auto out = interpretModule(module, s, weights);
    if (failed(out))
      return failure();
    reference.push_back(flatOutputs(*out, outputNames));
  }
  // The minimum output cosine of the model quantized keeping `keep` float.
  auto evaluate =
      [&](const std::vector<std::string> &keep) -> FailureOr<double> {
    mlir::OwningOpRef<mlir::ModuleOp> clone = module.clone();
    QuantizeRequest request = base;
    request.keepFloat.insert(request.keepFloat.end(), keep.begin(), keep.end());
    bool usage = false;
    FailureOr<TensorMap> qweights =
        quantizeModel(tool, *clone, weights, request, usage);
    if (failed(qweights))
      return failure();
    double worst = 1.0;
    for (size_t s = 0; s < samples.size(); ++s) {
      auto out = interpretModule(*clone, samples[s], *qweights);
      if (failed(out))
        return failure();
      worst =
          std::min(worst, cosine(reference[s], flatOutputs(*out, outputNames)));
    }
    return worst;
  };
  // The layers top-quantize makes int8: those with an "<name>_acc" op; or
  // the activation tables: the Requants to a "<name>_preact".
  std::vector<std::string> layers;
  StringRef suffix = activations ? "_preact" : "_acc";
  {
    mlir::OwningOpRef<mlir::ModuleOp> clone = module.clone();
    bool usage = false;
    if (failed(quantizeModel(tool, *clone, weights, base, usage)))
      return failure();
    clone->walk([&](mlir::Operation *op) {
      if (op->getNumResults() != 1)
        return;
      std::string n = valueName(op->getResult(0), 0);
      if (!StringRef(n).ends_with(suffix))
        return;
      if (!activations)
        layers.push_back(n.substr(0, n.size() - suffix.size()));
      else if (isa<top::RequantOp>(op))
        layers.push_back(n);
    });
  }
  std::vector<std::pair<double, std::string>> loss;
  for (size_t i = 0; i < layers.size(); ++i) {
    errs() << "\r" << tool << ": sensitivity [" << (i + 1) << "/"
           << layers.size() << "]";
    std::vector<std::string> others;
    for (const std::string &l : layers)
      if (l != layers[i])
        others.push_back(l);
    FailureOr<double> c = evaluate(others);
    if (failed(c))
      return failure();
    loss.push_back({1.0 - *c, layers[i]});
  }
  errs() << "\n";
  // Worst first; ties in layer order (the index breaks them).
  std::vector<size_t> order(loss.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return loss[a].first != loss[b].first ? loss[a].first > loss[b].first
                                          : a < b;
  });
  std::vector<std::pair<double, std::string>> ranked;
  for (size_t i : order)
    ranked.push_back(loss[i]);
  loss = std::move(ranked);
  outs() << (activations ? "activation table" : "layer")
         << " sensitivity (output cosine loss when quantized alone):\n";
  for (const auto &[l, name] : loss)
    outs() << "  " << name << " " << format("%.3g", l) << "\n";
  std::vector<std::string> keep;
  FailureOr<double> c = evaluate(keep);
  if (failed(c))
    return failure();
  size_t next = 0;
  while (*c < target && next < loss.size()) {
    keep.push_back(loss[next++].second);
    c = evaluate(keep);
    if (failed(c))
      return failure();
  }
  outs() << "kept in float: " << keep.size() << " of " << layers.size()
         << (activations ? " activation tables" : " layers")
         << "; output cosine " << format("%.6f", *c) << " (target "
         << format("%g", target) << ")" << (*c < target ? ", NOT reached" : "")
         << "\n";
  return keep;
}

} // namespace strata::cli
