//===- ShapeOps.cpp - reshape, permute, concat, ... -----------------------===//
//
// Data-movement ops. Reference semantics copy bytes, so they work for every
// element type; most build offset tables for `gatherOffsets`.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/ShapeShapes.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// Offset tables reading every element of `shape` in place.
SmallVector<SmallVector<int64_t>> identityOffsets(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides = rowMajorStrides(shape);
  SmallVector<SmallVector<int64_t>> offsets;
  for (auto [d, s] : llvm::zip(shape, strides))
    offsets.push_back(stridedOffsets(0, 1, d, s));
  return offsets;
}

/// Stores an all-zero tensor for `result` if its shape is empty; returns
/// true if it did (offset tables of empty results are never built, since
/// their other dims may be huge).
bool setIfEmpty(InterpreterEnv &env, Value result) {
  std::vector<int64_t> shape = env.resultShape(result);
  if (!isEmptyShape(shape))
    return false;
  env.set(result, Tensor(resultDType(result), shape));
  return true;
}

/// Zero FLOPs: data movement only.
template <typename OpT> int64_t noFlops(OpT) { return 0; }

bool isIdentityOrder(ArrayRef<int64_t> order) {
  for (auto [i, v] : llvm::enumerate(order))
    if (v != static_cast<int64_t>(i))
      return false;
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto shapeValue = runtimeList(*this, ctx, "shape_value", getShapeValue());
  if (failed(shapeValue))
    return failure();
  return appendShape(
      *this,
      shapes::inferReshape(ctx.shape(getInput()), getShape(), *shapeValue), s);
}

int64_t ReshapeOp::getFlops() { return 0; }

LogicalResult ReshapeOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(),
          env.get(getInput()).reshaped(env.resultShape(getOutput())));
  return success();
}

/// A reshape to the input's own static type is the input. A reshape of a
/// reshape reads the inner reshape's input; `shape` is replaced by the static
/// result shape, or kept if it has no 0 (which would refer to the inner
/// reshape's dims).
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getShapeValue())
    return {};
  Type type = getOutput().getType();
  if (getInput().getType() == type && hasStaticShape(getInput()))
    return getInput();
  auto inner = getInput().getDefiningOp<ReshapeOp>();
  if (!inner)
    return {};
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (ranked && ranked.hasStaticShape())
    setShape(ranked.getShape());
  else if (llvm::is_contained(getShape(), 0))
    return {};
  getInputMutable().assign(inner.getInput());
  return getOutput();
}

//===----------------------------------------------------------------------===//
// SqueezeOp, UnsqueezeOp
//===----------------------------------------------------------------------===//

/// The required runtime list operand `name` of a Squeeze or Unsqueeze.
static FailureOr<shapes::RuntimeValue>
requiredRuntimeList(Operation *op, const ShapeContext &ctx, StringRef name,
                    Value value) {
  auto list = runtimeList(op, ctx, name, value);
  if (failed(list))
    return failure();
  return **list;
}

LogicalResult SqueezeOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto axes = requiredRuntimeList(*this, ctx, "axes_value", getAxesValue());
  if (failed(axes))
    return failure();
  return appendShape(*this, shapes::inferSqueeze(ctx.shape(getInput()), *axes),
                     s);
}

int64_t SqueezeOp::getFlops() { return 0; }

LogicalResult SqueezeOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(),
          env.get(getInput()).reshaped(env.resultShape(getOutput())));
  return success();
}

LogicalResult
UnsqueezeOp::inferShapes(const ShapeContext &ctx,
                         SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto axes = requiredRuntimeList(*this, ctx, "axes_value", getAxesValue());
  if (failed(axes))
    return failure();
  return appendShape(*this,
                     shapes::inferUnsqueeze(ctx.shape(getInput()), *axes), s);
}

int64_t UnsqueezeOp::getFlops() { return 0; }

