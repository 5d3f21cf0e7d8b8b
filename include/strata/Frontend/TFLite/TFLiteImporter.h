//===- TFLiteImporter.h - TFLite model to Top dialect -----------*- C++ -*-===//
//
// Imports a TensorFlow Lite FlatBuffer (schema version 3) into a Top module
// plus its weights. The buffer is checked with the FlatBuffers verifier
// before anything is read; buffers, shapes and op codes are range-checked.
// Quantized tensors become `!quant.uniform` types; NHWC ops keep NHWC
// through Top's `layout` attribute (docs/tflite.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_FRONTEND_TFLITE_TFLITEIMPORTER_H
#define STRATA_FRONTEND_TFLITE_TFLITEIMPORTER_H

#include "strata/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace strata::tflite_import {

struct ImportedModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The data of every top.Weight of the module, keyed by weight name.
  TensorMap weights;
};

/// Imports the .tflite file at `path`; `name` is the model name (module
/// attribute top.name; default: the file's stem). Errors are reported as
/// diagnostics on `context` (naming the operator index and op) and yield
/// failure.
/// `inputShapes` fixes the shapes of subgraph inputs with dynamic (-1) dims
/// in their shape_signature (`--input-shapes`).
using ShapeMap = std::map<std::string, std::vector<int64_t>>;
mlir::FailureOr<ImportedModel>
importTFLiteFile(const std::string &path, mlir::MLIRContext &context,
                 const std::string &name, const ShapeMap &inputShapes = {});

/// Imports a TFLite FlatBuffer held in memory (the fuzzer's entry point);
/// `what` names the model in errors.
mlir::FailureOr<ImportedModel>
importTFLiteBuffer(llvm::ArrayRef<uint8_t> bytes, llvm::StringRef what,
                   mlir::MLIRContext &context, const std::string &name,
                   const ShapeMap &inputShapes = {});

/// True when `bytes` carry the TFLite file identifier "TFL3" (the dispatch
/// of `strata import`).
bool isTFLiteBuffer(llvm::ArrayRef<uint8_t> bytes);

/// The builtin operators the importer converts (for the coverage table),
/// sorted.
std::vector<std::string> supportedTFLiteOps();

} // namespace strata::tflite_import

#endif // STRATA_FRONTEND_TFLITE_TFLITEIMPORTER_H
