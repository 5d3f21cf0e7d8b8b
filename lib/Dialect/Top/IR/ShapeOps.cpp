//===- ShapeOps.cpp - reshape, permute, concat, ... -----------------------===//
//
// Data-movement ops. Reference semantics copy bytes, so they work for every
// element type; most build offset tables for `gatherOffsets`.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"

#include "llvm/Support/MathExtras.h"

#include <numeric>

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

/// The result shape of a data-movement op: `result`'s static type, or
/// `computed` from its runtime operand (checked against the runtime size
/// limit); nullopt after an error. Sets an empty `result` of `dtype` and
/// returns an empty shape when there is nothing to move.
std::optional<std::vector<int64_t>>
moveResultShape(InterpreterEnv &env, Operation *op, Value result, DType dtype,
                FailureOr<SmallVector<int64_t>> computed, bool runtime) {
  std::vector<int64_t> shape;
  if (runtime) {
    if (failed(computed))
      return std::nullopt;
    shape.assign(computed->begin(), computed->end());
    if (failed(checkRuntimeResultSize(op, shape)))
      return std::nullopt;
  } else {
    shape = env.resultShape(result);
  }
  if (isEmptyShape(shape))
    env.set(result, Tensor(dtype, shape));
  return shape;
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

/// The result shape of reshaping `in` to `shape` (0 copies the input dim,
/// one -1 is inferred); errors name `what` (the attribute or the runtime
/// operand) and the shape.
static FailureOr<SmallVector<int64_t>>
reshapeTo(Operation *op, StringRef what, ArrayRef<int64_t> in,
          ArrayRef<int64_t> shape) {
  auto inCount = checkedElementCount(op, in);
  if (failed(inCount))
    return failure();
  SmallVector<int64_t> out(shape);
  int64_t inferAt = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(out)) {
    if (d == -1) {
      if (inferAt >= 0)
        return op->emitOpError() << what << " " << formatArray(shape)
                                 << " has more than one -1";
      inferAt = i;
      continue;
    }
    if (d == 0) {
      if (i >= in.size())
        return op->emitOpError() << what << " " << formatArray(shape)
                                 << " copies dim " << i << " (0) but the "
                                 << "input has rank " << in.size();
      d = in[i];
    }
    if (d < 0)
      return op->emitOpError() << what << " " << formatArray(shape)
                               << " has invalid dim " << d << " at index "
                               << i;
    if (d != 0 && known > INT64_MAX / d)
      return op->emitOpError() << what << " " << formatArray(shape)
                               << " overflows int64";
    known *= d;
  }
  if (inferAt >= 0) {
    if (known == 0 || *inCount % known != 0)
      return op->emitOpError() << "cannot reshape " << formatArray(in)
                               << " to " << formatArray(shape)
                               << ": element count does not divide";
    out[inferAt] = *inCount / known;
  } else if (known != *inCount) {
    return op->emitOpError() << "cannot reshape " << formatArray(in) << " ("
                             << *inCount << " elements) to "
                             << formatArray(shape) << " (" << known
                             << " elements)";
  }
  return out;
}

LogicalResult ReshapeOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (Value shapeValue = getShapeValue()) {
    if (!getShape().empty())
      return emitOpError() << "takes the shape from attribute 'shape' "
                           << formatArray(getShape())
                           << " or from operand 'shape_value', not both";
    auto rank = runtimeListLength(*this, "shape_value", shapeValue);
    if (failed(rank))
      return failure();
    s.push_back(SmallVector<int64_t>(*rank, ShapedType::kDynamic));
    return success();
  }
  auto out = reshapeTo(*this, "attribute 'shape'", ctx.shape(getInput()),
                       getShape());
  if (failed(out))
    return failure();
  s.push_back(*out);
  return success();
}

int64_t ReshapeOp::getFlops() { return 0; }

