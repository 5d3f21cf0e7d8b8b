//===- ControlFlowOps.cpp - If, Loop, Scan --------------------------------===//
//
// The region ops. Their shape rules (shapes::inferIf, inferLoop, inferScan)
// read the operands and the shapes the bodies declare they yield; their
// reference semantics run the bodies on tensors and take every shape from
// those tensors or from `env.resultShape`, never from the IR's types, which
// may stay dynamic while a model runs.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/ControlFlowShapes.h"
#include "strata/Support/Limits.h"

#include <cstring>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace {
/// The values the single block of `region` yields (its terminator's
/// operands); empty if the block has no top.Yield (the op verifier of the
/// region op then reports it).
OperandRange yieldedValues(Region &region) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  assert(yield && "region ops are verified to end in top.Yield");
  return yield.getValues();
}

/// Checks that `region`'s block ends in a top.Yield of `count` values.
LogicalResult checkYieldCount(Operation *op, Region &region, StringRef what,
                              size_t count) {
  if (region.empty() || region.front().empty() ||
      !isa<YieldOp>(region.front().back()))
    return op->emitOpError() << "the " << what << " must end in top.Yield";
  size_t n = region.front().back().getNumOperands();
  if (n != count)
    return op->emitOpError() << "the " << what << " yields " << n
                             << " values but " << count << " are expected";
  return success();
}

/// Checks that yielded value `v` (#`index` of `what`) is a ranked tensor of
/// element type `elem`.
LogicalResult checkYieldedValue(Operation *op, StringRef what, size_t index,
                                Value v, Type elem) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return op->emitOpError() << "the " << what << " yields value #" << index
                             << " of unranked type " << v.getType()
                             << "; yielded values must be ranked";
  if (t.getElementType() != elem)
    return op->emitOpError() << "the " << what << " yields value #" << index
                             << " of element type " << t.getElementType()
                             << " but " << elem << " is expected";
  return success();
}

/// The element type of a tensor-typed value.
Type elementOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }

/// Checks that a result has element type `elem` and, if ranked, rank `rank`.
LogicalResult checkResult(Operation *op, size_t index, Type elem,
                          int64_t rank) {
  auto t = cast<ShapedType>(op->getResult(index).getType());
  if (t.getElementType() != elem)
    return op->emitOpError() << "result #" << index << " has element type "
                             << t.getElementType() << " but " << elem
                             << " is expected";
  if (t.hasRank() && t.getRank() != rank)
    return op->emitOpError() << "result #" << index << " has rank "
                             << t.getRank() << " but " << rank
                             << " is expected";
  return success();
}

/// Checks a scalar-like operand or yield: a tensor of element type `elem`
/// with one element when its shape is static.
LogicalResult checkOneElement(Operation *op, StringRef what, Value v,
                              unsigned width) {
  auto t = dyn_cast<ShapedType>(v.getType());
  if (!t || !t.getElementType().isInteger(width))
    return op->emitOpError() << what << " must be a tensor of i" << width
                             << ", got " << v.getType();
  if (t.hasStaticShape() && t.getNumElements() != 1)
    return op->emitOpError() << what << " must have one element, got shape "
                             << formatArray(t.getShape());
  return success();
}

/// FLOPs of one run of a region: the sum over the FLOP-counting ops in it.
int64_t regionFlops(Region &region) {
  int64_t total = 0;
  region.walk([&](FlopsOpInterface op) {
    if (op->getParentRegion() == &region)
      total += op.getFlops();
  });
  return total;
}

/// The truth value of a one-element tensor (see shapes::readCondition).
FailureOr<bool> readBool(Operation *op, const char *what, const Tensor &t) {
  ShapeOr<bool> value = shapes::readCondition(what, t);
  if (!value)
    return op->emitOpError() << value.error();
  return *value;
}

