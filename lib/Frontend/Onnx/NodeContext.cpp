//===- NodeContext.cpp - what an ONNX op converter sees -------------------===//
//
// NodeContext (NodeContext.h) over the GraphImporter: inputs, attributes,
// outputs, subgraphs, and finishOp, which infers a new op's result shapes,
// verifies it and folds it to constants when its operands are constants;
// and ValueBuilder's out-of-line methods.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "ConverterRegistry.h"
#include "GraphImporter.h"
#include "TypeChecks.h"

#include "strata/Interpreter/Executor.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace strata::onnx_import {

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
                         int64_t opset, int64_t since)
    : importer(importer), proto(node), modelOpset(opset), since(since),
      location(importer.nodeLoc(node)) {}

OpBuilder &NodeContext::builder() { return importer.builder; }
const std::string &NodeContext::modelDir() const { return importer.modelDir; }
MLIRContext *NodeContext::context() { return &importer.ctx; }

InFlightDiagnostic NodeContext::error() {
  return emitError(location) << nodePrefix(proto, modelOpset);
}

LogicalResult NodeContext::countUnrolledBody(llvm::StringRef what) {
  if (++importer.unrolledBodies <= kMaxUnrolledBodies)
    return success();
  return error() << what << " instantiates its body more than "
                 << kMaxUnrolledBodies
                 << " times in this model (nested unrolling included)";
}

bool NodeContext::hasInput(size_t i) const {
  return i < static_cast<size_t>(proto.input_size()) && !proto.input(i).empty();
}

Value NodeContext::input(size_t i) {
  if (!hasInput(i))
    return importer.noneValue;
  return importer.lookup(proto.input(i));
}

const Tensor *NodeContext::constantInput(size_t i) {
  return hasInput(i) ? importer.constantData(input(i)) : nullptr;
}

std::optional<std::vector<int64_t>> NodeContext::constantInts(size_t i) {
  const Tensor *t = constantInput(i);
  if (!t || isFloat(t->dtype()))
    return std::nullopt;
  std::vector<int64_t> v(t->numElements());
  for (int64_t k = 0; k < t->numElements(); ++k)
    v[k] = t->getAsInt(k);
  return v;
}

Type NodeContext::inputElementType(size_t i) {
  auto t = dyn_cast<ShapedType>(input(i).getType());
  return t ? t.getElementType() : Type();
}

std::optional<std::vector<int64_t>> NodeContext::inputShape(size_t i) {
  if (!hasInput(i) || !top::hasStaticShape(input(i)))
    return std::nullopt;
  auto s = top::shapeOf(input(i));
  return std::vector<int64_t>(s.begin(), s.end());
}

const OnnxValue *NodeContext::listInput(size_t i) {
  if (!hasInput(i))
    return nullptr;
  auto it = importer.lists.find(proto.input(i));
  return it == importer.lists.end() ? nullptr : &it->second;
}

OnnxValue NodeContext::anyInput(size_t i) {
  const OnnxValue *l = listInput(i);
  return l ? *l : OnnxValue::of(input(i));
}

const Tensor *NodeContext::constantValue(Value v) {
  return importer.constantData(v);
}

FailureOr<std::vector<int64_t>> NodeContext::requireShape(size_t i) {
  if (!hasInput(i))
    return error() << "input " << i << " is required";
  std::optional<std::vector<int64_t>> s = inputShape(i);
  if (!s)
    return error() << "input " << i << " ('" << proto.input(i)
                   << "') needs a static shape";
  return *s;
}

FailureOr<int64_t> NodeContext::requireRank(size_t i) {
  // A ranked input with `?` dims (e.g. from a runtime shape operand) will do.
  if (hasInput(i))
    if (auto t = dyn_cast<RankedTensorType>(input(i).getType()))
      return t.getRank();
  auto s = requireShape(i);
  if (failed(s))
    return failure();
  return static_cast<int64_t>(s->size());
}

const onnx::AttributeProto *NodeContext::attr(llvm::StringRef name) const {
  for (const auto &a : proto.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

FailureOr<std::optional<int64_t>> NodeContext::attrIntOpt(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::optional<int64_t>();
  if (a->type() != onnx::AttributeProto::INT)
    return error() << "attribute '" << name << "' must be an int";
  return std::optional<int64_t>(a->i());
}

FailureOr<int64_t> NodeContext::attrInt(llvm::StringRef name, int64_t dflt) {
  auto v = attrIntOpt(name);
  if (failed(v))
    return failure();
  return v->value_or(dflt);
}

FailureOr<float> NodeContext::attrFloat(llvm::StringRef name, float dflt) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return dflt;
  if (a->type() != onnx::AttributeProto::FLOAT)
    return error() << "attribute '" << name << "' must be a float";
  return a->f();
}

FailureOr<std::string> NodeContext::attrString(llvm::StringRef name,
                                               llvm::StringRef dflt) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return dflt.str();
  if (a->type() != onnx::AttributeProto::STRING)
    return error() << "attribute '" << name << "' must be a string";
  return a->s();
}

