//===- Composite.cpp - TpuLang composite(): a function marked implements --===//
//
// composite(name, inputs, body, attrs) builds `body` into a private
// func.func marked `strata.implements = name` and calls it. While the body
// is built, the global graph points at that function (Graph::compositeId),
// so op wrappers append there; tensors of the enclosing graph are rejected
// (functions are isolated), and tensors made inside stay inside.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include "strata/Dialect/Top/IR/TopUtils.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace strata::tpulang {
using namespace detail;

namespace {
/// Graph state that a composite body replaces while it is built.
struct SavedScope {
  func::FuncOp func;
  Operation *lastHeader;
  Value none;
  uint64_t compositeId;
  std::string compositeName;
};

/// The converter attributes as a dictionary.
DictionaryAttr toDictionary(Builder &b, const CompositeAttrs &attrs) {
  SmallVector<NamedAttribute> entries;
  for (const auto &[key, attr] : attrs) {
    Attribute a;
    const auto &v = attr.get();
    if (auto *x = std::get_if<bool>(&v))
      a = b.getBoolAttr(*x);
    else if (auto *x = std::get_if<int64_t>(&v))
      a = b.getI64IntegerAttr(*x);
    else if (auto *x = std::get_if<double>(&v))
      a = b.getF64FloatAttr(*x);
    else
      a = b.getStringAttr(std::get<std::string>(v));
    entries.push_back(b.getNamedAttr(key, a));
  }
  return b.getDictionaryAttr(entries);
}

/// A Tensor handle for `value` (created in the current scope).
Tensor handleFor(Graph &g, Value value, const std::string &name,
                 const std::string &dtype) {
  auto impl = std::make_shared<TensorImpl>();
  auto type = llvm::cast<RankedTensorType>(value.getType());
  impl->shape.assign(type.getShape().begin(), type.getShape().end());
  impl->dtype = dtype;
  impl->hostType = *dtypeFromName(dtype);
  impl->name = name;
  impl->produced = true;
  impl->graphId = g.currentId();
  impl->value = value;
  g.names.insert(name);
  return Access::make(std::move(impl));
}
} // namespace

std::vector<Tensor> composite(const std::string &name,
                              const std::vector<Tensor> &inputs,
                              const CompositeBody &body,
                              const CompositeAttrs &attrs,
                              const std::optional<std::string> &out_name) {
  const std::string op = "composite";
  Graph &g = graph(op);
  if (name.empty())
    (Msg() << op << ": parameter 'name' must not be empty").raise();
  if (inputs.empty())
    (Msg() << op << ": parameter 'inputs' of composite '" << name
           << "' must not be empty")
        .raise();
  if (!body)
    (Msg() << op << ": parameter 'body' of composite '" << name
           << "' is empty")
        .raise();
  SmallVector<Value> operands;
  SmallVector<Type> argTypes;
  for (const Tensor &t : inputs) {
    operands.push_back(valueOf(op, t));
    argTypes.push_back(operands.back().getType());
  }
  std::string outName = outputName(g, op, out_name);

  // The function, after every other one (main stays first); the symbol is
  // made unique if `name` is taken.
  Builder mb(&g.context);
  auto loc = NameLoc::get(StringAttr::get(&g.context, outName));
  auto fn = func::FuncOp::create(loc, name, mb.getFunctionType(argTypes, {}));
  fn.setPrivate();
  SymbolTable(g.module->getOperation())
      .insert(fn, g.module->getBody()->end());
  fn->setAttr("strata.implements", mb.getStringAttr(name));
  if (!attrs.empty())
    fn->setAttr("strata.composite_attributes", toDictionary(mb, attrs));
  Block *entry = fn.addEntryBlock();

  SavedScope saved{g.func, g.lastHeader, g.none, g.compositeId,
                   g.compositeName};
  uint64_t scopeId = freshScopeId();
  auto restore = [&] {
    g.finishedComposites.insert(scopeId);
    g.func = saved.func;
    g.lastHeader = saved.lastHeader;
    g.none = saved.none;
    g.compositeId = saved.compositeId;
    g.compositeName = saved.compositeName;
  };
  g.func = fn;
  g.lastHeader = nullptr;
  g.none = Value();
  g.compositeId = scopeId;
  g.compositeName = name;

  std::vector<Tensor> results;
  std::vector<std::string> dtypes;
  try {
    std::vector<Tensor> args;
    for (auto [i, t] : llvm::enumerate(inputs))
      args.push_back(handleFor(g, entry->getArgument(i),
                               outName + "_arg" + std::to_string(i),
                               t.dtype()));
    std::vector<Tensor> outs = body(args);
    if (outs.empty())
      (Msg() << op << ": the body of composite '" << name
             << "' returned no tensors")
          .raise();
    SmallVector<Value> returned;
    for (const Tensor &t : outs) {
      returned.push_back(valueOf(op, t));
      dtypes.push_back(t.dtype());
    }
    OpBuilder rb(&g.context);
    rb.setInsertionPointToEnd(entry);
    func::ReturnOp::create(rb, loc, returned);
    fn.setType(rb.getFunctionType(argTypes, ValueRange(returned).getTypes()));
  } catch (...) {
    restore();
    fn.erase();
    throw;
  }
  restore();

  OpBuilder cb = g.opBuilder();
  auto call = func::CallOp::create(cb, loc, fn, operands);
  for (auto [i, result] : llvm::enumerate(call.getResults()))
    results.push_back(handleFor(
        g, result,
        call.getNumResults() == 1 ? outName : outName + "_" + std::to_string(i),
        dtypes[i]));
  g.names.insert(outName);
  return results;
}

} // namespace strata::tpulang