LogicalResult ReshapeOp::interpret(InterpreterEnv &env) {
  const Tensor &input = env.get(getInput());
  if (!getShapeValue()) {
    env.set(getOutput(), input.reshaped(env.resultShape(getOutput())));
    return success();
  }
  auto out = reshapeTo(*this, "operand 'shape_value'", input.shape(),
                       runtimeInts(env.get(getShapeValue())));
  if (failed(out))
    return failure();
  env.set(getOutput(), input.reshaped(std::vector<int64_t>(out->begin(),
                                                           out->end())));
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

LogicalResult SqueezeOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  int64_t rank = ctx.shape(getInput()).size();
  auto n = runtimeListLength(*this, "axes_value", getAxesValue());
  if (failed(n))
    return failure();
  if (*n > rank)
    return emitOpError() << "operand 'axes_value' holds " << *n
                         << " axes but the input has rank " << rank;
  s.push_back(SmallVector<int64_t>(rank - *n, ShapedType::kDynamic));
  return success();
}

int64_t SqueezeOp::getFlops() { return 0; }

LogicalResult SqueezeOp::interpret(InterpreterEnv &env) {
  const Tensor &input = env.get(getInput());
  auto axes = normalizeRuntimeAxes(*this, "axes_value",
                                   runtimeInts(env.get(getAxesValue())),
                                   input.rank());
  if (failed(axes))
    return failure();
  std::vector<int64_t> out;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (!llvm::is_contained(*axes, d)) {
      out.push_back(input.dim(d));
      continue;
    }
    if (input.dim(d) != 1)
      return emitOpError() << "cannot squeeze dim " << d << " of shape "
                           << formatArray(input.shape())
                           << ": its size is not 1";
  }
  env.set(getOutput(), input.reshaped(out));
  return success();
}

LogicalResult
UnsqueezeOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  int64_t rank = ctx.shape(getInput()).size();
  auto n = runtimeListLength(*this, "axes_value", getAxesValue());
  if (failed(n))
    return failure();
  s.push_back(SmallVector<int64_t>(rank + *n, ShapedType::kDynamic));
  return success();
}

int64_t UnsqueezeOp::getFlops() { return 0; }

