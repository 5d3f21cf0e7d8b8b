//===- IndexOps.cpp - slice and gather ------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/IndexShapes.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

/// The window attributes of `op` for the shape functions.
static shapes::SliceAttrs sliceAttrs(SliceOp op) {
  shapes::SliceAttrs attrs{op.getStarts(), op.getEnds(), std::nullopt,
                           std::nullopt};
  if (auto axes = op.getAxes())
    attrs.axes = *axes;
  if (auto steps = op.getSteps())
    attrs.steps = *steps;
  return attrs;
}

LogicalResult SliceOp::verify() {
  if (auto err = shapes::checkSliceAttrs(sliceAttrs(*this),
                                         getBoundsValue() != nullptr))
    return emitOpError() << err->message();
  return success();
}

LogicalResult SliceOp::inferShapes(const ShapeContext &ctx,
                                   SmallVectorImpl<SmallVector<int64_t>> &s) {
  std::optional<shapes::RuntimeValue> boundsValue;
  if (Value bounds = getBoundsValue()) {
    auto t = dyn_cast<RankedTensorType>(bounds.getType());
    if (!t || t.getRank() != 2 || t.getDimSize(0) != 4 || t.isDynamicDim(1))
      return emitOpError() << "operand 'bounds_value' must have shape [4, n] "
                              "(starts, ends, axes, steps), got "
                           << bounds.getType();
    SmallVector<int64_t> shape = ctx.shape(bounds);
    boundsValue = shapes::RuntimeValue{Shape(shape.begin(), shape.end()),
                                       ctx.tensor(bounds)};
  }
  return appendShape(
      *this,
      shapes::inferSlice(ctx.shape(getInput()), sliceAttrs(*this), boundsValue),
      s);
}

int64_t SliceOp::getFlops() { return 0; }

LogicalResult SliceOp::interpret(InterpreterEnv &env) {
  if (isEmptyShape(env.resultShape(getOutput()))) {
    env.set(getOutput(),
            Tensor(env.get(getInput()).dtype(), env.resultShape(getOutput())));
    return success();
  }
  const Tensor &in = env.get(getInput());
  Value bounds = getBoundsValue();
  ShapeOr<shapes::SliceWindow> window = shapes::sliceWindow(
      in.shape(), sliceAttrs(*this), bounds ? &env.get(bounds) : nullptr);
  if (!window)
    return emitOpError() << window.error();
  const std::vector<int64_t> &outShape = env.resultShape(getOutput());
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  SmallVector<SmallVector<int64_t>> offsets;
  for (int64_t d = 0; d < in.rank(); ++d)
    offsets.push_back(stridedOffsets(window->starts[d], window->steps[d],
                                     outShape[d], strides[d]));
  env.set(getOutput(), gatherOffsets(in, outShape, offsets));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this,
                     shapes::inferGather(ctx.shape(getInput()),
                                         ctx.shape(getIndices()), getAxis()),
                     s);
}

int64_t GatherOp::getFlops() { return 0; }

LogicalResult GatherOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  const Tensor &indices = env.get(getIndices());
  int64_t axis = getAxis() < 0 ? getAxis() + in.rank() : getAxis();
  int64_t dim = in.dim(axis), n = indices.numElements();
  // Checked first, so that bad indices fail even when the result is empty.
  SmallVector<int64_t> picked(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t index = indices.getAsInt(i);
    if (index < -dim || index >= dim)
      return emitOpError() << "index " << index << " at flat position " << i
                           << " of 'indices' is out of range for dim " << axis
                           << " of size " << dim;
    picked[i] = index < 0 ? index + dim : index;
  }
  std::vector<int64_t> outShape = env.resultShape(getOutput());
  if (isEmptyShape(outShape)) {
    env.set(getOutput(), Tensor(in.dtype(), outShape));
    return success();
  }
  // Gather on the view [in[:axis], n, in[axis+1:]], then reshape.
  std::vector<int64_t> view = in.shape();
  view[axis] = n;
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  SmallVector<SmallVector<int64_t>> offsets;
  for (int64_t d = 0; d < in.rank(); ++d)
    offsets.push_back(stridedOffsets(0, 1, view[d], strides[d]));
  for (int64_t i = 0; i < n; ++i)
    offsets[axis][i] = picked[i] * strides[axis];
  env.set(getOutput(), gatherOffsets(in, view, offsets).reshaped(outShape));
  return success();
}
