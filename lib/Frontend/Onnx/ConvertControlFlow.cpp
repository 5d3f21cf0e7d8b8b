//===- ConvertControlFlow.cpp - ONNX If, Loop, Scan, Range to Top ---------===//
//
// The ControlFlow family (TopControlFlowOps.td). The subgraph attributes
// become the regions of top.If, top.Loop and top.Scan; nodes inside them
// may read names of the enclosing graphs. The result types are set from
// what the converted subgraphs yield, then shapes are inferred like for any
// other op. Range is a constant when its inputs are, else a top.Range.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include "strata/Dialect/Top/Shapes/DataDependentShapes.h"

namespace strata::onnx_import {
namespace {

/// The element type of a tensor-typed value (null for none).
Type elementOf(Value v) {
  auto t = dyn_cast<ShapedType>(v.getType());
  return t ? t.getElementType() : Type();
}

/// Sets result `i` of `op` to an unranked tensor of `elem`; shapes come from
/// shape inference in NodeContext::finish.
void setResultElement(Operation *op, unsigned i, Type elem) {
  op->getResult(i).setType(UnrankedTensorType::get(elem));
}

/// Finishes a converted op and binds its results to the node's outputs.
LogicalResult finishAndSetOutputs(NodeContext &c, Operation *op) {
  auto results = c.finish(op);
  if (failed(results))
    return failure();
  for (auto [i, v] : llvm::enumerate(*results))
    c.setOutput(i, v);
  return success();
}

/// Checks that every yielded value of a converted region is a tensor; a
/// subgraph output can be a sequence or optional only in models Strata does
/// not support, and then its producer already failed.
LogicalResult checkOutputs(NodeContext &c, Region &region, StringRef what) {
  for (auto [i, v] : llvm::enumerate(region.front().getTerminator()->getOperands()))
    if (!isa<TensorType>(v.getType()))
      return c.error() << what << " output #" << i << " is not a tensor";
  return success();
}

/// If branches may yield sequences and optionals only with the same static
/// structure (lengths, presence), so they flatten to the same tensors.
LogicalResult checkListOutputs(NodeContext &c, IfOp op,
                               ArrayRef<OnnxValue> thenOuts,
                               ArrayRef<OnnxValue> elseOuts) {
  for (auto [i, t, e] : llvm::enumerate(thenOuts, elseOuts)) {
    if (sameStructure(t, e))
      continue;
    op->erase();
    return c.error() << "input 0 'cond' (value '" << c.node().input(0)
                     << "') must be a constant: output #" << i << " is "
                     << describe(t) << " in then_branch but " << describe(e)
                     << " in else_branch, and Strata resolves sequences and "
                        "optionals at import time (with a run-time condition "
                        "both branches must give the same length / presence)";
  }
  return success();
}

LogicalResult convertIf(NodeContext &c) {
  auto thenGraph = c.attrGraph("then_branch");
  auto elseGraph = c.attrGraph("else_branch");
  if (failed(thenGraph) || failed(elseGraph))
    return failure();
  if (!c.hasInput(0))
    return c.error() << "input 0 ('cond') is required";
  int outputs = (*thenGraph)->output_size();
  if ((*elseGraph)->output_size() != outputs)
    return c.error() << "then_branch has " << outputs << " outputs but "
                     << "else_branch has " << (*elseGraph)->output_size();
  if (c.numOutputs() != static_cast<size_t>(outputs))
    return c.error() << "the node has " << c.numOutputs()
                     << " outputs but its branches have " << outputs;
  // A constant condition selects its branch at import time: the branch's
  // nodes are converted in place (shapes often depend on which one runs).
  if (const Tensor *cond = c.constantInput(0)) {
    if (cond->numElements() != 1)
      return c.error() << "input 'cond' must have one element, got shape "
                       << shapeToString(cond->shape());
    std::vector<OnnxValue> values;
    if (failed(c.inlineSubgraph(cond->getAsInt(0) ? **thenGraph : **elseGraph,
                                {}, values)))
      return failure();
    for (auto [i, v] : llvm::enumerate(values))
      c.setOutput(i, v);
    return success();
  }
  SmallVector<Type> placeholder(outputs, UnrankedTensorType::get(
                                             Float32Type::get(c.context())));
  auto op = IfOp::create(c.builder(), c.loc(), TypeRange(placeholder),
                         c.input(0));
  // Sequences / optionals of the same static structure in both branches are
  // yielded as their tensors (ConvertSequence.cpp).
  std::vector<OnnxValue> thenOuts, elseOuts;
  if (failed(c.convertSubgraph(**thenGraph, op.getThenRegion(), {}, thenOuts)) ||
      failed(c.convertSubgraph(**elseGraph, op.getElseRegion(), {}, elseOuts))) {
    op->erase();
    return failure();
  }
  if (failed(checkListOutputs(c, op, thenOuts, elseOuts)))
    return failure();
  if (op.getThenRegion().front().getTerminator()->getNumOperands() !=
      static_cast<unsigned>(outputs)) {
    auto flat = IfOp::create(
        c.builder(), c.loc(),
        TypeRange(op.getThenRegion().front().getTerminator()->getOperandTypes()),
        c.input(0));
    flat.getThenRegion().takeBody(op.getThenRegion());
    flat.getElseRegion().takeBody(op.getElseRegion());
    op->erase();
    op = flat;
  }
  if (failed(checkOutputs(c, op.getThenRegion(), "then_branch")) ||
      failed(checkOutputs(c, op.getElseRegion(), "else_branch"))) {
    op->erase();
    return failure();
  }
  unsigned leaves = op->getNumResults();
  for (unsigned i = 0; i < leaves; ++i)
    setResultElement(op, i,
                     elementOf(op.getThenRegion().front().getTerminator()
                                   ->getOperand(i)));
  if (llvm::all_of(thenOuts, [](const OnnxValue &v) {
        return v.kind == OnnxValue::Tensor;
      }))
    return finishAndSetOutputs(c, op);
  auto results = c.finish(op);
  if (failed(results))
    return failure();
  ArrayRef<Value> rest(*results);
  for (auto [i, o] : llvm::enumerate(thenOuts))
    c.setOutput(i, rebuildLeaves(o, rest));
  return success();
}

LogicalResult convertLoop(NodeContext &c) {
  auto body = c.attrGraph("body");
  if (failed(body))
    return failure();
  MLIRContext *ctx = c.context();
  size_t numCarried = c.numInputs() < 2 ? 0 : c.numInputs() - 2;
  SmallVector<Value> initial;
  SmallVector<Type> argTypes{
      RankedTensorType::get({}, IntegerType::get(ctx, 64)),
      RankedTensorType::get({}, IntegerType::get(ctx, 1))};
  for (size_t k = 0; k < numCarried; ++k) {
    if (!c.hasInput(k + 2))
      return c.error() << "loop-carried input " << k + 2 << " is empty";
    Value v = c.input(k + 2);
    if (!isa<TensorType>(v.getType()))
      return c.error() << "loop-carried input " << k + 2 << " is not a tensor";
    initial.push_back(v);
    argTypes.push_back(v.getType());
  }
  int bodyOutputs = (*body)->output_size();
  if (bodyOutputs < static_cast<int>(1 + numCarried))
    return c.error() << "the body has " << bodyOutputs << " outputs but at "
                     << "least " << 1 + numCarried
                     << " (cond, carried values) are needed";
  size_t numResults = bodyOutputs - 1;
  if (c.numOutputs() != numResults)
    return c.error() << "the node has " << c.numOutputs() << " outputs but "
                     << "its body yields " << numResults
                     << " carried and scan values";
  SmallVector<Type> placeholder(numResults,
                                UnrankedTensorType::get(Float32Type::get(ctx)));
  auto op = LoopOp::create(c.builder(), c.loc(), TypeRange(placeholder),
                           c.input(0), c.input(1), initial);
  if (failed(c.convertSubgraph(**body, op.getBody(), argTypes)) ||
      failed(checkOutputs(c, op.getBody(), "body"))) {
    op->erase();
    return failure();
  }
  Operation *yield = op.getBody().front().getTerminator();
  for (size_t r = 0; r < numResults; ++r)
    setResultElement(op, r,
                     r < numCarried ? elementOf(initial[r])
                                    : elementOf(yield->getOperand(r + 1)));
  return finishAndSetOutputs(c, op);
}

/// An optional ints attribute as a DenseI64ArrayAttr (null if absent).
FailureOr<DenseI64ArrayAttr> intsAttr(NodeContext &c, StringRef name) {
  auto v = c.attrInts(name);
  if (failed(v))
    return failure();
  if (!*v)
    return DenseI64ArrayAttr();
  return DenseI64ArrayAttr::get(c.context(), **v);
}

/// Builds a top.Scan over `states` and `scans` whose body is `body` (when
/// given) and returns it; the region of the op is left empty when `body` is
/// null so the caller can fill it.
FailureOr<ScanOp> buildScan(NodeContext &c, ArrayRef<Value> states,
                            ArrayRef<Value> scans, size_t numResults,
                            DenseI64ArrayAttr inAxes, DenseI64ArrayAttr inDirs,
                            DenseI64ArrayAttr outAxes,
                            DenseI64ArrayAttr outDirs,
                            const onnx::GraphProto &body) {
  SmallVector<Value> inputs(states.begin(), states.end());
  inputs.append(scans.begin(), scans.end());
  SmallVector<Type> argTypes;
  for (Value s : states)
    argTypes.push_back(s.getType());
  for (auto [j, v] : llvm::enumerate(scans)) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return c.error() << "scan input #" << j << " needs a known rank";
    if (t.getRank() == 0)
      return c.error() << "scan input #" << j
                       << " is a scalar; it needs rank >= 1 to be scanned";
    int64_t axis = inAxes ? inAxes.asArrayRef()[j] : 0;
    auto a = c.normalizeAxis("scan_input_axes entry", axis, t.getRank());
    if (failed(a))
      return failure();
    SmallVector<int64_t> slice(t.getShape().begin(), t.getShape().end());
    slice.erase(slice.begin() + *a);
    argTypes.push_back(RankedTensorType::get(slice, t.getElementType()));
  }
  SmallVector<Type> placeholder(
      numResults, UnrankedTensorType::get(Float32Type::get(c.context())));
  auto op = ScanOp::create(
      c.builder(), c.loc(), TypeRange(placeholder), inputs,
      IntegerAttr::get(IntegerType::get(c.context(), 64), scans.size()),
      inAxes, inDirs, outAxes, outDirs);
  if (failed(c.convertSubgraph(body, op.getBody(), argTypes)) ||
      failed(checkOutputs(c, op.getBody(), "body"))) {
    op->erase();
    return failure();
  }
  Operation *yield = op.getBody().front().getTerminator();
  for (size_t r = 0; r < numResults; ++r)
    setResultElement(op, r,
                     r < states.size() ? elementOf(states[r])
                                       : elementOf(yield->getOperand(r)));
  return op;
}

LogicalResult convertScan(NodeContext &c) {
  auto body = c.attrGraph("body");
  auto numScan = c.attrIntOpt("num_scan_inputs");
  if (failed(body) || failed(numScan))
    return failure();
  if (!*numScan)
    return c.error() << "attribute 'num_scan_inputs' is required";
  // Opset 8 has a leading optional sequence_lens input and a batch dim.
  size_t first = c.version() < 9 ? 1 : 0;
  if (first && c.hasInput(0))
    return c.error() << "input 'sequence_lens' is not supported (Scan-8 with "
                     << "per-batch sequence lengths)";
  int64_t total = static_cast<int64_t>(c.numInputs()) - first;
  if (**numScan < 1 || **numScan > total)
    return c.error() << "attribute 'num_scan_inputs' = " << **numScan
                     << " must be in [1, " << total << "]";
  size_t numStates = total - **numScan;
  SmallVector<Value> states, scans;
  for (size_t i = first; i < c.numInputs(); ++i) {
    if (!c.hasInput(i))
      return c.error() << "input " << i << " is empty";
    (i - first < numStates ? states : scans).push_back(c.input(i));
  }
  size_t numResults = c.numOutputs();
  if ((*body)->output_size() != static_cast<int>(numResults))
    return c.error() << "the node has " << numResults << " outputs but its "
                     << "body has " << (*body)->output_size();
  if (numResults < numStates)
    return c.error() << "the node has " << numResults << " outputs but "
                     << numStates << " states";

  if (c.version() >= 9) {
    auto inAxes = intsAttr(c, "scan_input_axes");
    auto inDirs = intsAttr(c, "scan_input_directions");
    auto outAxes = intsAttr(c, "scan_output_axes");
    auto outDirs = intsAttr(c, "scan_output_directions");
    if (failed(inAxes) || failed(inDirs) || failed(outAxes) || failed(outDirs))
      return failure();
    if (*inAxes && inAxes->size() != **numScan)
      return c.error() << "attribute 'scan_input_axes' has " << inAxes->size()
                       << " entries but num_scan_inputs is " << **numScan;
    auto op = buildScan(c, states, scans, numResults, *inAxes, *inDirs,
                        *outAxes, *outDirs, **body);
    if (failed(op))
      return failure();
    return finishAndSetOutputs(c, *op);
  }

  // Scan-8: every input has a leading batch dim and the body runs per batch
  // entry, scanning axis 1. That is an outer scan over the batch dim (every
  // input a scan input, no state) around a Scan-9 over the remaining dims.
  auto dirs = intsAttr(c, "directions");
  if (failed(dirs))
    return failure();
  SmallVector<Value> all(states);
  all.append(scans);
  SmallVector<Type> sliceTypes;
  for (auto [i, v] : llvm::enumerate(all)) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getRank() < (i < numStates ? 1 : 2))
      return c.error() << "input " << i + 1 << " needs a known rank of at "
                       << "least " << (i < numStates ? 1 : 2)
                       << " (batch dim first)";
    sliceTypes.push_back(
        RankedTensorType::get(t.getShape().drop_front(), t.getElementType()));
  }
  SmallVector<Type> placeholder(
      numResults, UnrankedTensorType::get(Float32Type::get(c.context())));
  auto outer = ScanOp::create(
      c.builder(), c.loc(), TypeRange(placeholder), all,
      IntegerAttr::get(IntegerType::get(c.context(), 64), all.size()),
      DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
      DenseI64ArrayAttr());
  Block *block = new Block();
  outer.getBody().push_back(block);
  SmallVector<Value> innerStates, innerScans;
  for (auto [i, t] : llvm::enumerate(sliceTypes)) {
    Value arg = block->addArgument(t, c.loc());
    (i < numStates ? innerStates : innerScans).push_back(arg);
  }
  FailureOr<ScanOp> inner;
  {
    OpBuilder::InsertionGuard guard(c.builder());
    c.builder().setInsertionPointToStart(block);
    inner = buildScan(c, innerStates, innerScans, numResults,
                      DenseI64ArrayAttr(), *dirs, DenseI64ArrayAttr(),
                      DenseI64ArrayAttr(), **body);
    if (succeeded(inner)) {
      auto innerResults = c.finish(*inner);
      if (failed(innerResults))
        inner = failure();
      else
        YieldOp::create(c.builder(), c.loc(), *innerResults);
    }
  }
  if (failed(inner)) {
    outer->erase();
    return failure();
  }
  for (size_t r = 0; r < numResults; ++r)
    setResultElement(outer, r, elementOf((*inner)->getResult(r)));
  return finishAndSetOutputs(c, outer);
}