LogicalResult UnsqueezeOp::interpret(InterpreterEnv &env) {
  const Tensor &input = env.get(getInput());
  const Tensor &axesValue = env.get(getAxesValue());
  int64_t outRank = input.rank() + axesValue.numElements();
  auto axes = normalizeRuntimeAxes(*this, "axes_value",
                                   runtimeInts(axesValue), outRank);
  if (failed(axes))
    return failure();
  std::vector<int64_t> out;
  int64_t next = 0;
  for (int64_t d = 0; d < outRank; ++d)
    out.push_back(llvm::is_contained(*axes, d) ? 1 : input.dim(next++));
  env.set(getOutput(), input.reshaped(out));
  return success();
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

/// Checks that `order` is a permutation of 0 .. size-1.
static LogicalResult verifyPermutation(Operation *op, ArrayRef<int64_t> order) {
  SmallVector<bool> seen(order.size(), false);
  for (int64_t v : order) {
    if (v < 0 || v >= static_cast<int64_t>(order.size()) || seen[v])
      return op->emitOpError()
             << "attribute 'order' " << formatArray(order)
             << " is not a permutation of 0.." << order.size() - 1;
    seen[v] = true;
  }
  return success();
}

LogicalResult PermuteOp::verify() { return verifyPermutation(*this, getOrder()); }

LogicalResult PermuteOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = ctx.shape(getInput());
  ArrayRef<int64_t> order = getOrder();
  if (failed(checkArrayAttr(*this, "order", order, in.size(), 0)) ||
      failed(verifyPermutation(*this, order)))
    return failure();
  SmallVector<int64_t> out;
  for (int64_t d : order)
    out.push_back(in[d]);
  s.push_back(out);
  return success();
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
LogicalResult ConcatOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> out = ctx.shape(getInputs()[0]);
  auto axis = normalizeAxis(*this, "axis", getAxis(), out.size());
  if (failed(axis))
    return failure();
  for (auto [i, input] : llvm::enumerate(getInputs().drop_front())) {
    SmallVector<int64_t> shape = ctx.shape(input);
    bool same = shape.size() == out.size();
    for (size_t d = 0; same && d < shape.size(); ++d)
      same = static_cast<int64_t>(d) == *axis || shape[d] == out[d];
    if (!same)
      return emitOpError() << "input #" << i + 1 << " has shape "
                           << formatArray(shape) << " but input #0 has shape "
                           << formatArray(ctx.shape(getInputs()[0]))
                           << "; only dim " << *axis
                           << " (attribute 'axis') may differ";
    if (llvm::AddOverflow(out[*axis], shape[*axis], out[*axis]))
      return emitOpError() << "concatenated dim " << *axis
                           << " overflows int64";
  }
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(out);
  return success();
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

LogicalResult SplitOp::verify() {
  for (auto [i, result] : llvm::enumerate(getOutputs()))
    if (failed(checkSameElementType(*this, "operand 'input'", getInput(),
                                    "result #" + std::to_string(i), result)))
      return failure();
  ArrayRef<int64_t> split = getSplit();
  if (getSplitValue()) {
    if (!split.empty())
      return emitOpError() << "takes the sizes from attribute 'split' "
                           << formatArray(split)
                           << " or from operand 'split_value', not both";
    return success();
  }
  if (split.size() != getNumResults())
    return emitOpError() << "attribute 'split' " << formatArray(split)
                         << " has " << split.size() << " sizes but the op has "
                         << getNumResults() << " results";
  return checkArrayAttr(*this, "split", split, split.size(), 0);
}

/// Checks that `sizes` (named `what`) are >= 0 and sum to `dim`, the size
/// of dim `axis`.
static LogicalResult checkSplitSizes(Operation *op, StringRef what,
                                     ArrayRef<int64_t> sizes, int64_t dim,
                                     int64_t axis) {
  int64_t sum = 0;
  bool bad = false;
  for (int64_t size : sizes)
    bad |= size < 0 || llvm::AddOverflow(sum, size, sum);
  if (bad || sum != dim)
    return op->emitOpError() << what << " " << formatArray(sizes)
                             << " must sum to the size " << dim << " of dim "
                             << axis;
  return success();
}

LogicalResult SplitOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  SmallVector<int64_t> in = ctx.shape(getInput());
  auto axis = normalizeAxis(*this, "axis", getAxis(), in.size());
  if (failed(axis))
    return failure();
  if (Value split = getSplitValue()) {
    auto n = runtimeListLength(*this, "split_value", split);
    if (failed(n))
      return failure();
    if (*n != static_cast<int64_t>(getNumResults()))
      return emitOpError() << "operand 'split_value' has " << *n
                           << " sizes but the op has " << getNumResults()
                           << " results";
    in[*axis] = ShapedType::kDynamic;
    s.append(getNumResults(), in);
    return success();
  }
  for (int64_t size : getSplit()) {
    SmallVector<int64_t> out = in;
    out[*axis] = size;
    s.push_back(out);
  }
  return checkSplitSizes(*this, "attribute 'split'", getSplit(), in[*axis],
                         *axis);
}

int64_t SplitOp::getFlops() { return noFlops(*this); }

LogicalResult SplitOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  int64_t axis = getAxis() < 0 ? getAxis() + in.rank() : getAxis();
  SmallVector<int64_t> sizes(getSplit());
  if (Value split = getSplitValue()) {
    sizes = runtimeInts(env.get(split));
    if (sizes.size() != getNumResults())
      return emitOpError() << "operand 'split_value' has " << sizes.size()
                           << " sizes but the op has " << getNumResults()
                           << " results";
    if (failed(checkSplitSizes(*this, "operand 'split_value'", sizes,
                               in.dim(axis), axis)))
      return failure();
  }
  SmallVector<SmallVector<int64_t>> offsets = identityOffsets(in.shape());
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  int64_t begin = 0;
  for (auto [result, size] : llvm::zip(getOutputs(), sizes)) {
    std::vector<int64_t> shape = in.shape();
    shape[axis] = size;
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

LogicalResult PadOp::verify() {
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return emitOpError() << "attribute 'mode' = \"" << mode
                         << "\" must be \"constant\", \"reflect\", \"edge\" "
                            "or \"wrap\"";
  return success();
}

/// The result shape of padding `in` by `pads` in `mode`; errors name
/// `what` (the attribute or the runtime operand).
static FailureOr<SmallVector<int64_t>> padShape(Operation *op, StringRef what,
                                                StringRef mode,
                                                ArrayRef<int64_t> in,
                                                ArrayRef<int64_t> pads) {
  SmallVector<int64_t> out(in);
  int64_t rank = out.size();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return op->emitOpError() << what << " must have " << 2 * rank
                             << " values, got " << pads.size() << " "
                             << formatArray(pads);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = out[d], b = pads[d], e = pads[d + rank];
    auto tooBig = [&](int64_t pad) { return pad > 0 && pad >= dim; };
    if (mode == "reflect" && (tooBig(b) || tooBig(e)))
      return op->emitOpError() << what << " " << formatArray(pads)
                               << " must be smaller than dim " << d
                               << " (size " << dim << ") in mode \"reflect\"";
    if ((mode == "edge" || mode == "wrap") && dim == 0 && (b > 0 || e > 0))
      return op->emitOpError() << what << " " << formatArray(pads)
                               << " pads the empty dim " << d << " in mode \""
                               << mode << "\"";
    if (llvm::AddOverflow(dim, b, out[d]) ||
        llvm::AddOverflow(out[d], e, out[d]) || out[d] < 0)
      return op->emitOpError() << what << " " << formatArray(pads)
                               << " gives dim " << d << " (size " << dim
                               << ") a negative or overflowing size";
  }
  if (failed(checkedElementCount(op, out)))
    return failure();
  return out;
}

