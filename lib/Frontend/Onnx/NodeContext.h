//===- NodeContext.h - what an ONNX op converter sees -----------*- C++ -*-===//
//
// Private to lib/Frontend/Onnx. A converter turns one ONNX node into Top ops
// through a NodeContext: typed attribute access with validation, inputs as
// values (or constant data), op creation with shape inference and constant
// folding, and errors that name the node, its op type and the opset.
// ValueBuilder chains such ops with failures passed on. Converter files
// include it through ConverterSupport.h.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_ONNX_NODECONTEXT_H
#define STRATA_LIB_FRONTEND_ONNX_NODECONTEXT_H

#include "ValueTable.h"

#include "onnx.pb.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Support/Tensor.h"

#include "mlir/IR/Builders.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::onnx_import {

class GraphImporter;

/// One node being converted.
class NodeContext {
public:
  NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
              int64_t opset, int64_t sinceVersion);

  const onnx::NodeProto &node() const { return proto; }
  /// The version of this op's schema that the model's opset selects.
  int64_t version() const { return since; }
  int64_t opset() const { return modelOpset; }
  mlir::OpBuilder &builder();
  mlir::MLIRContext *context();
  mlir::Location loc() const { return location; }
  /// The model's folder: external data of tensor attributes resolves there.
  const std::string &modelDir() const;

  //===--- inputs ---===//
  /// Number of inputs listed (including empty optional ones).
  size_t numInputs() const { return proto.input_size(); }
  /// True if input `i` is listed and not the empty name.
  bool hasInput(size_t i) const;
  /// Input `i`'s value; a `top.None` value if absent.
  mlir::Value input(size_t i);
  /// The data of input `i` if it is a constant (initializer, Constant node
  /// or folded), else nullptr.
  const Tensor *constantInput(size_t i);
  /// Input `i` as a list of integers if it is an integer constant.
  std::optional<std::vector<int64_t>> constantInts(size_t i);
  /// Element type and shape of input `i` (null type if unknown).
  mlir::Type inputElementType(size_t i);
  std::optional<std::vector<int64_t>> inputShape(size_t i);
  mlir::FailureOr<std::vector<int64_t>> requireShape(size_t i);
  mlir::FailureOr<int64_t> requireRank(size_t i);
  /// Input `i` if it is a sequence or optional, else nullptr.
  const OnnxValue *listInput(size_t i);
  /// Input `i` as an OnnxValue (a tensor, or its sequence / optional).
  OnnxValue anyInput(size_t i);
  /// The data of `v` if it is a constant, else nullptr.
  const Tensor *constantValue(mlir::Value v);

  //===--- attributes ---===//
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  mlir::FailureOr<int64_t> attrInt(llvm::StringRef name, int64_t dflt);
  mlir::FailureOr<std::optional<int64_t>> attrIntOpt(llvm::StringRef name);
  mlir::FailureOr<float> attrFloat(llvm::StringRef name, float dflt);
  mlir::FailureOr<std::string> attrString(llvm::StringRef name,
                                          llvm::StringRef dflt);
  /// `value` of string attribute `name` as Top enum `E`; if unknown, the
  /// error "attribute 'name' must be one of "a", "b", got "value"" (after
  /// the node's name).
  template <typename E>
  mlir::FailureOr<E> toEnum(llvm::StringRef name, llvm::StringRef value) {
    if (std::optional<E> e = top::symbolizeEnum<E>(value))
      return *e;
    return error() << "attribute '" << name << "' must be one of "
                   << top::enumNames<E>() << ", got \"" << value << "\"";
  }
  /// String attribute `name` (default `dflt`) as Top enum `E` (toEnum).
  template <typename E>
  mlir::FailureOr<E> attrEnum(llvm::StringRef name, llvm::StringRef dflt) {
    mlir::FailureOr<std::string> s = attrString(name, dflt);
    if (mlir::failed(s))
      return mlir::failure();
    return toEnum<E>(name, *s);
  }
  mlir::FailureOr<std::optional<std::vector<int64_t>>>
  attrInts(llvm::StringRef name);
  mlir::FailureOr<std::optional<std::vector<float>>>
  attrFloats(llvm::StringRef name);
  /// An axis attribute normalized into [0, rank); errors name the value.
  mlir::FailureOr<int64_t> normalizeAxis(llvm::StringRef what, int64_t axis,
                                         int64_t rank);

  //===--- building ---===//
  /// Creates a Top op with unranked results of the given element types,
  /// infers and sets their shapes, and folds it to constants when every
  /// operand is constant. Returns the op's results.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  createMulti(llvm::ArrayRef<mlir::Type> resultElementTypes, Args &&...args) {
    llvm::SmallVector<mlir::Type> types;
    for (mlir::Type t : resultElementTypes)
      types.push_back(mlir::UnrankedTensorType::get(t));
    auto op = OpTy::create(builder(), location, mlir::TypeRange(types),
                           std::forward<Args>(args)...);
    return finishOp(op.getOperation());
  }
  /// Single-result form of createMulti.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<mlir::Value> create(mlir::Type resultElementType,
                                      Args &&...args) {
    auto r = createMulti<OpTy>({resultElementType}, std::forward<Args>(args)...);
    if (mlir::failed(r))
      return mlir::failure();
    return (*r)[0];
  }
  /// A top.Weight holding `data`, named after this node.
  mlir::Value constant(const Tensor &data, llvm::StringRef hint = "const");
  /// The `top.None` value.
  mlir::Value none();

  //===--- subgraphs (If, Loop, Scan) ---===//
  /// Graph attribute `name`; an error if absent or not a graph.
  mlir::FailureOr<const onnx::GraphProto *> attrGraph(llvm::StringRef name);
  /// Converts `graph` into the single block of `region` with arguments of
  /// `argTypes` (one per graph input), ending in top.Yield of its outputs.
  /// Names of the enclosing graphs stay visible inside.
  mlir::LogicalResult convertSubgraph(const onnx::GraphProto &graph,
                                      mlir::Region &region,
                                      llvm::ArrayRef<mlir::Type> argTypes);
  /// Converts the nodes of input-less `graph` in place (no region) and
  /// returns its outputs; its own names are not visible afterwards.
  mlir::LogicalResult inlineSubgraph(const onnx::GraphProto &graph,
                                     llvm::SmallVectorImpl<mlir::Value> &outputs);
  /// Converts the nodes of `graph` in place with its inputs bound to
  /// `inputs` (a graph-valued attribute applied like a function).
  mlir::LogicalResult inlineSubgraph(const onnx::GraphProto &graph,
                                     llvm::ArrayRef<mlir::Value> inputs,
                                     llvm::SmallVectorImpl<mlir::Value> &outputs);
  /// Like the form above, with the default-domain nodes of `graph` read at
  /// `opset` instead of the model's (a contrib op's expansion into standard
  /// ops, ContribExpansion.h).
  mlir::LogicalResult inlineSubgraph(const onnx::GraphProto &graph,
                                     llvm::ArrayRef<mlir::Value> inputs,
                                     llvm::SmallVectorImpl<mlir::Value> &outputs,
                                     int64_t opset);
  /// Converts the nodes of `graph` in place with its inputs bound to
  /// `inputs`, which may be sequences and optionals, like its outputs.
  mlir::LogicalResult inlineSubgraph(const onnx::GraphProto &graph,
                                     llvm::ArrayRef<OnnxValue> inputs,
                                     std::vector<OnnxValue> &outputs);
  /// Converts `graph` into `region` like convertSubgraph; the sequences and
  /// optionals among its outputs are yielded as their tensors in order, and
  /// `outputs` gets every output's structure.
  mlir::LogicalResult convertSubgraph(const onnx::GraphProto &graph,
                                      mlir::Region &region,
                                      llvm::ArrayRef<mlir::Type> argTypes,
                                      std::vector<OnnxValue> &outputs);
  /// For an op the converter built itself (e.g. with regions): infers its
  /// result shapes, verifies it and folds it like `create` does.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> finish(mlir::Operation *op);

  //===--- outputs ---===//
  size_t numOutputs() const { return proto.output_size(); }
  bool hasOutput(size_t i) const;
  void setOutput(size_t i, mlir::Value v);
  /// Sets output `i` to a tensor, sequence or optional.
  void setOutput(size_t i, OnnxValue v);
  /// Sets output 0 to `v`, or passes its failure on.
  mlir::LogicalResult setResult(mlir::FailureOr<mlir::Value> v) {
    if (mlir::failed(v))
      return mlir::failure();
    setOutput(0, *v);
    return mlir::success();
  }

  /// Emits "node 'n' (Op, opset k): msg" and returns failure.
  mlir::InFlightDiagnostic error();

  /// Most subgraph bodies unrolling at import instantiates in one model, all
  /// nodes together: nested unrolled Loops multiply their trip counts.
  static constexpr int64_t kMaxUnrolledBodies = 4096;
  /// Counts one more body instantiated by unrolling (`what` names it in the
  /// error, e.g. "unrolling the Loop"); fails past kMaxUnrolledBodies.
  mlir::LogicalResult countUnrolledBody(llvm::StringRef what);

