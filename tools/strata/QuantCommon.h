//===- QuantCommon.h - strata calibrate, quantize, compile --*- C++ -*-===//

#ifndef STRATA_TOOLS_STRATA_QUANTCOMMON_H
#define STRATA_TOOLS_STRATA_QUANTCOMMON_H

#include "strata/Frontend/Onnx/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace strata::cli {

/// Reads `path` (.onnx, or a Top .mlir with its weights) and runs
/// top-optimize on it, so `strata calibrate` and `strata quantize` see the
/// same tensors; `inputShapes` ("name:DxD", ONNX only) fix symbolic input
/// dims. Prints "<tool>: ..." on failure.
mlir::FailureOr<onnx_import::ImportedModel>
loadOptimizedForQuant(llvm::StringRef tool, const std::string &path,
                      mlir::MLIRContext &context,
                      const std::vector<std::string> &inputShapes);

/// What --quantize and its companion options ask for.
struct QuantizeRequest {
  std::string mode; ///< int8, bf16 or f16
  std::string calibration;
  std::vector<std::string> keepFloat;
  std::string keepFloatFile;
  bool symmetric = false;
  bool floatActivations = false;
  bool perChannelTables = false;
  std::string tableInput = "int8";
};

/// --quantize's companion options (--calibration, --keep-float,
/// --keep-float-file, --symmetric), declared once here for every subcommand
/// that takes them (strata quantize, strata compile). Construct one per
/// subcommand, after the subcommand, in the same file.
struct QuantizeOptions {
  explicit QuantizeOptions(llvm::cl::SubCommand &sub);
  /// The request for `mode` with these options' values.
  QuantizeRequest request(const std::string &mode) const;
  /// True if any of the options was given.
  bool anyGiven() const;

  llvm::cl::opt<std::string> calibration;
  llvm::cl::list<std::string> keepFloat;
  llvm::cl::opt<std::string> keepFloatFile;
  llvm::cl::opt<bool> symmetric;
  llvm::cl::opt<bool> floatActivations;
  llvm::cl::opt<bool> perChannelTables;
  llvm::cl::opt<std::string> tableInput;
};

/// The sample inputs of strata calibrate and strata quantize
/// --search-sensitive (--data, --samples), declared once here.
struct SampleOptions {
  /// `required`: --data must be given (calibrate); `purpose` prefixes the
  /// help text ("--search-sensitive: ").
  SampleOptions(llvm::cl::SubCommand &sub, bool required,
                llvm::StringRef purpose);
  /// The sample files (collectSampleFiles); prints and returns false on a
  /// problem.
  bool collect(llvm::StringRef tool, std::vector<std::string> &files) const;

  /// The help texts (cl::desc keeps a StringRef: they must outlive it).
  std::string dataHelp, samplesHelp;
  llvm::cl::list<std::string> data;
  llvm::cl::opt<unsigned> samples;
};

/// Checks `request` (mode, a table for int8, the keep-float file, which
/// holds one tensor name per line, `#` comments) and runs top-quantize on
/// `module`; returns the quantized model's weights. Prints "<tool>: ..." on
/// failure; `usageError` tells a bad option (exit 2) from a failed run.
mlir::FailureOr<TensorMap> quantizeModel(llvm::StringRef tool,
                                         mlir::ModuleOp module,
                                         const TensorMap &weights,
                                         QuantizeRequest request,
                                         bool &usageError);

/// The sample files `data` names (npz files, or folders of them taken in
/// name order), the first `samples` of them (0: all; more than there are is
/// an error). Prints "<tool>: ..." and returns false on a problem.
bool collectSampleFiles(llvm::StringRef tool,
                        const std::vector<std::string> &data, unsigned samples,
                        std::vector<std::string> &files);

/// `strata quantize --search-sensitive` (docs/quantization.md;
/// searchSensitiveLayers in lib/Pipelines/SensitiveSearch.cpp): ranks the
/// layers `base` would make int8 by the output-cosine loss each causes
/// alone on `samples`, then keeps the worst in float until the minimum
/// output cosine reaches `target`; returns those names (printing the
/// ranking and the result to stdout). With `activations` the candidates are
/// the int8 activation tables (`<name>_preact`, kept float with their layer
/// int8) instead of the layers.
mlir::FailureOr<std::vector<std::string>>
searchSensitive(llvm::StringRef tool, mlir::ModuleOp module,
                const TensorMap &weights, const QuantizeRequest &base,
                const std::vector<TensorMap> &samples, double target,
                bool activations = false);

} // namespace strata::cli

#endif // STRATA_TOOLS_STRATA_QUANTCOMMON_H