LogicalResult PadOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  SmallVector<int64_t> in = ctx.shape(getInput());
  if (Value pads = getPadsValue()) {
    if (!getPads().empty())
      return emitOpError() << "takes the pads from attribute 'pads' "
                           << formatArray(getPads())
                           << " or from operand 'pads_value', not both";
    auto n = runtimeListLength(*this, "pads_value", pads);
    if (failed(n))
      return failure();
    if (*n != 2 * static_cast<int64_t>(in.size()))
      return emitOpError() << "operand 'pads_value' has " << *n
                           << " entries but the input has rank " << in.size()
                           << " (needs " << 2 * in.size() << ")";
    s.push_back(SmallVector<int64_t>(in.size(), ShapedType::kDynamic));
    return success();
  }
  auto out = padShape(*this, "attribute 'pads'", getMode(), in, getPads());
  if (failed(out))
    return failure();
  s.push_back(*out);
  return success();
}

int64_t PadOp::getFlops() { return noFlops(*this); }

/// Input index read by output index `o` of a dim of `size` padded by
/// `begin` in front, or -1 for the constant value.
static int64_t padSource(StringRef mode, int64_t o, int64_t begin,
                         int64_t size) {
  int64_t i;
  if (llvm::SubOverflow(o, begin, i)) // a huge crop: far past the end
    i = size;
  if (i >= 0 && i < size)
    return i;
  if (mode == "edge")
    return i < 0 ? 0 : size - 1;
  if (mode == "reflect")
    return i < 0 ? -i : 2 * (size - 1) - i;
  if (mode == "wrap")
    return (i % size + size) % size;
  return -1;
}

LogicalResult PadOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  Value pads = getPadsValue();
  SmallVector<int64_t> padList =
      pads ? runtimeInts(env.get(pads)) : SmallVector<int64_t>(getPads());
  auto shape = moveResultShape(
      env, *this, getOutput(), in.dtype(),
      pads ? padShape(*this, "operand 'pads_value'", getMode(), in.shape(),
                      padList)
           : FailureOr<SmallVector<int64_t>>(failure()),
      pads != nullptr);
  if (!shape)
    return failure();
  std::vector<int64_t> &outShape = *shape;
  if (isEmptyShape(outShape))
    return success();
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

/// The result shape of tiling `in` by `repeats`; errors name `what`.
static FailureOr<SmallVector<int64_t>> tileShape(Operation *op, StringRef what,
                                                 ArrayRef<int64_t> in,
                                                 ArrayRef<int64_t> repeats) {
  if (repeats.size() != in.size())
    return op->emitOpError() << what << " must have " << in.size()
                             << " values, got " << repeats.size() << " "
                             << formatArray(repeats);
  SmallVector<int64_t> out(in);
  for (auto [d, r] : llvm::zip(out, repeats)) {
    if (r < 0)
      return op->emitOpError() << what << " " << formatArray(repeats)
                               << " has a negative entry " << r;
    if (llvm::MulOverflow(d, r, d))
      return op->emitOpError() << what << " " << formatArray(repeats)
                               << " overflows a dim of " << formatArray(in);
  }
  if (failed(checkedElementCount(op, out)))
    return failure();
  return out;
}