FailureOr<std::optional<std::vector<int64_t>>>
NodeContext::attrInts(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::optional<std::vector<int64_t>>();
  if (a->type() != onnx::AttributeProto::INTS)
    return error() << "attribute '" << name << "' must be a list of ints";
  return std::optional<std::vector<int64_t>>(
      std::vector<int64_t>(a->ints().begin(), a->ints().end()));
}

FailureOr<std::optional<std::vector<float>>>
NodeContext::attrFloats(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::optional<std::vector<float>>();
  if (a->type() != onnx::AttributeProto::FLOATS)
    return error() << "attribute '" << name << "' must be a list of floats";
  return std::optional<std::vector<float>>(
      std::vector<float>(a->floats().begin(), a->floats().end()));
}

FailureOr<int64_t> NodeContext::normalizeAxis(llvm::StringRef what,
                                              int64_t axis, int64_t rank) {
  // A scalar (rank 0) has no axis: callers index the shape with the result.
  if (axis < -rank || axis >= rank)
    return error() << what << " " << axis << " is out of range for rank "
                   << rank
                   << (rank == 0 ? " (the input is a scalar, it has no axis)"
                                 : "");
  return axis < 0 ? axis + rank : axis;
}

Value NodeContext::constant(const Tensor &data, llvm::StringRef hint) {
  std::string base = (hint.empty() ? proto.name() : proto.name() + "_" + hint.str());
  if (base.empty() || base == "_" + hint.str())
    base = (proto.output_size() ? proto.output(0) : "const") + "_" + hint.str();
  return importer.createWeight(data, base, location);
}

Value NodeContext::none() { return importer.noneValue; }

FailureOr<const onnx::GraphProto *>
NodeContext::attrGraph(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return error() << "attribute '" << name << "' (a graph) is required";
  if (a->type() != onnx::AttributeProto::GRAPH || !a->has_g())
    return error() << "attribute '" << name << "' must be a graph";
  return &a->g();
}

LogicalResult NodeContext::convertSubgraph(const onnx::GraphProto &graph,
                                           Region &region,
                                           ArrayRef<Type> argTypes) {
  return importer.convertSubgraph(graph, &region, argTypes, modelOpset,
                                  location);
}

LogicalResult NodeContext::inlineSubgraph(const onnx::GraphProto &graph,
                                          SmallVectorImpl<Value> &outputs) {
  return importer.convertSubgraph(graph, nullptr, {}, modelOpset, location,
                                  &outputs);
}

LogicalResult NodeContext::inlineSubgraph(const onnx::GraphProto &graph,
                                          ArrayRef<Value> inputs,
                                          SmallVectorImpl<Value> &outputs) {
  SmallVector<Type> types;
  for (Value v : inputs)
    types.push_back(v.getType());
  return importer.convertSubgraph(graph, nullptr, types, modelOpset, location,
                                  &outputs, inputs);
}

LogicalResult NodeContext::inlineSubgraph(const onnx::GraphProto &graph,
                                          ArrayRef<Value> inputs,
                                          SmallVectorImpl<Value> &outputs,
                                          int64_t opset) {
  SmallVector<Type> types;
  for (Value v : inputs)
    types.push_back(v.getType());
  return importer.convertSubgraph(graph, nullptr, types, opset, location,
                                  &outputs, inputs);
}

LogicalResult NodeContext::inlineSubgraph(const onnx::GraphProto &graph,
                                          ArrayRef<OnnxValue> inputs,
                                          std::vector<OnnxValue> &outputs) {
  SmallVector<Type> types(inputs.size(), NoneType::get(context()));
  SmallVector<Value> tensors;
  return importer.convertSubgraph(graph, nullptr, types, modelOpset, location,
                                  &tensors, {}, inputs, &outputs);
}

LogicalResult NodeContext::convertSubgraph(const onnx::GraphProto &graph,
                                           Region &region,
                                           ArrayRef<Type> argTypes,
                                           std::vector<OnnxValue> &outputs) {
  return importer.convertSubgraph(graph, &region, argTypes, modelOpset,
                                  location, nullptr, {}, {}, &outputs);
}

FailureOr<SmallVector<Value>> NodeContext::finish(Operation *op) {
  return finishOp(op);
}

bool NodeContext::hasOutput(size_t i) const {
  return i < static_cast<size_t>(proto.output_size()) &&
         !proto.output(i).empty();
}

void NodeContext::setOutput(size_t i, Value v) {
  if (hasOutput(i))
    setOutput(i, OnnxValue::of(v));
}