/// A rank-0 tensor of `type` holding `value`.
Tensor scalarTensor(DType type, int64_t value) {
  Tensor t(type, {});
  t.setFromDouble(0, static_cast<double>(value));
  if (type == DType::I64)
    *t.data<int64_t>() = value; // exact for values beyond 2^53
  return t;
}

/// Slice `index` of `t` along `axis` (the axis dropped).
Tensor sliceAlong(const Tensor &t, int64_t axis, int64_t index) {
  std::vector<int64_t> shape = t.shape();
  int64_t len = shape[axis];
  shape.erase(shape.begin() + axis);
  Tensor out(t.dtype(), shape);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= t.dim(d);
  for (int64_t d = axis + 1; d < t.rank(); ++d)
    inner *= t.dim(d);
  size_t bytes = static_cast<size_t>(inner) * dtypeSize(t.dtype());
  const char *src = static_cast<const char *>(t.raw());
  char *dst = static_cast<char *>(out.raw());
  for (int64_t o = 0; o < outer; ++o)
    if (bytes)
      std::memcpy(dst + o * bytes, src + (o * len + index) * bytes, bytes);
  return out;
}

/// The value of scan output #`index` of `op` (result `result`): its
/// per-iteration slices `parts` stacked along a new dim `axis` (counted on
/// the result's rank when negative). With no parts, an empty tensor of the
/// shape the op's shape rule gave the result, which must know every dim.
FailureOr<Tensor> stackAlong(Operation *op, InterpreterEnv &env, Value result,
                             size_t index, ArrayRef<Tensor> parts,
                             int64_t axis) {
  DType dtype = resultDType(result);
  if (parts.empty()) {
    if (!env.hasResultShape(result))
      return op->emitOpError()
             << "scan output #" << index << " ran no iteration and "
             << "the body's yield type does not give its shape";
    return Tensor(dtype, env.resultShape(result));
  }
  const std::vector<int64_t> &slice = parts.front().shape();
  for (const Tensor &p : parts)
    if (p.shape() != slice || p.dtype() != dtype)
      return op->emitOpError()
             << "scan output #" << index << " changes shape across "
             << "iterations (" << shapeToString(slice) << " then "
             << shapeToString(p.shape()) << "); iterations must agree";
  if (axis < 0)
    axis += static_cast<int64_t>(slice.size()) + 1;
  std::vector<int64_t> shape = slice;
  int64_t len = static_cast<int64_t>(parts.size());
  shape.insert(shape.begin() + axis, len);
  if (!checkedNumElements(shape))
    return op->emitOpError() << "scan output #" << index << " of shape "
                             << shapeToString(shape) << " is too large";
  Tensor out(dtype, shape);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= slice[d];
  for (size_t d = axis; d < slice.size(); ++d)
    inner *= slice[d];
  size_t bytes = static_cast<size_t>(inner) * dtypeSize(dtype);
  char *dst = static_cast<char *>(out.raw());
  for (int64_t i = 0; i < len; ++i) {
    const char *src = static_cast<const char *>(parts[i].raw());
    for (int64_t o = 0; o < outer; ++o)
      if (bytes)
        std::memcpy(dst + (o * len + i) * bytes, src + o * bytes, bytes);
  }
  return out;
}

/// The shapes the values in `values` declare (their ranked types; the
/// region ops' verifiers check that yielded values are ranked). A body's
/// declared yields are part of its op's shape rule.
SmallVector<SmallVector<int64_t>> declaredShapes(ValueRange values) {
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value v : values)
    shapes.emplace_back(cast<RankedTensorType>(v.getType()).getShape());
  return shapes;
}

/// Views of `shapes` for a shape function (valid while `shapes` lives).
std::vector<Ints> viewsOf(ArrayRef<SmallVector<int64_t>> shapes) {
  return std::vector<Ints>(shapes.begin(), shapes.end());
}

/// The shapes `shapes` reads for `values` (held there).
std::vector<Ints> operandShapes(OperandShapes &shapes, ValueRange values) {
  std::vector<Ints> views;
  for (Value v : values)
    views.push_back(shapes(v));
  return views;
}

