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
  std::vector<int64_t> shape = resultShape(result);
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

LogicalResult ReshapeOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = shapeOf(getInput());
  auto inCount = checkedElementCount(*this, in);
  if (failed(inCount))
    return failure();
  SmallVector<int64_t> out(getShape());
  int64_t inferAt = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(out)) {
    if (d == -1) {
      if (inferAt >= 0)
        return emitOpError() << "attribute 'shape' " << formatArray(getShape())
                             << " has more than one -1";
      inferAt = i;
      continue;
    }
    if (d == 0) {
      if (i >= in.size())
        return emitOpError() << "attribute 'shape' " << formatArray(getShape())
                             << " copies dim " << i << " (0) but the input "
                             << "has rank " << in.size();
      d = in[i];
    }
    if (d < 0)
      return emitOpError() << "attribute 'shape' " << formatArray(getShape())
                           << " has invalid dim " << d << " at index " << i;
    if (d != 0 && known > INT64_MAX / d)
      return emitOpError() << "attribute 'shape' " << formatArray(getShape())
                           << " overflows int64";
    known *= d;
  }
  if (inferAt >= 0) {
    if (known == 0 || *inCount % known != 0)
      return emitOpError() << "cannot reshape " << formatArray(in) << " to "
                           << formatArray(getShape())
                           << ": element count does not divide";
    out[inferAt] = *inCount / known;
  } else if (known != *inCount) {
    return emitOpError() << "cannot reshape " << formatArray(in) << " ("
                         << *inCount << " elements) to "
                         << formatArray(getShape()) << " (" << known
                         << " elements)";
  }
  s.push_back(out);
  return success();
}

int64_t ReshapeOp::getFlops() { return 0; }

LogicalResult ReshapeOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(), env.get(getInput()).reshaped(resultShape(getOutput())));
  return success();
}

/// A reshape to the input's own static type is the input. A reshape of a
/// reshape reads the inner reshape's input; `shape` is replaced by the static
/// result shape, or kept if it has no 0 (which would refer to the inner
/// reshape's dims).
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
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

LogicalResult PermuteOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = shapeOf(getInput());
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
  env.set(getOutput(), gatherOffsets(in, resultShape(getOutput()), offsets));
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
LogicalResult ConcatOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> out = shapeOf(getInputs()[0]);
  auto axis = normalizeAxis(*this, "axis", getAxis(), out.size());
  if (failed(axis))
    return failure();
  for (auto [i, input] : llvm::enumerate(getInputs().drop_front())) {
    SmallVector<int64_t> shape = shapeOf(input);
    bool same = shape.size() == out.size();
    for (size_t d = 0; same && d < shape.size(); ++d)
      same = static_cast<int64_t>(d) == *axis || shape[d] == out[d];
    if (!same)
      return emitOpError() << "input #" << i + 1 << " has shape "
                           << formatArray(shape) << " but input #0 has shape "
                           << formatArray(shapeOf(getInputs()[0]))
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
  std::vector<int64_t> shape = resultShape(getOutput());
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
  ArrayRef<int64_t> split = getSplit();
  if (split.size() != getNumResults())
    return emitOpError() << "attribute 'split' " << formatArray(split)
                         << " has " << split.size() << " sizes but the op has "
                         << getNumResults() << " results";
  return checkArrayAttr(*this, "split", split, split.size(), 0);
}

LogicalResult SplitOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  SmallVector<int64_t> in = shapeOf(getInput());
  auto axis = normalizeAxis(*this, "axis", getAxis(), in.size());
  if (failed(axis))
    return failure();
  int64_t sum = 0;
  bool overflow = false;
  for (int64_t size : getSplit()) {
    overflow |= llvm::AddOverflow(sum, size, sum);
    SmallVector<int64_t> out = in;
    out[*axis] = size;
    s.push_back(out);
  }
  if (overflow || sum != in[*axis])
    return emitOpError() << "attribute 'split' " << formatArray(getSplit())
                         << " must sum to the size " << in[*axis]
                         << " of dim " << *axis;
  return success();
}

int64_t SplitOp::getFlops() { return noFlops(*this); }

