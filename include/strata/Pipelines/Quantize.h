//===- Quantize.h - calibration and quantization of a Top model -*- C++ -*-===//
//
// The library side of `strata calibrate`, `strata quantize` and `strata
// compile --quantize` (docs/quantization.md), shared by the CLI and the
// Python package: both call these, so a model quantizes the same way from
// either.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_PIPELINES_QUANTIZE_H
#define STRATA_PIPELINES_QUANTIZE_H

#include "strata/Dialect/Top/Transforms/Calibration.h"
#include "strata/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <string>
#include <vector>

namespace strata {

/// What top-quantize is asked for.
struct QuantizeSettings {
  std::string mode;                   ///< "int8", "bf16" or "f16"
  std::string calibration;            ///< int8: the calibration table's path
  std::vector<std::string> keepFloat; ///< tensors whose ops stay float
  bool symmetric = false;             ///< int8: zero-point-0 activations
  /// int8: fused activations in float from the int32 accumulator instead
  /// of an int8 table after a requant to the pre-activation range.
  bool floatActivations = false;
  /// int8: the activation tables' inputs per channel (the calibration
  /// table's @range rows).
  bool perChannelTables = false;
  /// A file of more tensor names to keep float, one a line (`#` starts a
  /// comment); read by quantizeTopModule, its names appended to keepFloat.
  std::string keepFloatFile;
  /// int8: "int16" requantizes the accumulator to int16 (not int8) and
  /// makes a fused activation an interpolated top.Table16.
  std::string tableInput = "int8";
};

/// How the caller spells the settings in its error messages (the CLI's
/// options by default; the Python package passes its parameter names).
struct QuantizeSettingNames {
  std::string mode = "--quantize";
  std::string calibration = "--calibration";
  std::string keepFloat = "--keep-float";
  std::string keepFloatFile = "--keep-float-file";
  std::string method = "--method";
  std::string percentile = "--percentile";
  std::string targetCosine = "--target-cosine";
  std::string tableInput = "--table-input";
};

/// Checks `settings` (the mode, a table only for int8, tensor names without
/// ',{} '); on a problem sets `error` (naming the setting and the value)
/// and returns false. Does not read `keepFloatFile` (readKeepFloatFile).
bool checkQuantizeSettings(const QuantizeSettings &settings, std::string &error,
                           const QuantizeSettingNames &names = {});

/// Appends the names of `settings.keepFloatFile` (if set) to
/// `settings.keepFloat` and clears it; on an unreadable file sets `error`
/// (naming the setting and the path) and returns false.
bool readKeepFloatFile(QuantizeSettings &settings, std::string &error,
                       const QuantizeSettingNames &names = {});

/// Runs top-quantize (then canonicalize) on the optimized `module`; returns
/// the quantized model's weights. Reads `settings.keepFloatFile`, then
/// checks `settings`: a bad setting
/// fails with `error` set and `usageError` true; a failed run (diagnostics
/// on the module's context) with `usageError` false.
mlir::FailureOr<TensorMap>
quantizeTopModule(mlir::ModuleOp module, const TensorMap &weights,
                  const QuantizeSettings &settings, std::string &error,
                  bool &usageError, const QuantizeSettingNames &names = {});

/// Checks a calibration method ("minmax", "percentile" or "kl") and
/// percentile (in (0, 100]); sets `error` and returns false on a problem.
bool checkCalibrationSettings(const std::string &method, double percentile,
                              std::string &error,
                              const QuantizeSettingNames &names = {});

/// Reads sample `index` (one array per model input, keyed by input name)
/// into `inputs`; on a problem sets `error` and returns false.
using SampleReader =
    std::function<bool(size_t index, TensorMap &inputs, std::string &error)>;

/// Runs the optimized `module` through the reference interpreter on
/// `count` samples (read one at a time; twice for the histogram methods)
/// and returns the calibration table: per float tensor the threshold of
/// `method` ("minmax", "percentile" of |x| at `percentile`, or "kl") and
/// the observed range. Names the module's tensors (calib::nameTensors) as
/// top-quantize will. A bad method, no sample, a sample lacking a model
/// input or a failed run sets `error` (naming the sample's index and the
/// input). `progress(pass, index)` is called before each run when given.
/// With `channelMeans`, the table also holds the per-channel means of every
/// float input of a Conv / MatMul with constant weights (`@mean` rows), from
/// which top-quantize corrects the biases (BiasCorrection.h).
mlir::FailureOr<calib::CalibrationTable> calibrateTopModule(
    mlir::ModuleOp module, const TensorMap &weights, size_t count,
    const SampleReader &sample, const std::string &method, double percentile,
    std::string &error, const std::function<void(int, size_t)> &progress = {},
    const QuantizeSettingNames &names = {}, bool channelMeans = false);

/// What searchSensitiveLayers found.
struct SensitiveSearchResult {
  /// The candidates, worst first: name and the output-cosine loss (1 -
  /// cosine) when it alone is quantized.
  std::vector<std::pair<std::string, double>> ranking;
  /// The candidates kept in float (a prefix of the ranking's names).
  std::vector<std::string> keepFloat;
  /// The minimum output cosine with `keepFloat` kept float.
  double cosine = 0;
};

/// Checks the sensitive-layer search's target output cosine (in [-1, 1]);
/// sets `error` and returns false on a problem.
bool checkSearchTarget(double target, std::string &error,
                       const QuantizeSettingNames &names = {});

/// `strata quantize --search-sensitive` (docs/quantization.md): ranks the
/// layers `base` makes int8 by the output-cosine loss each causes alone on
/// `samples` (every float output flattened together, the minimum over the
/// samples), then keeps the worst in float until that cosine reaches
/// `target`. With `activations` the candidates are the int8 activation
/// tables (`<name>_preact`, kept float with their layer int8) instead of
/// the layers. A bad setting or target, a failed quantization or run sets
/// `error`;
/// `progress(i, n)` is called before candidate i of n is evaluated.
mlir::FailureOr<SensitiveSearchResult>
searchSensitiveLayers(mlir::ModuleOp module, const TensorMap &weights,
                      const QuantizeSettings &base,
                      const std::vector<TensorMap> &samples, double target,
                      bool activations, std::string &error,
                      const std::function<void(size_t, size_t)> &progress = {},
                      const QuantizeSettingNames &names = {});

} // namespace strata

#endif // STRATA_PIPELINES_QUANTIZE_H