LogicalResult UnsqueezeOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(),
          env.get(getInput()).reshaped(env.resultShape(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

LogicalResult PermuteOp::verify() {
  if (auto err = shapes::checkPermutation(getOrder()))
    return emitOpError() << err->message();
  return success();
}

LogicalResult PermuteOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(
      *this, shapes::inferPermute(ctx.shape(getInput()), getOrder()), s);
}

int64_t PermuteOp::getFlops() { return noFlops(*this); }

LogicalResult PermuteOp::interpret(InterpreterEnv &env) {
  if (setIfEmpty(env, getOutput()))
    return success();
  const Tensor &in = env.get(getInput());
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  SmallVector<SmallVector<int64_t>> offsets;
  for (int64_t d : getOrder())
    offsets.push_back(stridedOffsets(0, 1, in.dim(d), strides[d]));
  env.set(getOutput(), gatherOffsets(in, env.resultShape(getOutput()), offsets));
  return success();
}

/// The identity permutation (with equal types) is the input; a permute of a
/// permute becomes one permute with the composed order.
OpFoldResult PermuteOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> order = getOrder();
  if (isIdentityOrder(order) && getInput().getType() == getOutput().getType())
    return getInput();
  auto inner = getInput().getDefiningOp<PermuteOp>();
  if (!inner || inner.getOrder().size() != order.size())
    return {};
  SmallVector<int64_t> composed;
  for (int64_t d : order)
    composed.push_back(inner.getOrder()[d]);
  setOrder(composed);
  getInputMutable().assign(inner.getInput());
  return getOutput();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

/// At least one input is guaranteed by SameOperandsAndResultElementType.
LogicalResult ConcatOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  Shapes inputs;
  for (Value input : getInputs()) {
    SmallVector<int64_t> shape = ctx.shape(input);
    inputs.emplace_back(shape.begin(), shape.end());
  }
  return appendShape(*this, shapes::inferConcat(inputs, getAxis()), s);
}

int64_t ConcatOp::getFlops() { return noFlops(*this); }

LogicalResult ConcatOp::interpret(InterpreterEnv &env) {
  if (setIfEmpty(env, getOutput()))
    return success();
  std::vector<int64_t> shape = env.resultShape(getOutput());
  int64_t rank = shape.size();
  int64_t axis = getAxis() < 0 ? getAxis() + rank : getAxis();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= shape[d];
  Tensor out(resultDType(getOutput()), shape);
  size_t elem = dtypeSize(out.dtype());
  size_t outRow = shape[axis] * inner * elem, at = 0;
  for (Value input : getInputs()) {
    const Tensor &in = env.get(input);
    size_t row = in.dim(axis) * inner * elem;
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(out.data<uint8_t>() + o * outRow + at,
                  in.data<uint8_t>() + o * row, row);
    at += row;
  }
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// SplitOp
//===----------------------------------------------------------------------===//

/// Checks that every result has the input's element type.
static LogicalResult verifySplitElementTypes(SplitOp op) {
  for (auto [i, result] : llvm::enumerate(op.getOutputs()))
    if (failed(checkSameElementType(op, "operand 'input'", op.getInput(),
                                    "result #" + std::to_string(i), result)))
      return failure();
  return success();
}

LogicalResult SplitOp::verify() {
  if (failed(verifySplitElementTypes(*this)))
    return failure();
  if (auto err = shapes::checkSplitAttrs(getSplit(), getSplitValue() != nullptr,
                                         getNumResults()))
    return emitOpError() << err->message();
  return success();
}

LogicalResult SplitOp::inferShapes(const ShapeContext &ctx,
                                   SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verifySplitElementTypes(*this)))
    return failure();
  auto split = runtimeList(*this, ctx, "split_value", getSplitValue());
  if (failed(split))
    return failure();
  return appendShapes(*this,
                      shapes::inferSplit(ctx.shape(getInput()), getAxis(),
                                         getSplit(), getNumResults(), *split),
                      s);
}

int64_t SplitOp::getFlops() { return noFlops(*this); }