LogicalResult SplitOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  if (in.numElements() == 0) {
    for (Value result : getOutputs())
      setIfEmpty(env, result);
    return success();
  }
  int64_t axis = getAxis() < 0 ? getAxis() + in.rank() : getAxis();
  SmallVector<SmallVector<int64_t>> offsets = identityOffsets(in.shape());
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  int64_t begin = 0;
  for (auto [result, size] : llvm::zip(getOutputs(), getSplit())) {
    offsets[axis] = stridedOffsets(begin, 1, size, strides[axis]);
    begin += size;
    if (!setIfEmpty(env, result))
      env.set(result, gatherOffsets(in, resultShape(result), offsets));
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

LogicalResult PadOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  SmallVector<int64_t> out = shapeOf(getInput());
  int64_t rank = out.size();
  ArrayRef<int64_t> pads = getPads();
  if (failed(checkArrayAttr(*this, "pads", pads, 2 * rank, INT64_MIN)))
    return failure();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = out[d], b = pads[d], e = pads[d + rank];
    auto tooBig = [&](int64_t pad) { return pad > 0 && pad >= dim; };
    if (getMode() == "reflect" && (tooBig(b) || tooBig(e)))
      return emitOpError() << "attribute 'pads' " << formatArray(pads)
                           << " must be smaller than dim " << d << " (size "
                           << dim << ") in mode \"reflect\"";
    if ((getMode() == "edge" || getMode() == "wrap") && dim == 0 &&
        (b > 0 || e > 0))
      return emitOpError() << "attribute 'pads' " << formatArray(pads)
                           << " pads the empty dim " << d << " in mode \""
                           << getMode() << "\"";
    if (llvm::AddOverflow(dim, b, out[d]) ||
        llvm::AddOverflow(out[d], e, out[d]) || out[d] < 0)
      return emitOpError() << "attribute 'pads' " << formatArray(pads)
                           << " gives dim " << d << " (size " << dim
                           << ") a negative or overflowing size";
  }
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(out);
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
  if (setIfEmpty(env, getOutput()))
    return success();
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> outShape = resultShape(getOutput());
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  SmallVector<SmallVector<int64_t>> offsets(in.rank());
  for (int64_t d = 0; d < in.rank(); ++d)
    for (int64_t o = 0; o < outShape[d]; ++o) {
      int64_t i = padSource(getMode(), o, getPads()[d], in.dim(d));
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
  return checkArrayAttr(*this, "repeats", getRepeats(), getRepeats().size(), 0);
}

LogicalResult TileOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> out = shapeOf(getInput());
  ArrayRef<int64_t> repeats = getRepeats();
  if (failed(checkArrayAttr(*this, "repeats", repeats, out.size(), 0)))
    return failure();
  for (auto [d, r] : llvm::zip(out, repeats))
    if (llvm::MulOverflow(d, r, d))
      return emitOpError() << "attribute 'repeats' " << formatArray(repeats)
                           << " overflows a dim of "
                           << formatArray(shapeOf(getInput()));
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(out);
  return success();
}

int64_t TileOp::getFlops() { return noFlops(*this); }

LogicalResult TileOp::interpret(InterpreterEnv &env) {
  if (setIfEmpty(env, getOutput()))
    return success();
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> outShape = resultShape(getOutput());
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
  return checkArrayAttr(*this, "shape", getShape(), getShape().size(), 0);
}

LogicalResult ExpandOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  SmallVector<int64_t> in = shapeOf(getInput());
  ArrayRef<int64_t> shape = getShape();
  size_t rank = std::max(in.size(), shape.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - in.size() ? 1 : in[i - (rank - in.size())];
    int64_t b = i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
    if (a != b && a != 1 && b != 1)
      return emitOpError() << "attribute 'shape' " << formatArray(shape)
                           << " does not broadcast with the input shape "
                           << formatArray(in);
    out[i] = a == 1 ? b : a;
  }
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(out);
  return success();
}

int64_t ExpandOp::getFlops() { return noFlops(*this); }

LogicalResult ExpandOp::interpret(InterpreterEnv &env) {
  if (setIfEmpty(env, getOutput()))
    return success();
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> outShape = resultShape(getOutput());
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
