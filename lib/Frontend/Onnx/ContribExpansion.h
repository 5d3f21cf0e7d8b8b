//===- ContribExpansion.h - contrib ops as standard ONNX graphs -*- C++ -*-===//
//
// Private to lib/Frontend/Onnx, for the ConvertContrib*.cpp files. ONNX
// Runtime's contrib ops (domain com.microsoft) are compositions of standard
// ONNX ops: a converter writes the composition as a small default-domain
// graph with an Expansion and converts it in place with the existing
// converters, at a fixed opset (kExpansionOpset) whatever the model's. The
// expansion's nodes are named "<contrib node>/<op>", so an error inside one
// still names the contrib node.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_ONNX_CONTRIBEXPANSION_H
#define STRATA_LIB_FRONTEND_ONNX_CONTRIBEXPANSION_H

#include "ConverterSupport.h"

#include <string>

namespace strata::onnx_import {

/// The default-domain opset the expansions are written against.
constexpr int64_t kExpansionOpset = 23;

/// Attribute builders for expansion nodes.
onnx::AttributeProto attrI(llvm::StringRef name, int64_t v);
onnx::AttributeProto attrF(llvm::StringRef name, float v);
onnx::AttributeProto attrS(llvm::StringRef name, llvm::StringRef v);
onnx::AttributeProto attrIs(llvm::StringRef name, llvm::ArrayRef<int64_t> v);

/// A default-domain graph standing for the node of `c`, built node by node
/// and converted in place by `run`.
class Expansion {
public:
  explicit Expansion(NodeContext &c);

  /// The name of the contrib node's input `i` ("" if absent); the
  /// expansion sees the enclosing graph's names.
  std::string in(size_t i) const;
  /// A name bound to the value `v` (an input of the expansion graph).
  std::string value(Value v);
  /// Adds node `op` of the default domain; returns its `numOutputs` outputs.
  SmallVector<std::string> nodeN(llvm::StringRef op,
                                 ArrayRef<std::string> inputs,
                                 size_t numOutputs,
                                 ArrayRef<onnx::AttributeProto> attrs = {});
  /// Single-output form of nodeN.
  std::string node(llvm::StringRef op, ArrayRef<std::string> inputs,
                   ArrayRef<onnx::AttributeProto> attrs = {});
  /// The contrib node's attribute `name`, copied for an expansion node, if
  /// present.
  void copyAttr(llvm::StringRef name,
                SmallVectorImpl<onnx::AttributeProto> &attrs) const;
  /// A rank-0 constant `v` with the element type of `like`.
  std::string scalarLike(double v, const std::string &like);
  /// A constant holding `data`.
  std::string constant(const Tensor &data);
  /// A 1-d i64 constant.
  std::string ints(ArrayRef<int64_t> v);

  /// Converts the graph built so far; returns the values of `outputs`.
  FailureOr<SmallVector<Value>> run(ArrayRef<std::string> outputs);
  /// Converts the graph and makes `outputs[i]` the contrib node's output i
  /// ("" leaves it undefined; the node must not list it).
  LogicalResult finish(ArrayRef<std::string> outputs);

private:
  std::string fresh(llvm::StringRef op);

  NodeContext &c;
  onnx::GraphProto graph;
  SmallVector<Value> inputs;
  unsigned counter = 0;
};

} // namespace strata::onnx_import

#endif // STRATA_LIB_FRONTEND_ONNX_CONTRIBEXPANSION_H
