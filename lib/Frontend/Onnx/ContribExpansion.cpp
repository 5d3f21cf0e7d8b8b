//===- ContribExpansion.cpp - contrib ops as standard ONNX graphs ---------===//
//
// Expansion: builds the default-domain graph a contrib op stands for and
// converts it in place (ContribExpansion.h).
//
//===----------------------------------------------------------------------===//

#include "ContribExpansion.h"

namespace strata::onnx_import {

onnx::AttributeProto attrI(StringRef name, int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name.str());
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}

onnx::AttributeProto attrF(StringRef name, float v) {
  onnx::AttributeProto a;
  a.set_name(name.str());
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}

onnx::AttributeProto attrS(StringRef name, StringRef v) {
  onnx::AttributeProto a;
  a.set_name(name.str());
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(v.str());
  return a;
}

onnx::AttributeProto attrIs(StringRef name, ArrayRef<int64_t> v) {
  onnx::AttributeProto a;
  a.set_name(name.str());
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a.add_ints(x);
  return a;
}

Expansion::Expansion(NodeContext &c) : c(c) {
  graph.set_name(c.node().op_type() + " expansion");
}

std::string Expansion::in(size_t i) const {
  return c.hasInput(i) ? c.node().input(i) : std::string();
}

std::string Expansion::fresh(StringRef op) {
  std::string base = c.node().name().empty() ? c.node().output(0)
                                             : c.node().name();
  return base + "/" + op.str() + "#" + std::to_string(counter++);
}

std::string Expansion::value(Value v) {
  std::string name = fresh("in");
  graph.add_input()->set_name(name);
  inputs.push_back(v);
  return name;
}

SmallVector<std::string> Expansion::nodeN(StringRef op,
                                          ArrayRef<std::string> ins,
                                          size_t numOutputs,
                                          ArrayRef<onnx::AttributeProto> attrs) {
  onnx::NodeProto *n = graph.add_node();
  n->set_op_type(op.str());
  std::string name = fresh(op);
  n->set_name(name);
  for (const std::string &i : ins)
    n->add_input(i);
  SmallVector<std::string> outs;
  for (size_t i = 0; i < numOutputs; ++i) {
    outs.push_back(name + ":" + std::to_string(i));
    n->add_output(outs.back());
  }
  for (const onnx::AttributeProto &a : attrs)
    *n->add_attribute() = a;
  return outs;
}

std::string Expansion::node(StringRef op, ArrayRef<std::string> ins,
                            ArrayRef<onnx::AttributeProto> attrs) {
  return nodeN(op, ins, 1, attrs)[0];
}

void Expansion::copyAttr(StringRef name,
                         SmallVectorImpl<onnx::AttributeProto> &attrs) const {
  if (const onnx::AttributeProto *a = c.attr(name))
    attrs.push_back(*a);
}

std::string Expansion::scalarLike(double v, const std::string &like) {
  onnx::AttributeProto a;
  a.set_name("value_float");
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(static_cast<float>(v));
  return node("CastLike", {node("Constant", {}, {a}), like});
}

std::string Expansion::constant(const Tensor &data) {
  return value(c.constant(data, "contrib"));
}

std::string Expansion::ints(ArrayRef<int64_t> v) {
  onnx::AttributeProto a;
  a.set_name("value_ints");
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a.add_ints(x);
  return node("Constant", {}, {a});
}

FailureOr<SmallVector<Value>> Expansion::run(ArrayRef<std::string> outputs) {
  for (const std::string &o : outputs)
    graph.add_output()->set_name(o);
  SmallVector<Value> values;
  if (failed(c.inlineSubgraph(graph, inputs, values, kExpansionOpset)))
    return failure();
  return values;
}

LogicalResult Expansion::finish(ArrayRef<std::string> outputs) {
  SmallVector<std::string> listed;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (c.hasOutput(i)) {
      if (outputs[i].empty())
        return c.error() << "output " << i << " ('" << c.node().output(i)
                         << "') is not supported";
      listed.push_back(outputs[i]);
    }
  auto values = run(listed);
  if (failed(values))
    return failure();
  size_t k = 0;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (c.hasOutput(i))
      c.setOutput(i, (*values)[k++]);
  return success();
}

} // namespace strata::onnx_import
