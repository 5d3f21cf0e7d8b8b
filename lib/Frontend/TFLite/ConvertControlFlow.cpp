//===- ConvertControlFlow.cpp - TFLite IF and WHILE -----------------------===//
//
// IF runs one of two subgraphs on its inputs 1..n: top.If with each branch
// subgraph converted into its region (the subgraph's inputs bound to the
// IF's operands, its outputs yielded). WHILE runs its body subgraph while
// its condition subgraph returns true: top.Loop without a trip count whose
// initial condition is the condition subgraph converted before the loop,
// and whose body converts the body subgraph on the carried values and the
// condition subgraph on its results (the condition before each iteration,
// as TFLite evaluates it). The carried values keep their types.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

namespace strata::tflite_import {
namespace {

/// The IF / WHILE operands from input `first` on.
FailureOr<SmallVector<Value>> operandsFrom(OpContext &c, size_t first) {
  SmallVector<Value> v;
  for (size_t i = first; i < c.numInputs(); ++i) {
    auto x = c.input(i);
    if (failed(x))
      return failure();
    v.push_back(*x);
  }
  return v;
}

/// Checks that `cond` is a one-element boolean tensor.
LogicalResult checkCondition(OpContext &c, Value cond, StringRef what) {
  auto t = cast<ShapedType>(cond.getType());
  if (!t.getElementType().isInteger(1) || !t.hasStaticShape() ||
      t.getNumElements() != 1)
    return c.error() << what << " must be one boolean, got " << t;
  return success();
}

/// Infers, verifies and binds the results of the IF / WHILE op `op`.
LogicalResult finish(OpContext &c, Operation *op) {
  auto results = c.finishOp(op);
  if (failed(results))
    return failure();
  for (auto [i, v] : llvm::enumerate(*results))
    if (failed(c.setOutput(i, v)))
      return failure();
  return success();
}

LogicalResult convertIf(OpContext &c) {
  auto *o = c.op()->builtin_options_as_IfOptions();
  if (!o)
    return c.error() << "IfOptions are missing";
  auto cond = c.input(0);
  auto operands = operandsFrom(c, 1);
  if (failed(cond) || failed(operands) ||
      failed(checkCondition(c, *cond, "input 0 (the condition)")))
    return failure();
  OpBuilder &b = c.builder();
  SmallVector<Type> types;
  for (size_t i = 0; i < c.numOutputs(); ++i)
    types.push_back(
        RankedTensorType::get(c.out(i).shape, c.valueType(c.out(i))));
  auto ifOp = IfOp::create(b, c.loc(), types, *cond);
  for (auto [region, index, what] :
       {std::tuple<Region *, int32_t, const char *>{
            &ifOp.getThenRegion(), o->then_subgraph_index(), "IF then"},
        {&ifOp.getElseRegion(), o->else_subgraph_index(), "IF else"}}) {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(region);
    auto outs =
        c.imp.callSubgraph(index, *operands, c.describe() + ": " + what);
    if (failed(outs)) {
      ifOp.erase();
      return failure();
    }
    if (outs->size() != types.size()) {
      ifOp.erase();
      return c.error() << what << " subgraph " << index << " has "
                       << outs->size() << " outputs, the IF " << types.size();
    }
    YieldOp::create(b, c.loc(), *outs);
  }
  return finish(c, ifOp);
}

LogicalResult convertWhile(OpContext &c) {
  auto *o = c.op()->builtin_options_as_WhileOptions();
  if (!o)
    return c.error() << "WhileOptions are missing";
  auto init = operandsFrom(c, 0);
  if (failed(init))
    return failure();
  if (init->size() != c.numOutputs())
    return c.error() << "has " << init->size() << " inputs and "
                     << c.numOutputs() << " outputs (one per loop value)";
  int32_t condIndex = o->cond_subgraph_index();
  int32_t bodyIndex = o->body_subgraph_index();
  OpBuilder &b = c.builder();
  auto condOf = [&](ValueRange values) -> FailureOr<Value> {
    auto r =
        c.imp.callSubgraph(condIndex, values, c.describe() + ": WHILE cond");
    if (failed(r))
      return failure();
    if (r->size() != 1)
      return c.error() << "WHILE cond subgraph " << condIndex << " has "
                       << r->size() << " outputs, expected 1";
    if (failed(checkCondition(c, r->front(), "the WHILE condition")))
      return failure();
    return r->front();
  };
  auto cond0 = condOf(*init);
  if (failed(cond0))
    return failure();
  SmallVector<Type> types;
  for (Value v : *init)
    types.push_back(v.getType());
  auto loop = LoopOp::create(b, c.loc(), types, c.none(), *cond0, *init);
  SmallVector<Type> argTypes{RankedTensorType::get({}, b.getI64Type()),
                             cond0->getType()};
  argTypes.append(types);
  SmallVector<Location> locs(argTypes.size(), c.loc());
  {
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&loop.getBody(), {}, argTypes, locs);
    auto next =
        c.imp.callSubgraph(bodyIndex, block->getArguments().drop_front(2),
                           c.describe() + ": WHILE body");
    FailureOr<Value> cond = failure();
    if (succeeded(next)) {
      for (auto [i, v] : llvm::enumerate(*next))
        if (i < types.size() && v.getType() != types[i]) {
          loop.erase();
          return c.error() << "WHILE body subgraph " << bodyIndex << " output "
                           << i << " is " << v.getType() << ", the loop value "
                           << types[i] << " (loop values keep their type)";
        }
      if (next->size() != types.size()) {
        loop.erase();
        return c.error() << "WHILE body subgraph " << bodyIndex << " has "
                         << next->size() << " outputs, expected "
                         << types.size();
      }
      cond = condOf(*next);
    }
    if (failed(cond)) {
      loop.erase();
      return failure();
    }
    SmallVector<Value> yields{*cond};
    yields.append(next->begin(), next->end());
    YieldOp::create(b, c.loc(), yields);
  }
  return finish(c, loop);
}

const ConverterEntry kControlFlow[] = {
    {tflite::BuiltinOperator_IF, convertIf},
    {tflite::BuiltinOperator_WHILE, convertWhile},
};

} // namespace

ArrayRef<ConverterEntry> controlFlowConverters() { return kControlFlow; }

} // namespace strata::tflite_import