/// The elements `ctx` knows for optional operand `v` (nullptr if none).
const Tensor *optionalTensor(const ShapeContext &ctx, Value v) {
  return isNone(v) ? nullptr : ctx.tensor(v);
}
} // namespace

//===----------------------------------------------------------------------===//
// IfOp
//===----------------------------------------------------------------------===//

LogicalResult IfOp::verify() {
  if (failed(checkOneElement(*this, "operand 'cond'", getCond(), 1)))
    return failure();
  for (auto [what, region] : {std::pair<StringRef, Region *>{"then region",
                                                             &getThenRegion()},
                              {"else region", &getElseRegion()}})
    if (failed(checkYieldCount(*this, *region, what, getNumResults())))
      return failure();
  OperandRange thenVals = yieldedValues(getThenRegion());
  OperandRange elseVals = yieldedValues(getElseRegion());
  for (unsigned i = 0; i < getNumResults(); ++i) {
    Type elem = elementOf(getResult(i));
    if (failed(checkYieldedValue(*this, "then region", i, thenVals[i], elem)) ||
        failed(checkYieldedValue(*this, "else region", i, elseVals[i], elem)))
      return failure();
    int64_t thenRank = cast<RankedTensorType>(thenVals[i].getType()).getRank();
    int64_t elseRank = cast<RankedTensorType>(elseVals[i].getType()).getRank();
    if (thenRank != elseRank)
      return emitOpError() << "the branches yield value #" << i
                           << " with different ranks (" << thenRank << " and "
                           << elseRank << ")";
    if (failed(checkResult(*this, i, elem, thenRank)))
      return failure();
  }
  return success();
}

LogicalResult IfOp::inferShapes(const ShapeContext &ctx,
                                SmallVectorImpl<SmallVector<int64_t>> &s) {
  // The shape-inference interface verifier runs before verify(): check the
  // structure this relies on first.
  if (failed(verify()))
    return failure();
  auto thenShapes = declaredShapes(yieldedValues(getThenRegion()));
  auto elseShapes = declaredShapes(yieldedValues(getElseRegion()));
  return appendShapes(*this,
                      shapes::inferIf(viewsOf(thenShapes), viewsOf(elseShapes),
                                      ctx.tensor(getCond())),
                      s);
}

int64_t IfOp::getFlops() {
  return std::max(regionFlops(getThenRegion()), regionFlops(getElseRegion()));
}

LogicalResult IfOp::interpret(InterpreterEnv &env) {
  FailureOr<bool> cond = readBool(*this, "operand 'cond'", env.get(getCond()));
  if (failed(cond))
    return failure();
  auto values = env.runRegion(*cond ? getThenRegion() : getElseRegion(), {});
  if (failed(values))
    return failure();
  for (auto [r, t] : llvm::zip(getResults(), *values))
    env.set(r, std::move(t));
  return success();
}

//===----------------------------------------------------------------------===//
// LoopOp
//===----------------------------------------------------------------------===//

