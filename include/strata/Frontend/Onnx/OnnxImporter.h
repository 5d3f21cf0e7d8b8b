//===- OnnxImporter.h - ONNX model to Top dialect ---------------*- C++ -*-===//
//
// Imports an ONNX model (default domain, opsets 7 and later) into a Top
// module plus its weights. The model is validated before any IR is built:
// every node's inputs must be defined, the graph must be acyclic, attributes
// are range-checked by the converters, and tensor sizes are overflow-checked.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_FRONTEND_ONNX_ONNXIMPORTER_H
#define STRATA_FRONTEND_ONNX_ONNXIMPORTER_H

#include "strata/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace strata::onnx_import {

struct ImportOptions {
  /// Model name (module attribute top.name, file prefix). Default: the ONNX
  /// file's stem.
  std::string name;
  /// Fixed shapes for graph inputs, replacing symbolic or unknown dims.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Graph inputs whose values are fixed at import: they become constants
  /// (weights) instead of function arguments, so shape-like inputs (a
  /// Reshape's shape, axes, indices) can be folded (TVM's freeze_params).
  TensorMap frozenInputs;
  /// Lengths of sequence-typed graph inputs: element i is the input
  /// NAME.i (docs/onnx.md "Sequences and optionals").
  std::map<std::string, int64_t> sequenceLengths;
  /// Optional-typed graph inputs that are empty (absent) in this import.
  std::vector<std::string> absentInputs;
};

struct ImportedModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The data of every top.Weight of the module, keyed by weight name.
  TensorMap weights;
};

/// Imports the ONNX file at `path`. Errors are reported as diagnostics on
/// `context` (naming the node, op type and opset) and yield failure.
mlir::FailureOr<ImportedModel> importOnnxFile(const std::string &path,
                                              mlir::MLIRContext &context,
                                              const ImportOptions &options);

/// Imports a serialized ModelProto held in memory (the fuzzer's entry point;
/// importOnnxFile reads the file and calls this). External data locations are
/// resolved inside `modelDir`; `what` names the model in errors.
mlir::FailureOr<ImportedModel> importOnnxBuffer(llvm::StringRef bytes,
                                                const std::string &modelDir,
                                                llvm::StringRef what,
                                                mlir::MLIRContext &context,
                                                const ImportOptions &options);

/// The ops the importer converts (for the coverage report), sorted.
std::vector<std::string> supportedOnnxOps();

} // namespace strata::onnx_import

#endif // STRATA_FRONTEND_ONNX_ONNXIMPORTER_H