private:
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> finishOp(mlir::Operation *op);

  GraphImporter &importer;
  const onnx::NodeProto &proto;
  int64_t modelOpset, since;
  mlir::Location location;
};

/// Builds chains of Top ops for one node; every method passes a failed
/// operand on as failure, so a formula is written as nested calls and
/// checked once at the end.
class ValueBuilder {
public:
  explicit ValueBuilder(NodeContext &c) : c(c) {}

  static mlir::Type elem(mlir::Value v) {
    return mlir::cast<mlir::ShapedType>(v.getType()).getElementType();
  }
  /// A binary op whose result has the element type of `l`.
  template <typename OpTy>
  mlir::FailureOr<mlir::Value> op(mlir::FailureOr<mlir::Value> l,
                                  mlir::FailureOr<mlir::Value> r) {
    if (mlir::failed(l) || mlir::failed(r))
      return mlir::failure();
    return c.create<OpTy>(elem(*l), *l, *r);
  }
  template <typename OpTy>
  mlir::FailureOr<mlir::Value> unary(mlir::FailureOr<mlir::Value> v) {
    if (mlir::failed(v))
      return mlir::failure();
    return c.create<OpTy>(elem(*v), *v);
  }
  /// `v` converted to element type `to` (saturating); itself if it has it.
  mlir::FailureOr<mlir::Value> convert(mlir::FailureOr<mlir::Value> v,
                                       mlir::Type to);
  mlir::FailureOr<mlir::Value> clip(mlir::FailureOr<mlir::Value> v, double lo,
                                    double hi);
  mlir::FailureOr<mlir::Value> reshape(mlir::FailureOr<mlir::Value> v,
                                       llvm::ArrayRef<int64_t> shape);
  /// A rank-0 constant of element type `type` (f32 if it has no host
  /// dtype), named "scalar".
  mlir::Value scalar(mlir::Type type, double v);
  /// Rounds a float `v` half to even (exact for |v| < 2^22 in f32, 2^51 in
  /// f64): adding and subtracting 1.5 * 2^mantissa leaves the integer the
  /// FPU rounded to.
  mlir::FailureOr<mlir::Value> roundHalfEven(mlir::FailureOr<mlir::Value> v);

private:
  NodeContext &c;
};

} // namespace strata::onnx_import

#endif // STRATA_LIB_FRONTEND_ONNX_NODECONTEXT_H