LogicalResult LoopOp::verify() {
  if (!isNone(getMaxTripCount()) &&
      failed(checkOneElement(*this, "operand 'max_trip_count'",
                             getMaxTripCount(), 64)))
    return failure();
  if (!isNone(getCond()) &&
      failed(checkOneElement(*this, "operand 'cond'", getCond(), 1)))
    return failure();
  size_t numCarried = getInitial().size();
  if (getNumResults() < numCarried)
    return emitOpError() << "has " << getNumResults() << " results but "
                         << numCarried << " carried values";
  Block &body = getBody().front();
  if (body.getNumArguments() != numCarried + 2)
    return emitOpError() << "the body takes " << body.getNumArguments()
                         << " arguments but " << numCarried + 2
                         << " (iteration, cond, carried...) are expected";
  auto i64Scalar = RankedTensorType::get({}, IntegerType::get(getContext(), 64));
  auto i1Scalar = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (body.getArgument(0).getType() != i64Scalar)
    return emitOpError() << "body argument #0 (iteration) has type "
                         << body.getArgument(0).getType() << " but "
                         << i64Scalar << " is expected";
  if (body.getArgument(1).getType() != i1Scalar)
    return emitOpError() << "body argument #1 (cond) has type "
                         << body.getArgument(1).getType() << " but "
                         << i1Scalar << " is expected";
  for (auto [k, init] : llvm::enumerate(getInitial()))
    if (body.getArgument(k + 2).getType() != init.getType())
      return emitOpError() << "body argument #" << k + 2 << " has type "
                           << body.getArgument(k + 2).getType()
                           << " but carried value #" << k << " has type "
                           << init.getType();
  unsigned numScan = getNumScanOutputs();
  if (failed(checkYieldCount(*this, getBody(), "body", 1 + numCarried + numScan)))
    return failure();
  OperandRange yields = yieldedValues(getBody());
  if (failed(checkOneElement(*this, "the body's yielded cond", yields[0], 1)))
    return failure();
  for (size_t k = 0; k < numCarried; ++k) {
    Type elem = elementOf(getInitial()[k]);
    if (failed(checkYieldedValue(*this, "body", k + 1, yields[k + 1], elem)))
      return failure();
    int64_t rank = cast<RankedTensorType>(yields[k + 1].getType()).getRank();
    if (auto init = dyn_cast<RankedTensorType>(getInitial()[k].getType());
        init && init.getRank() != rank)
      return emitOpError() << "the body yields carried value #" << k
                           << " with rank " << rank << " but its initial "
                           << "value has rank " << init.getRank();
    if (failed(checkResult(*this, k, elem, rank)))
      return failure();
  }
  for (unsigned s = 0; s < numScan; ++s) {
    Value y = yields[1 + numCarried + s];
    auto t = dyn_cast<RankedTensorType>(y.getType());
    if (!t)
      return emitOpError() << "the body yields scan value #" << s
                           << " of unranked type " << y.getType()
                           << "; yielded values must be ranked";
    if (failed(checkResult(*this, numCarried + s, t.getElementType(),
                           t.getRank() + 1)))
      return failure();
  }
  return success();
}

LogicalResult LoopOp::inferShapes(const ShapeContext &ctx,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  // The shape-inference interface verifier runs before verify(): check the
  // structure this relies on first.
  if (failed(verify()))
    return failure();
  size_t numCarried = getInitial().size();
  OperandRange yields = yieldedValues(getBody());
  auto carried = declaredShapes(yields.slice(1, numCarried));
  auto scans = declaredShapes(yields.drop_front(1 + numCarried));
  OperandShapes operands(ctx);
  shapes::LoopShapeInputs in;
  in.initial = operandShapes(operands, getInitial());
  in.carriedYields = viewsOf(carried);
  in.scanYields = viewsOf(scans);
  in.maxTripCount = optionalTensor(ctx, getMaxTripCount());
  in.cond = optionalTensor(ctx, getCond());
  return appendShapes(*this, shapes::inferLoop(in), s);
}

/// Per iteration: the count is known only at run time.
int64_t LoopOp::getFlops() { return regionFlops(getBody()); }