//===--- Range ---===//

/// Range of run-time scalars: top.Range, whose length is known at run time
/// (a delta of 0 is its error there).
LogicalResult convertRangeAtRunTime(NodeContext &c) {
  for (size_t i = 0; i < 3; ++i) {
    auto shape = c.inputShape(i);
    if (!shape || !shape->empty())
      return c.error() << "input " << i << " must be a constant, or a scalar "
                       << "(shape []) to be computed at run time";
  }
  Value start = c.input(0), limit = c.input(1), delta = c.input(2);
  Type elem = elementOf(start);
  if (elementOf(limit) != elem || elementOf(delta) != elem)
    return c.error() << "inputs 'start', 'limit' and 'delta' must have one "
                     << "element type";
  auto results = c.finish(RangeOp::create(
      c.builder(), c.loc(), RankedTensorType::get({ShapedType::kDynamic}, elem),
      start, limit, delta));
  if (failed(results))
    return failure();
  c.setOutput(0, (*results)[0]);
  return success();
}

/// Reads a one-element constant input as a double and as an int.
struct Scalar {
  double f;
  int64_t i;
};

FailureOr<Scalar> scalarInput(NodeContext &c, size_t i, StringRef what) {
  const Tensor *t = c.constantInput(i);
  if (!t)
    return c.error() << "the '" << what
                     << "' input must be a constant (the output shape "
                        "depends on it)";
  if (t->numElements() != 1)
    return c.error() << "'" << what << "' must be a scalar, has "
                     << t->numElements() << " elements";
  return Scalar{t->getAsDouble(0), t->getAsInt(0)};
}

