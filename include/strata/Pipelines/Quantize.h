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
  /// int8, experimental: "int16" requantizes the accumulator to int16
  /// (not int8) before a fused activation's table.
  std::string tableInput = "int8";
};

/// How the caller spells the settings in its error messages (the CLI's
/// options by default; the Python package passes its parameter names).
struct QuantizeSettingNames {
  std::string mode = "--quantize";
  std::string calibration = "--calibration";
  std::string keepFloat = "--keep-float";
  std::string method = "--method";
  std::string percentile = "--percentile";
  std::string tableInput = "--table-input";
};

/// Checks `settings` (the mode, a table only for int8, tensor names without
/// ',{} '); on a problem sets `error` (naming the setting and the value)
/// and returns false.
bool checkQuantizeSettings(const QuantizeSettings &settings, std::string &error,
                           const QuantizeSettingNames &names = {});

/// Runs top-quantize (then canonicalize) on the optimized `module`; returns
/// the quantized model's weights. Checks `settings` first: a bad setting
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

} // namespace strata

#endif // STRATA_PIPELINES_QUANTIZE_H
