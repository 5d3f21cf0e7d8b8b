//===- GraphImporter.h - the state of one ONNX import -----------*- C++ -*-===//
//
// Private to lib/Frontend/Onnx. A GraphImporter converts one ModelProto into
// a Top module. Its work is spread over files by concern:
//
//   OnnxImporter.cpp       the entry points, model checks (opsets, graph
//                          inputs, names), node order (cycles), run()
//   ConverterRegistry.cpp  convertNode, runConverter: a node to its converter
//   ValueTable.cpp         lookup, createWeight, constantData: names to values
//   FunctionImport.cpp     subgraphs (If/Loop/Scan bodies, inlined graph
//                          attributes) and model-local functions
//   TypeChecks.cpp         frozen inputs and declared types against computed
//                          ones
//   NodeContext.cpp        the converters' view of it (NodeContext)
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_ONNX_GRAPHIMPORTER_H
#define STRATA_LIB_FRONTEND_ONNX_GRAPHIMPORTER_H

#include "ConverterRegistry.h"
#include "ValueTable.h"

#include "onnx.pb.h"

#include "strata/Frontend/Onnx/OnnxImporter.h"
#include "strata/Support/Npz.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <vector>

namespace strata::onnx_import {

class GraphImporter {
public:
  GraphImporter(mlir::MLIRContext &ctx, const onnx::ModelProto &model,
                std::string modelDir, const ImportOptions &options)
      : ctx(ctx), model(model), modelDir(std::move(modelDir)), options(options),
        builder(&ctx) {}

  mlir::FailureOr<ImportedModel> run();

  mlir::MLIRContext &ctx;
  const onnx::ModelProto &model;
  std::string modelDir;
  const ImportOptions &options;
  mlir::OpBuilder builder;
  llvm::StringMap<mlir::Value> values;
  /// Names holding sequences and optionals (disjoint from `values`).
  llvm::StringMap<OnnxValue> lists;
  /// Initializers not yet materialized as top.Weight.
  llvm::StringMap<const onnx::TensorProto *> initializers;
  TensorMap weights;
  llvm::StringSet<> weightNames;
  mlir::Value noneValue;
  unsigned constCounter = 0;
  mlir::ModuleOp moduleOp;
  /// Instantiated model-local functions by (function, attribute binding,
  /// argument types); symbol names already used.
  llvm::StringMap<mlir::func::FuncOp> functionInstances;
  llvm::StringSet<> functionSymbols;
  unsigned functionDepth = 0;
  /// Bodies instantiated so far by unrolling at import (Loop over sequences,
  /// SequenceMap), nested ones included: NodeContext::countUnrolledBody.
  int64_t unrolledBodies = 0;
  /// The model's opsets of the extra domains (isExtraDomain) it imports.
  llvm::StringMap<int64_t> extraOpsets;

  /// The value of an ONNX name (materializing an initializer); null if
  /// undefined.
  mlir::Value lookup(const std::string &name);
  /// Registers `data` under a unique weight name and creates its op.
  mlir::Value createWeight(const Tensor &data, llvm::StringRef name,
                           mlir::Location loc);
  /// The data of a constant value (a top.Weight result), or nullptr.
  const Tensor *constantData(mlir::Value v);
  /// Converts subgraph `g` into the single block of `region`: its inputs
  /// become block arguments of `argTypes`, its nodes are converted with the
  /// names of the enclosing scopes visible, and its outputs are yielded with
  /// top.Yield. The enclosing scope's names are restored afterwards.
  /// With `region` null, converts the nodes of `g` at the current insertion
  /// point, its inputs bound to `inlinedInputs` (of types `argTypes`), and
  /// returns its outputs in `inlinedOutputs` instead.
  mlir::LogicalResult
  convertSubgraph(const onnx::GraphProto &g, mlir::Region *region,
                  llvm::ArrayRef<mlir::Type> argTypes, int64_t opset,
                  mlir::Location loc,
                  llvm::SmallVectorImpl<mlir::Value> *inlinedOutputs = nullptr,
                  llvm::ArrayRef<mlir::Value> inlinedInputs = {},
                  llvm::ArrayRef<OnnxValue> anyInputs = {},
                  std::vector<OnnxValue> *anyOutputs = nullptr);
  /// The location of the ops converted from `node`: its first output's name
  /// with the node (strata/Interfaces/NodeOrigin.h).
  mlir::Location nodeLoc(const onnx::NodeProto &node);
  /// Runs `convert` on `node` and checks it defined every output.
  mlir::LogicalResult runConverter(const onnx::NodeProto &node, int64_t opset,
                                   int64_t since, ConvertFn convert);

private:
  mlir::LogicalResult checkModel(int64_t &opset);
  mlir::LogicalResult createSignature(mlir::func::FuncOp &func);
  mlir::LogicalResult checkFrozenInput(const onnx::ValueInfoProto &in,
                                       const Tensor &value, mlir::Location loc);
  std::vector<std::string> frozenNames;
  mlir::LogicalResult orderNodes(const onnx::GraphProto &g,
                                 std::vector<const onnx::NodeProto *> &order,
                                 int64_t opset);
  mlir::LogicalResult convertNode(const onnx::NodeProto &node, int64_t opset);
  const onnx::FunctionProto *findFunction(const onnx::NodeProto &node);
  mlir::LogicalResult convertFunctionCall(const onnx::NodeProto &node,
                                          const onnx::FunctionProto &f,
                                          int64_t opset);
  mlir::FailureOr<mlir::func::FuncOp>
  instantiateFunction(const onnx::NodeProto &node, const onnx::FunctionProto &f,
                      llvm::ArrayRef<mlir::Type> argTypes,
                      llvm::ArrayRef<bool> present, int64_t opset);
  /// Fails on a negative dim below -1 in the shape `info` declares, and
  /// warns on -1 (an unknown dim in some exporters' spelling); `where` says
  /// which list it is in: "graph input", "value_info", ...
  mlir::LogicalResult checkDeclaredDims(const onnx::ValueInfoProto &info,
                                        llvm::StringRef where);
  /// Checks the type `info` declares against the computed one; a shape that
  /// disagrees only warns when `shapeIsHint`.
  mlir::LogicalResult checkDeclaredType(const onnx::ValueInfoProto &info,
                                        llvm::StringRef where,
                                        bool shapeIsHint);
  mlir::InFlightDiagnostic nodeError(const onnx::NodeProto &node,
                                     int64_t opset);
};

} // namespace strata::onnx_import

#endif // STRATA_LIB_FRONTEND_ONNX_GRAPHIMPORTER_H