/// Range of constant inputs is a constant; otherwise its length depends on
/// run-time values and it becomes a top.Loop (convertRangeAsLoop).
LogicalResult convertRange(NodeContext &c) {
  if (!c.constantInput(0) || !c.constantInput(1) || !c.constantInput(2))
    return convertRangeAtRunTime(c);
  auto start = scalarInput(c, 0, "start");
  auto limit = scalarInput(c, 1, "limit");
  auto delta = scalarInput(c, 2, "delta");
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  DType dt = c.constantInput(0)->dtype();
  bool fp = isFloat(dt);
  ShapeOr<int64_t> count = top::shapes::rangeCount(
      *c.constantInput(0), *c.constantInput(1), *c.constantInput(2));
  if (!count)
    return c.error() << count.error();
  int64_t n = *count;
  if (n > (int64_t(1) << 28))
    return c.error() << "range of " << n << " elements is too large";
  Tensor t(dt, {n});
  for (int64_t k = 0; k < n; ++k) {
    if (fp)
      t.setFromDouble(k, start->f + static_cast<double>(k) * delta->f);
    else if (dt == DType::I64)
      t.data<int64_t>()[k] = start->i + k * delta->i;
    else
      t.setFromDouble(k, static_cast<double>(start->i + k * delta->i));
  }
  c.setOutput(0, c.constant(t, "range"));
  return success();
}

const ConverterEntry kControlFlow[] = {
    {"If", convertIf},
    {"Loop", convertLoop},
    {"Scan", convertScan},
    {"Range", convertRange},
};
} // namespace

ArrayRef<ConverterEntry> controlFlowConverters() { return kControlFlow; }

} // namespace strata::onnx_import
