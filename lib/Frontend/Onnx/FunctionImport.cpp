//===- FunctionImport.cpp - subgraphs and model-local functions -----------===//
//
// Graphs inside the model's graph: the bodies of If, Loop and Scan (and
// other graph attributes) converted into a region or inlined, with the
// enclosing scopes' names visible (GraphImporter::convertSubgraph); and the
// model-local functions (FunctionProto), each call site a func.call of an
// instantiated private func.func.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "llvm/ADT/ScopeExit.h"

#include <algorithm>

using namespace mlir;

namespace strata::onnx_import {

//===----------------------------------------------------------------------===//
// Subgraphs
//===----------------------------------------------------------------------===//

LogicalResult
GraphImporter::convertSubgraph(const onnx::GraphProto &g, Region *region,
                               ArrayRef<Type> argTypes, int64_t opset,
                               Location loc,
                               SmallVectorImpl<Value> *inlinedOutputs,
                               ArrayRef<Value> inlinedInputs,
                               ArrayRef<OnnxValue> anyInputs,
                               std::vector<OnnxValue> *anyOutputs) {
  if (g.input_size() != static_cast<int>(argTypes.size()))
    return emitError(loc) << "subgraph '" << g.name() << "' has "
                          << g.input_size() << " inputs but " << argTypes.size()
                          << " are expected";
  Block *block = nullptr;
  if (region) {
    block = new Block();
    region->push_back(block);
  }
  // A scope: the subgraph's names shadow nothing outside it once restored.
  llvm::StringMap<Value> outerValues = values;
  llvm::StringMap<const onnx::TensorProto *> outerInitializers = initializers;
  llvm::StringMap<OnnxValue> outerLists = lists;
  llvm::scope_exit restore([&] {
    values = std::move(outerValues);
    initializers = std::move(outerInitializers);
    lists = std::move(outerLists);
  });
  OpBuilder::InsertionGuard guard(builder);
  if (block)
    builder.setInsertionPointToStart(block);
  for (auto [i, in] : llvm::enumerate(g.input())) {
    if (!block && !anyInputs.empty()) {
      if (!in.name().empty())
        bindName(values, lists, in.name(), anyInputs[i]);
      continue;
    }
    Value arg = block ? block->addArgument(argTypes[i],
                                           NameLoc::get(StringAttr::get(
                                               &ctx, in.name())))
                      : inlinedInputs[i];
    if (!in.name().empty())
      bindName(values, lists, in.name(), OnnxValue::of(arg));
  }
  for (const auto &init : g.initializer()) {
    values.erase(init.name());
    lists.erase(init.name());
    initializers[init.name()] = &init;
  }
  std::vector<const onnx::NodeProto *> order;
  if (failed(orderNodes(g, order, opset)))
    return failure();
  for (const onnx::NodeProto *node : order)
    if (failed(convertNode(*node, opset)))
      return failure();
  SmallVector<Value> outputs;
  if (anyOutputs)
    anyOutputs->clear();
  for (const auto &out : g.output()) {
    if (auto l = lists.find(out.name()); l != lists.end() && anyOutputs) {
      anyOutputs->push_back(l->second);
      flattenLeaves(l->second, outputs);
      continue;
    } else if (l != lists.end()) {
      return emitError(NameLoc::get(StringAttr::get(&ctx, out.name())))
             << "subgraph '" << g.name() << "' output '" << out.name()
             << "' is " << describe(l->second)
             << "; only If and unrolled Loop subgraphs may yield sequences "
                "and optionals";
    }
    Value v = lookup(out.name());
    if (!v)
      return emitError(NameLoc::get(StringAttr::get(&ctx, out.name())))
             << "subgraph '" << g.name() << "' output '" << out.name()
             << "' is never defined";
    outputs.push_back(v);
    if (anyOutputs)
      anyOutputs->push_back(OnnxValue::of(v));
  }
  if (!block) {
    inlinedOutputs->assign(outputs.begin(), outputs.end());
    return success();
  }
  top::YieldOp::create(builder, loc, outputs);
  return success();
}

//===----------------------------------------------------------------------===//
// Model-local functions
//===----------------------------------------------------------------------===//
//
// A node whose (domain, op type) names a FunctionProto of the model becomes a
// `func.call` of a private `func.func` holding the function's body, converted
// with its attributes bound for this call site (one instantiation per
// distinct binding and argument types). The function carries
// `strata.implements = "<domain>.<name>"` so that composite fusion can
// replace a known one by a fused op; `top-inline-functions` inlines the rest.

const onnx::FunctionProto *
GraphImporter::findFunction(const onnx::NodeProto &node) {
  for (const auto &f : model.functions())
    if (f.name() == node.op_type() &&
        (f.domain() == node.domain() ||
         (isDefaultDomain(f.domain()) && isDefaultDomain(node.domain()))))
      return &f;
  return nullptr;
}

/// An ONNX attribute as an MLIR attribute (null for graphs, tensors, ...).
static Attribute attributeToMlir(const onnx::AttributeProto &a, Builder &b) {
  switch (a.type()) {
  case onnx::AttributeProto::INT:
    return b.getI64IntegerAttr(a.i());
  case onnx::AttributeProto::FLOAT:
    return b.getF32FloatAttr(a.f());
  case onnx::AttributeProto::STRING:
    return b.getStringAttr(a.s());
  case onnx::AttributeProto::INTS:
    return b.getDenseI64ArrayAttr(
        SmallVector<int64_t>(a.ints().begin(), a.ints().end()));
  case onnx::AttributeProto::FLOATS:
    return b.getDenseF32ArrayAttr(
        SmallVector<float>(a.floats().begin(), a.floats().end()));
  default:
    return {};
  }
}

LogicalResult GraphImporter::convertFunctionCall(const onnx::NodeProto &node,
                                                 const onnx::FunctionProto &f,
                                                 int64_t opset) {
  if (node.input_size() > f.input_size())
    return nodeError(node, opset)
           << "calls function '" << f.domain() << "." << f.name() << "' with "
           << node.input_size() << " inputs but it takes " << f.input_size();
  if (node.output_size() > f.output_size())
    return nodeError(node, opset)
           << "expects " << node.output_size() << " outputs from function '"
           << f.domain() << "." << f.name() << "', which has "
           << f.output_size();
  SmallVector<Value> operands;
  SmallVector<Type> argTypes;
  SmallVector<bool> present;
  for (int i = 0; i < f.input_size(); ++i) {
    bool has = i < node.input_size() && !node.input(i).empty();
    present.push_back(has);
    if (!has)
      continue;
    if (lists.count(node.input(i)))
      return nodeError(node, opset)
             << "input '" << node.input(i)
             << "' is a sequence or optional; model-local functions take "
                "tensors only";
    Value v = lookup(node.input(i));
    if (!v)
      return failure();
    operands.push_back(v);
    argTypes.push_back(v.getType());
  }
  auto callee = instantiateFunction(node, f, argTypes, present, opset);
  if (failed(callee))
    return failure();
  auto call = func::CallOp::create(builder, nodeLoc(node), *callee, operands);
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      values[node.output(i)] = call.getResult(i);
  return success();
}

FailureOr<func::FuncOp> GraphImporter::instantiateFunction(
    const onnx::NodeProto &node, const onnx::FunctionProto &f,
    ArrayRef<Type> argTypes, ArrayRef<bool> present, int64_t opset) {
  std::string qualified =
      f.domain().empty() ? f.name() : f.domain() + "." + f.name();
  // Attribute binding: the function's defaults, then the call site's.
  llvm::StringMap<const onnx::AttributeProto *> bound;
  for (const auto &a : f.attribute_proto())
    bound[a.name()] = &a;
  for (const auto &a : node.attribute()) {
    if (!llvm::is_contained(f.attribute(), a.name()) && !bound.count(a.name()))
      return nodeError(node, opset) << "function '" << qualified
                                    << "' has no attribute '" << a.name()
                                    << "'";
    bound[a.name()] = &a;
  }
  std::string key = qualified;
  std::vector<std::string> boundNames;
  for (const auto &entry : bound)
    boundNames.push_back(entry.getKey().str());
  std::sort(boundNames.begin(), boundNames.end());
  for (const std::string &n : boundNames) {
    onnx::AttributeProto a = *bound[n];
    a.set_name(n);
    key += "|" + n + "=" + a.SerializeAsString();
  }
  {
    llvm::raw_string_ostream os(key);
    for (auto [i, p] : llvm::enumerate(present))
      os << (p ? "|in" : "|absent");
    for (Type t : argTypes)
      os << "|" << t;
  }
  if (func::FuncOp existing = functionInstances.lookup(key))
    return existing;
  if (functionDepth >= 32)
    return nodeError(node, opset) << "function '" << qualified
                                  << "' nests calls more than 32 deep "
                                     "(recursive functions are not supported)";

  // The body as a graph, attribute references resolved; absent optional
  // inputs become empty names.
  onnx::GraphProto g;
  g.set_name(qualified);
  for (auto [i, in] : llvm::enumerate(f.input()))
    if (present[i])
      g.add_input()->set_name(in);
  for (const std::string &out : f.output())
    g.add_output()->set_name(out);
  llvm::StringSet<> absent;
  for (auto [i, in] : llvm::enumerate(f.input()))
    if (!present[i])
      absent.insert(in);
  for (const auto &n : f.node()) {
    onnx::NodeProto *copy = g.add_node();
    *copy = n;
    for (std::string &in : *copy->mutable_input())
      if (absent.contains(in))
        in.clear();
    copy->clear_attribute();
    for (const auto &a : n.attribute()) {
      if (a.ref_attr_name().empty()) {
        *copy->add_attribute() = a;
        continue;
      }
      auto it = bound.find(a.ref_attr_name());
      if (it == bound.end())
        continue; // unbound: the attribute is absent
      onnx::AttributeProto *resolved = copy->add_attribute();
      *resolved = *it->second;
      resolved->set_name(a.name());
    }
  }
  int64_t bodyOpset = opset;
  for (const auto &imp : f.opset_import())
    if (isDefaultDomain(imp.domain()))
      bodyOpset = imp.version();

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(moduleOp.getBody());
  std::string symbol = qualified;
  for (unsigned n = 1; functionSymbols.contains(symbol); ++n)
    symbol = qualified + "_" + std::to_string(n);
  functionSymbols.insert(symbol);
  Location loc = NameLoc::get(StringAttr::get(&ctx, qualified));
  auto fn = func::FuncOp::create(builder, loc, symbol,
                                 builder.getFunctionType(argTypes, {}));
  fn.setPrivate();
  fn->setAttr("strata.implements", builder.getStringAttr(qualified));
  fn->setAttr("strata.onnx_domain", builder.getStringAttr(f.domain()));
  fn->setAttr("strata.onnx_name", builder.getStringAttr(f.name()));
  SmallVector<NamedAttribute> attrs;
  for (const std::string &n : boundNames)
    if (Attribute a = attributeToMlir(*bound[n], builder))
      attrs.push_back(builder.getNamedAttr(n, a));
  fn->setAttr("strata.onnx_attributes", builder.getDictionaryAttr(attrs));
  Block *entry = fn.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  // The body sees only its own names (functions are isolated).
  llvm::StringMap<Value> outerValues = std::move(values);
  llvm::StringMap<const onnx::TensorProto *> outerInitializers =
      std::move(initializers);
  llvm::StringMap<OnnxValue> outerLists = std::move(lists);
  Value outerNone = noneValue;
  values.clear();
  initializers.clear();
  lists.clear();
  noneValue = top::NoneOp::create(builder, loc, builder.getNoneType());
  llvm::scope_exit restore([&] {
    values = std::move(outerValues);
    initializers = std::move(outerInitializers);
    lists = std::move(outerLists);
    noneValue = outerNone;
  });
  for (auto [i, in] : llvm::enumerate(g.input()))
    values[in.name()] = entry->getArgument(i);
  std::vector<const onnx::NodeProto *> order;
  if (failed(orderNodes(g, order, bodyOpset))) {
    fn.erase();
    return failure();
  }
  ++functionDepth;
  for (const onnx::NodeProto *n : order)
    if (failed(convertNode(*n, bodyOpset))) {
      --functionDepth;
      fn.erase();
      return failure();
    }
  --functionDepth;
  SmallVector<Value> results;
  for (const std::string &out : f.output()) {
    Value v = lookup(out);
    if (!v) {
      fn.erase();
      return nodeError(node, opset)
             << "function '" << qualified << "' "
             << (lists.count(out) ? "returns a sequence or optional as '"
                                  : "never defines its output '")
             << out << "'" << (lists.count(out) ? " (not supported)" : "");
    }
    results.push_back(v);
  }
  func::ReturnOp::create(builder, loc, results);
  fn.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  if (noneValue.use_empty())
    noneValue.getDefiningOp()->erase();
  functionInstances[key] = fn;
  return fn;
}

} // namespace strata::onnx_import