LogicalResult TileOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = ctx.shape(getInput());
  if (Value repeats = getRepeatsValue()) {
    auto n = runtimeListLength(*this, "repeats_value", repeats);
    if (failed(n))
      return failure();
    if (*n != static_cast<int64_t>(in.size()))
      return emitOpError() << "operand 'repeats_value' has " << *n
                           << " entries but the input has rank " << in.size();
    for (int64_t &d : in)
      if (d != 0)
        d = ShapedType::kDynamic;
    s.push_back(in);
    return success();
  }
  auto out = tileShape(*this, "attribute 'repeats'", in, getRepeats());
  if (failed(out))
    return failure();
  s.push_back(*out);
  return success();
}

int64_t TileOp::getFlops() { return noFlops(*this); }

LogicalResult TileOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  Value repeats = getRepeatsValue();
  auto shape = moveResultShape(
      env, *this, getOutput(), in.dtype(),
      repeats ? tileShape(*this, "operand 'repeats_value'", in.shape(),
                          runtimeInts(env.get(repeats)))
              : FailureOr<SmallVector<int64_t>>(failure()),
      repeats != nullptr);
  if (!shape)
    return failure();
  std::vector<int64_t> &outShape = *shape;
  if (isEmptyShape(outShape))
    return success();
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
  if (getShapeValue() && !getShape().empty())
    return emitOpError() << "takes the shape from attribute 'shape' "
                         << formatArray(getShape())
                         << " or from operand 'shape_value', not both";
  return checkArrayAttr(*this, "shape", getShape(), getShape().size(), 0);
}

/// The broadcast of `in` and `shape` (entries of `shape` may be `?`: then
/// the dim is the input's unless that is 1 or `?`); errors name `what`.
static FailureOr<SmallVector<int64_t>>
expandShape(Operation *op, StringRef what, ArrayRef<int64_t> in,
            ArrayRef<int64_t> shape) {
  size_t rank = std::max(in.size(), shape.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - in.size() ? 1 : in[i - (rank - in.size())];
    int64_t b = i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
    if (ShapedType::isDynamic(b)) {
      out[i] = a == 1 ? ShapedType::kDynamic : a;
      continue;
    }
    if (ShapedType::isDynamic(a)) {
      out[i] = b == 1 ? ShapedType::kDynamic : b;
      continue;
    }
    if (b < 0)
      return op->emitOpError() << what << " " << formatArray(shape)
                               << " has a negative entry " << b;
    if (a != b && a != 1 && b != 1)
      return op->emitOpError() << what << " " << formatArray(shape)
                               << " does not broadcast with the input shape "
                               << formatArray(in);
    out[i] = a == 1 ? b : a;
  }
  if (llvm::none_of(out, ShapedType::isDynamic) &&
      failed(checkedElementCount(op, out)))
    return failure();
  return out;
}

LogicalResult ExpandOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  SmallVector<int64_t> in = ctx.shape(getInput());
  if (Value shape = getShapeValue()) {
    auto n = runtimeListLength(*this, "shape_value", shape);
    if (failed(n))
      return failure();
    auto out = expandShape(*this, "operand 'shape_value'", in,
                           SmallVector<int64_t>(*n, ShapedType::kDynamic));
    if (failed(out))
      return failure();
    s.push_back(*out);
    return success();
  }
  auto out = expandShape(*this, "attribute 'shape'", in, getShape());
  if (failed(out))
    return failure();
  s.push_back(*out);
  return success();
}

int64_t ExpandOp::getFlops() { return noFlops(*this); }

LogicalResult ExpandOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  Value shapeValue = getShapeValue();
  auto shape = moveResultShape(
      env, *this, getOutput(), in.dtype(),
      shapeValue ? expandShape(*this, "operand 'shape_value'", in.shape(),
                               runtimeInts(env.get(shapeValue)))
                 : FailureOr<SmallVector<int64_t>>(failure()),
      shapeValue != nullptr);
  if (!shape)
    return failure();
  std::vector<int64_t> &outShape = *shape;
  if (isEmptyShape(outShape))
    return success();
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
