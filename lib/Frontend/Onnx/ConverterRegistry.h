//===- ConverterRegistry.h - converter tables by domain and op --*- C++ -*-===//
//
// Private to lib/Frontend/Onnx. Every Convert*.cpp file exports one table
// of (op type, converter); ConverterRegistry.cpp gathers them by domain and
// op type and dispatches each node to its converter. The files mirror the
// Top op families: Convert<Family>.cpp for the ops that map to
// include/strata/Dialect/Top/IR/Top<Family>Ops.td, Convert<Family><Part>.cpp
// where a family is split (docs/onnx.md "Source files").
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_ONNX_CONVERTERREGISTRY_H
#define STRATA_LIB_FRONTEND_ONNX_CONVERTERREGISTRY_H

#include "onnx.pb.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace strata::onnx_import {

class NodeContext;

/// Converts one node; registered per op type.
using ConvertFn = mlir::LogicalResult (*)(NodeContext &ctx);

struct ConverterEntry {
  const char *opType;
  ConvertFn convert;
};

/// Converter tables of the default domain, one per file: the Top op families
/// (Top<Family>Ops.td) first.
llvm::ArrayRef<ConverterEntry> coreConverters();
llvm::ArrayRef<ConverterEntry> elementwiseConverters();
llvm::ArrayRef<ConverterEntry> elementwiseActivationConverters();
llvm::ArrayRef<ConverterEntry> mathConverters();
llvm::ArrayRef<ConverterEntry> nnConverters();
llvm::ArrayRef<ConverterEntry> nnConvConverters();
llvm::ArrayRef<ConverterEntry> nnPoolConverters();
llvm::ArrayRef<ConverterEntry> nnNormConverters();
llvm::ArrayRef<ConverterEntry> nnResizeConverters();
llvm::ArrayRef<ConverterEntry> shapeConverters();
llvm::ArrayRef<ConverterEntry> shapeSliceConverters();
llvm::ArrayRef<ConverterEntry> shapeReduceConverters();
llvm::ArrayRef<ConverterEntry> selectConverters();
llvm::ArrayRef<ConverterEntry> selectDataDependentConverters();
llvm::ArrayRef<ConverterEntry> quantConverters();
llvm::ArrayRef<ConverterEntry> quantIntegerConverters();
llvm::ArrayRef<ConverterEntry> recurrentConverters();
llvm::ArrayRef<ConverterEntry> geometryConverters();
llvm::ArrayRef<ConverterEntry> transformerConverters();
llvm::ArrayRef<ConverterEntry> controlFlowConverters();
llvm::ArrayRef<ConverterEntry> typeConverters();
/// ONNX-specific: sequences and optionals, decompositions with no single
/// family, training ops.
llvm::ArrayRef<ConverterEntry> sequenceConverters();
llvm::ArrayRef<ConverterEntry> einsumConverters();
llvm::ArrayRef<ConverterEntry> tfidfConverters();
llvm::ArrayRef<ConverterEntry> causalConvConverters();
llvm::ArrayRef<ConverterEntry> trainingConverters();

/// Converter tables of the other domains: ai.onnx.preview
/// (ConvertFlexAttention.cpp), ai.onnx.preview.training
/// (ConvertTrainingOptimizers.cpp), ai.onnx.ml (ConvertMl.cpp) and
/// com.microsoft (ConvertContrib*.cpp).
llvm::ArrayRef<ConverterEntry> previewConverters();
llvm::ArrayRef<ConverterEntry> trainingOptimizerConverters();
llvm::ArrayRef<ConverterEntry> mlConverters();
/// ONNX Runtime's contrib ops (domain com.microsoft), by family: fused
/// Conv/Gemm/MatMul (ConvertContribFused.cpp), GELUs and normalizations
/// (ConvertContribNorm.cpp), attention (ConvertContribAttention.cpp),
/// quantized ops (ConvertContribQuant.cpp).
llvm::ArrayRef<ConverterEntry> contribFusedConverters();
llvm::ArrayRef<ConverterEntry> contribNormConverters();
llvm::ArrayRef<ConverterEntry> contribAttentionConverters();
llvm::ArrayRef<ConverterEntry> contribQuantConverters();
/// The ops ONNX Runtime registers in the default domain at version 1 that
/// ONNX lacks at the model's opset: SimplifiedLayerNormalization, and
/// LayerNormalization before opset 17 (ConvertContribNorm.cpp).
llvm::ArrayRef<ConverterEntry> ortDefaultDomainConverters();

/// Checks a node reading a sequence or optional: Identity of one is
/// redirected to `convert`; ops that take only tensors are an error
/// (ConvertSequence.cpp).
mlir::LogicalResult routeListInputs(NodeContext &c, ConvertFn &convert);

/// True for the default ONNX domain ("" or its alias "ai.onnx").
bool isDefaultDomain(const std::string &domain);
/// The newest default-domain opset Strata knows the schemas of (that of the
/// pinned onnx package).
int64_t maxSupportedOpset();
/// True for a domain besides the default one that Strata imports.
bool isExtraDomain(const std::string &domain);
/// "node 'name' (OpType, opset N): ", or the node's first output when it
/// has no name; every node error starts with it.
std::string nodePrefix(const onnx::NodeProto &node, int64_t opset);

} // namespace strata::onnx_import

#endif // STRATA_LIB_FRONTEND_ONNX_CONVERTERREGISTRY_H
