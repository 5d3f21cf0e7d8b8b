//===- QuantCommon.h - shared by strata calibrate and quantize --*- C++ -*-===//

#ifndef STRATA_TOOLS_STRATA_QUANTCOMMON_H
#define STRATA_TOOLS_STRATA_QUANTCOMMON_H

#include "strata/Frontend/Onnx/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"

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

} // namespace strata::cli

#endif // STRATA_TOOLS_STRATA_QUANTCOMMON_H