LogicalResult SplitOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  int64_t axis = getAxis() < 0 ? getAxis() + in.rank() : getAxis();
  SmallVector<SmallVector<int64_t>> offsets = identityOffsets(in.shape());
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  int64_t begin = 0;
  for (Value result : getOutputs()) {
    const std::vector<int64_t> &shape = env.resultShape(result);
    int64_t size = shape[axis];
    offsets[axis] = stridedOffsets(begin, 1, size, strides[axis]);
    begin += size;
    if (isEmptyShape(shape))
      env.set(result, Tensor(in.dtype(), shape));
    else
      env.set(result, gatherOffsets(in, shape, offsets));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferShapes(const ShapeContext &ctx,
                                 SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto pads = runtimeList(*this, ctx, "pads_value", getPadsValue());
  if (failed(pads))
    return failure();
  return appendShape(*this,
                     shapes::inferPad(ctx.shape(getInput()),
                                      stringifyPadMode(getMode()).str(),
                                      getPads(), *pads),
                     s);
}

int64_t PadOp::getFlops() { return noFlops(*this); }

/// Input index read by output index `o` of a dim of `size` padded by
/// `begin` in front, or -1 for the constant value.
static int64_t padSource(PadMode mode, int64_t o, int64_t begin,
                         int64_t size) {
  int64_t i;
  if (llvm::SubOverflow(o, begin, i)) // a huge crop: far past the end
    i = size;
  if (i >= 0 && i < size)
    return i;
  if (mode == PadMode::Edge)
    return i < 0 ? 0 : size - 1;
  if (mode == PadMode::Reflect)
    return i < 0 ? -i : 2 * (size - 1) - i;
  if (mode == PadMode::Wrap)
    return (i % size + size) % size;
  return -1;
}

LogicalResult PadOp::interpret(InterpreterEnv &env) {
  if (setIfEmpty(env, getOutput()))
    return success();
  const Tensor &in = env.get(getInput());
  Value pads = getPadsValue();
  SmallVector<int64_t> padList =
      pads ? runtimeInts(env.get(pads)) : SmallVector<int64_t>(getPads());
  const std::vector<int64_t> &outShape = env.resultShape(getOutput());
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  SmallVector<SmallVector<int64_t>> offsets(in.rank());
  for (int64_t d = 0; d < in.rank(); ++d)
    for (int64_t o = 0; o < outShape[d]; ++o) {
      int64_t i = padSource(getMode(), o, padList[d], in.dim(d));
      offsets[d].push_back(i < 0 ? kFillOffset : i * strides[d]);
    }
  Tensor fill(in.dtype(), {});
  fill.setFromDouble(0, getValue().convertToDouble());
  env.set(getOutput(), gatherOffsets(in, outShape, offsets, &fill));
  return success();
}

//===----------------------------------------------------------------------===//
// TileOp
//===----------------------------------------------------------------------===//

LogicalResult TileOp::verify() {
  if (getRepeatsValue() && !getRepeats().empty())
    return emitOpError() << "takes the repeats from attribute 'repeats' "
                         << formatArray(getRepeats())
                         << " or from operand 'repeats_value', not both";
  return checkArrayAttr(*this, "repeats", getRepeats(), getRepeats().size(), 0);
}

LogicalResult TileOp::inferShapes(const ShapeContext &ctx,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto repeats = runtimeList(*this, ctx, "repeats_value", getRepeatsValue());
  if (failed(repeats))
    return failure();
  return appendShape(
      *this, shapes::inferTile(ctx.shape(getInput()), getRepeats(), *repeats),
      s);
}

int64_t TileOp::getFlops() { return noFlops(*this); }

LogicalResult TileOp::interpret(InterpreterEnv &env) {
  if (setIfEmpty(env, getOutput()))
    return success();
  const Tensor &in = env.get(getInput());
  const std::vector<int64_t> &outShape = env.resultShape(getOutput());
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  SmallVector<SmallVector<int64_t>> offsets(in.rank());
  for (int64_t d = 0; d < in.rank(); ++d)
    for (int64_t o = 0; o < outShape[d]; ++o)
      offsets[d].push_back(o % in.dim(d) * strides[d]);
  env.set(getOutput(), gatherOffsets(in, outShape, offsets));
  return success();
}

//===----------------------------------------------------------------------===//
// ExpandOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandOp::verify() {
  if (auto err =
          shapes::checkExpandAttrs(getShape(), getShapeValue() != nullptr))
    return emitOpError() << err->message();
  return success();
}

LogicalResult ExpandOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto shape = runtimeList(*this, ctx, "shape_value", getShapeValue());
  if (failed(shape))
    return failure();
  return appendShape(
      *this, shapes::inferExpand(ctx.shape(getInput()), getShape(), *shape), s);
}

int64_t ExpandOp::getFlops() { return noFlops(*this); }

LogicalResult ExpandOp::interpret(InterpreterEnv &env) {
  if (setIfEmpty(env, getOutput()))
    return success();
  const Tensor &in = env.get(getInput());
  const std::vector<int64_t> &outShape = env.resultShape(getOutput());
  SmallVector<int64_t> strides = broadcastStrides(in.shape(), outShape);
  SmallVector<SmallVector<int64_t>> offsets;
  for (auto [d, stride] : llvm::zip(outShape, strides))
    offsets.push_back(stridedOffsets(0, 1, d, stride));
  env.set(getOutput(), gatherOffsets(in, outShape, offsets));
  return success();
}

/// An expand to the input's own static type copies nothing: the input.
OpFoldResult ExpandOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType() &&
      hasStaticShape(getInput()))
    return getInput();
  return {};
}