void NodeContext::setOutput(size_t i, OnnxValue v) {
  if (hasOutput(i))
    bindName(importer.values, importer.lists, proto.output(i), std::move(v));
}

//===----------------------------------------------------------------------===//
// ValueBuilder
//===----------------------------------------------------------------------===//

FailureOr<Value> ValueBuilder::convert(FailureOr<Value> v, Type to) {
  if (failed(v) || elem(*v) == to)
    return v;
  return c.create<top::CastOp>(to, *v, c.builder().getBoolAttr(true));
}

FailureOr<Value> ValueBuilder::clip(FailureOr<Value> v, double lo, double hi) {
  if (failed(v))
    return failure();
  OpBuilder &b = c.builder();
  return c.create<top::ClipOp>(elem(*v), *v, b.getF64FloatAttr(lo),
                               b.getF64FloatAttr(hi));
}

FailureOr<Value> ValueBuilder::reshape(FailureOr<Value> v,
                                       ArrayRef<int64_t> shape) {
  if (failed(v))
    return failure();
  return c.create<top::ReshapeOp>(elem(*v), *v,
                                  c.builder().getDenseI64ArrayAttr(shape));
}

Value ValueBuilder::scalar(Type type, double v) {
  Tensor t(top::dtypeOf(type).value_or(DType::F32), {});
  t.setFromDouble(0, v);
  return c.constant(t, "scalar");
}

FailureOr<Value> ValueBuilder::roundHalfEven(FailureOr<Value> v) {
  if (failed(v))
    return failure();
  Type t = elem(*v);
  double magic = t.isF64() ? 6755399441055744.0 : 12582912.0;
  return op<top::SubOp>(op<top::AddOp>(v, scalar(t, magic)), scalar(t, magic));
}

FailureOr<SmallVector<Value>> NodeContext::finishOp(Operation *op) {
  bool operandsStatic = llvm::all_of(op->getOperands(), [](Value v) {
    return top::isNone(v) || top::hasStaticShape(v);
  });
  // The name outlives the op, which is erased on failure.
  OperationName name = op->getName();
  if (operandsStatic) {
    if (failed(top::inferAndSetResultTypes(op))) {
      op->erase();
      return error() << "the converted " << name
                     << " is invalid (see the error above)";
    }
  } else if (op->hasTrait<top::OpTrait::Elementwise>() &&
             llvm::all_of(op->getOperands(), [](Value v) {
               return isa<RankedTensorType>(v.getType());
             })) {
    // Ranked operands with `?` dims (runtime shape operands, data-dependent
    // results): elementwise ops still give a ranked result (broadcasting
    // keeps `?` where it cannot decide), which e.g. a Loop body must yield.
    // If inference cannot tell, the result stays unranked, as before.
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    (void)top::inferAndSetResultTypes(op);
  }
  if (failed(mlir::verify(op))) {
    op->erase();
    return error() << "the converted " << name << " is invalid";
  }
  for (Value r : op->getResults()) {
    auto t = dyn_cast<RankedTensorType>(r.getType());
    if (!t)
      continue;
    SmallVector<int64_t> dims;
    for (int64_t d : t.getShape())
      dims.push_back(ShapedType::isDynamic(d) ? 0 : d);
    if (!shapeFits(dims)) {
      op->erase();
      return error() << "the converted " << name << " would have shape "
                     << top::formatArray(t.getShape())
                     << ", whose element count overflows";
    }
  }
  // Constant folding: every tensor operand is a weight.
  // Ops with regions may read outer values the folder cannot see.
  bool allConstant = op->getNumOperands() > 0 && operandsStatic &&
                     op->getNumRegions() == 0 &&
                     llvm::all_of(op->getOperands(), [&](Value v) {
                       return top::isNone(v) || importer.constantData(v);
                     });
  SmallVector<Value> results(op->getResults());
  if (!allConstant)
    return results;
  auto iface = dyn_cast<top::InterpretableOpInterface>(op);
  if (!iface)
    return results;
  int64_t total = 0;
  for (Value r : results) // data-dependent (`?`) dims are bounded by inputs
    if (auto t = cast<ShapedType>(r.getType()); t.hasStaticShape())
      total += t.getNumElements();
  if (total > (int64_t(1) << 24))
    return results;
  top::InterpreterEnv env;
  for (Value v : op->getOperands())
    if (!top::isNone(v))
      env.set(v, *importer.constantData(v));
  if (failed(interpretOp(op, env)))
    return error() << "evaluating constant " << op->getName() << " failed";
  SmallVector<Value> folded;
  for (auto [i, r] : llvm::enumerate(results))
    folded.push_back(constant(env.get(r), "folded" + std::to_string(i)));
  op->erase();
  return folded;
}

} // namespace strata::onnx_import