LogicalResult LoopOp::interpret(InterpreterEnv &env) {
  int64_t maxTrips = INT64_MAX;
  if (!isNone(getMaxTripCount())) {
    ShapeOr<int64_t> m = shapes::readScalar("operand 'max_trip_count'",
                                            env.get(getMaxTripCount()));
    if (!m)
      return emitOpError() << m.error();
    maxTrips = *m;
  }
  bool cond = true;
  if (!isNone(getCond())) {
    FailureOr<bool> c = readBool(*this, "operand 'cond'", env.get(getCond()));
    if (failed(c))
      return failure();
    cond = *c;
  }
  size_t numCarried = getInitial().size();
  unsigned numScan = getNumScanOutputs();
  std::vector<Tensor> carried;
  for (Value v : getInitial())
    carried.push_back(env.get(v));
  std::vector<std::vector<Tensor>> scans(numScan);
  int64_t maxIterations = limits().maxLoopIterations;
  for (int64_t i = 0; i < maxTrips && cond; ++i) {
    if (i >= maxIterations)
      return emitOpError()
             << "has run " << i << " iterations (max_trip_count "
             << (maxTrips == INT64_MAX ? std::string("none")
                                       : std::to_string(maxTrips))
             << ") and reached the interpreter's loop limit of "
             << maxIterations << " (--max-loop-iterations raises it)";
    std::vector<Tensor> args;
    args.push_back(scalarTensor(DType::I64, i));
    args.push_back(scalarTensor(DType::Bool, 1));
    for (Tensor &t : carried)
      args.push_back(t);
    auto out = env.runRegion(getBody(), args);
    if (failed(out))
      return failure();
    FailureOr<bool> next = readBool(*this, "the body's yielded cond", (*out)[0]);
    if (failed(next))
      return failure();
    cond = *next;
    for (size_t k = 0; k < numCarried; ++k)
      carried[k] = std::move((*out)[k + 1]);
    for (unsigned s = 0; s < numScan; ++s)
      scans[s].push_back(std::move((*out)[1 + numCarried + s]));
  }
  for (size_t k = 0; k < numCarried; ++k)
    env.set(getResult(k), std::move(carried[k]));
  for (unsigned s = 0; s < numScan; ++s) {
    Value result = getResult(numCarried + s);
    FailureOr<Tensor> stacked = stackAlong(*this, env, result, s, scans[s], 0);
    if (failed(stacked))
      return failure();
    env.set(result, std::move(*stacked));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

namespace {
/// An optional per-input/per-output list attribute with its default (0).
SmallVector<int64_t> listOrZeros(std::optional<ArrayRef<int64_t>> list,
                                 size_t n) {
  if (list)
    return SmallVector<int64_t>(list->begin(), list->end());
  return SmallVector<int64_t>(n, 0);
}

/// Checks a list attribute's length and, for directions, its values.
LogicalResult checkScanList(Operation *op, StringRef name,
                            std::optional<ArrayRef<int64_t>> list, size_t n,
                            bool isDirection) {
  if (!list)
    return success();
  if (list->size() != n)
    return op->emitOpError() << "attribute '" << name << "' has "
                             << list->size() << " entries but " << n
                             << " are expected";
  if (isDirection)
    for (int64_t d : *list)
      if (d != 0 && d != 1)
        return op->emitOpError() << "attribute '" << name << "' = "
                                 << formatArray(*list)
                                 << " must hold only 0 (forward) or 1 "
                                    "(reverse)";
  return success();
}
} // namespace

LogicalResult ScanOp::verify() {
  int64_t numScanInputs = getNumScanInputs();
  size_t numInputs = getInputs().size();
  if (numScanInputs < 1 || static_cast<size_t>(numScanInputs) > numInputs)
    return emitOpError() << "attribute 'num_scan_inputs' = " << numScanInputs
                         << " must be in [1, " << numInputs
                         << "] (the number of operands)";
  size_t numStates = getNumStates();
  if (getNumResults() < numStates)
    return emitOpError() << "has " << getNumResults() << " results but "
                         << numStates << " states";
  size_t numScanOut = getNumResults() - numStates;
  if (failed(checkScanList(*this, "scan_input_axes", getScanInputAxes(),
                           numScanInputs, false)) ||
      failed(checkScanList(*this, "scan_input_directions",
                           getScanInputDirections(), numScanInputs, true)) ||
      failed(checkScanList(*this, "scan_output_axes", getScanOutputAxes(),
                           numScanOut, false)) ||
      failed(checkScanList(*this, "scan_output_directions",
                           getScanOutputDirections(), numScanOut, true)))
    return failure();
  Block &body = getBody().front();
  if (body.getNumArguments() != numInputs)
    return emitOpError() << "the body takes " << body.getNumArguments()
                         << " arguments but " << numInputs
                         << " (states, then scan slices) are expected";
  for (size_t k = 0; k < numStates; ++k)
    if (body.getArgument(k).getType() != getInputs()[k].getType())
      return emitOpError() << "body argument #" << k << " has type "
                           << body.getArgument(k).getType()
                           << " but state #" << k << " has type "
                           << getInputs()[k].getType();
  SmallVector<int64_t> inAxes =
      listOrZeros(getScanInputAxes(), numScanInputs);
  for (int64_t j = 0; j < numScanInputs; ++j) {
    Value in = getInputs()[numStates + j];
    Type argType = body.getArgument(numStates + j).getType();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!inType) {
      if (elementOf(in) != cast<ShapedType>(argType).getElementType())
        return emitOpError() << "body argument #" << numStates + j
                             << " has type " << argType << " but scan input #"
                             << j << " has type " << in.getType();
      continue;
    }
    FailureOr<int64_t> axis = normalizeAxis(*this, "scan_input_axes",
                                            inAxes[j], inType.getRank());
    if (failed(axis))
      return failure();
    SmallVector<int64_t> slice(inType.getShape().begin(),
                               inType.getShape().end());
    slice.erase(slice.begin() + *axis);
    auto sliceType = RankedTensorType::get(slice, inType.getElementType());
    if (argType != sliceType)
      return emitOpError() << "body argument #" << numStates + j
                           << " has type " << argType << " but a slice of "
                           << "scan input #" << j << " along axis " << *axis
                           << " has type " << sliceType;
  }
  if (failed(checkYieldCount(*this, getBody(), "body", getNumResults())))
    return failure();
  OperandRange yields = yieldedValues(getBody());
  for (size_t k = 0; k < numStates; ++k) {
    Type elem = elementOf(getInputs()[k]);
    if (failed(checkYieldedValue(*this, "body", k, yields[k], elem)))
      return failure();
    int64_t rank = cast<RankedTensorType>(yields[k].getType()).getRank();
    if (auto init = dyn_cast<RankedTensorType>(getInputs()[k].getType());
        init && init.getRank() != rank)
      return emitOpError() << "the body yields state #" << k << " with rank "
                           << rank << " but its initial value has rank "
                           << init.getRank();
    if (failed(checkResult(*this, k, elem, rank)))
      return failure();
  }
  SmallVector<int64_t> outAxes = listOrZeros(getScanOutputAxes(), numScanOut);
  for (size_t s = 0; s < numScanOut; ++s) {
    Value y = yields[numStates + s];
    auto t = dyn_cast<RankedTensorType>(y.getType());
    if (!t)
      return emitOpError() << "the body yields scan value #" << s
                           << " of unranked type " << y.getType()
                           << "; yielded values must be ranked";
    if (failed(normalizeAxis(*this, "scan_output_axes", outAxes[s],
                             t.getRank() + 1)))
      return failure();
    if (failed(checkResult(*this, numStates + s, t.getElementType(),
                           t.getRank() + 1)))
      return failure();
  }
  return success();
}

namespace {
/// The iteration count of `op` for scan inputs of shapes `inShapes` (see
/// shapes::scanLength).
FailureOr<int64_t> scanLength(ScanOp op, const std::vector<Ints> &inShapes) {
  SmallVector<int64_t> axes =
      listOrZeros(op.getScanInputAxes(), op.getNumScanInputs());
  ShapeOr<int64_t> length = shapes::scanLength(inShapes, axes);
  if (!length)
    return op.emitOpError() << length.error();
  return *length;
}
} // namespace

LogicalResult ScanOp::inferShapes(const ShapeContext &ctx,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  // The shape-inference interface verifier runs before verify(): check the
  // structure this relies on first.
  if (failed(verify()))
    return failure();
  size_t numStates = getNumStates();
  size_t numScanOut = getNumResults() - numStates;
  OperandRange yields = yieldedValues(getBody());
  auto stateYields = declaredShapes(yields.take_front(numStates));
  auto outputYields = declaredShapes(yields.drop_front(numStates));
  SmallVector<int64_t> inAxes =
      listOrZeros(getScanInputAxes(), getNumScanInputs());
  SmallVector<int64_t> outAxes = listOrZeros(getScanOutputAxes(), numScanOut);
  OperandShapes operands(ctx);
  shapes::ScanShapeInputs in;
  in.states = operandShapes(operands, getInputs().take_front(numStates));
  in.stateYields = viewsOf(stateYields);
  in.scanInputs = operandShapes(operands, getInputs().drop_front(numStates));
  in.scanInputAxes = inAxes;
  in.outputYields = viewsOf(outputYields);
  in.scanOutputAxes = outAxes;
  return appendShapes(*this, shapes::inferScan(in), s);
}

int64_t ScanOp::getFlops() {
  size_t numStates = getNumStates();
  Value first = getInputs()[numStates];
  if (!hasStaticShape(first))
    return 0;
  SmallVector<int64_t> axes = listOrZeros(getScanInputAxes(), getNumScanInputs());
  int64_t rank = shapeOf(first).size();
  int64_t a = axes[0] < 0 ? axes[0] + rank : axes[0];
  return shapeOf(first)[a] * regionFlops(getBody());
}

LogicalResult ScanOp::interpret(InterpreterEnv &env) {
  size_t numStates = getNumStates();
  int64_t numScanIn = getNumScanInputs();
  size_t numScanOut = getNumResults() - numStates;
  std::vector<Tensor> states;
  for (Value v : getInputs().take_front(numStates))
    states.push_back(env.get(v));
  std::vector<Ints> inShapes;
  SmallVector<const Tensor *> scanIns;
  for (Value v : getInputs().drop_front(numStates)) {
    scanIns.push_back(&env.get(v));
    inShapes.push_back(scanIns.back()->shape());
  }
  FailureOr<int64_t> length = scanLength(*this, inShapes);
  if (failed(length))
    return failure();
  SmallVector<int64_t> inAxes = listOrZeros(getScanInputAxes(), numScanIn);
  SmallVector<int64_t> inDirs = listOrZeros(getScanInputDirections(), numScanIn);
  std::vector<std::vector<Tensor>> scans(numScanOut);
  for (int64_t t = 0; t < *length; ++t) {
    std::vector<Tensor> args = states;
    for (int64_t j = 0; j < numScanIn; ++j) {
      int64_t rank = scanIns[j]->rank();
      int64_t a = inAxes[j] < 0 ? inAxes[j] + rank : inAxes[j];
      int64_t index = inDirs[j] ? *length - 1 - t : t;
      args.push_back(sliceAlong(*scanIns[j], a, index));
    }
    auto out = env.runRegion(getBody(), args);
    if (failed(out))
      return failure();
    for (size_t k = 0; k < numStates; ++k)
      states[k] = std::move((*out)[k]);
    for (size_t s = 0; s < numScanOut; ++s)
      scans[s].push_back(std::move((*out)[numStates + s]));
  }
  for (size_t k = 0; k < numStates; ++k)
    env.set(getResult(k), std::move(states[k]));
  SmallVector<int64_t> outAxes = listOrZeros(getScanOutputAxes(), numScanOut);
  SmallVector<int64_t> outDirs =
      listOrZeros(getScanOutputDirections(), numScanOut);
  for (size_t s = 0; s < numScanOut; ++s) {
    if (outDirs[s])
      std::reverse(scans[s].begin(), scans[s].end());
    Value result = getResult(numStates + s);
    FailureOr<Tensor> stacked =
        stackAlong(*this, env, result, s, scans[s], outAxes[s]);
    if (failed(stacked))
      return failure();
    env.set(result, std::move(*stacked));
  }
  return success();
}
