//===- IndexOps.cpp - slice and gather ------------------------------------===//

#include "OpImpl.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

namespace {
/// One sliced dim: the first input index read and the number read.
struct SliceRange {
  int64_t start = 0, size = 0;
};

/// ONNX Slice on one dim of `dim` elements (see the op description).
SliceRange sliceRange(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (dim == 0)
    return {};
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    if (end <= start)
      return {start, 0};
    return {start, (end - start - 1) / step + 1};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  if (end >= start)
    return {start, 0};
  // -step may overflow for INT64_MIN: divide as unsigned.
  uint64_t stepAbs = 0 - static_cast<uint64_t>(step);
  return {start, static_cast<int64_t>(
                     static_cast<uint64_t>(start - end - 1) / stepAbs + 1)};
}

/// The axes and steps of a slice, with their defaults filled in.
struct SliceParams {
  SmallVector<int64_t> axes, steps;
};

SliceParams sliceParams(SliceOp op) {
  size_t n = op.getStarts().size();
  SliceParams p;
  if (auto axes = op.getAxes())
    p.axes.assign(axes->begin(), axes->end());
  else
    for (size_t i = 0; i < n; ++i)
      p.axes.push_back(i);
  if (auto steps = op.getSteps())
    p.steps.assign(steps->begin(), steps->end());
  else
    p.steps.assign(n, 1);
  return p;
}
} // namespace

LogicalResult SliceOp::verify() {
  size_t n = getStarts().size();
  if (getBoundsValue() && (n != 0 || !getEnds().empty() || getAxes() ||
                           getSteps()))
    return emitOpError() << "takes the window from operand 'bounds_value' "
                            "or from attributes 'starts', 'ends', 'axes', "
                            "'steps', not both";
  if (failed(checkArrayAttr(*this, "ends", getEnds(), n, INT64_MIN)))
    return failure();
  if (getAxes() &&
      failed(checkArrayAttr(*this, "axes", *getAxes(), n, INT64_MIN)))
    return failure();
  if (!getSteps())
    return success();
  if (failed(checkArrayAttr(*this, "steps", *getSteps(), n, INT64_MIN)))
    return failure();
  for (auto [i, step] : llvm::enumerate(*getSteps()))
    if (step == 0)
      return emitOpError() << "attribute 'steps' value 0 at index " << i
                           << " must be non-zero (got "
                           << formatArray(*getSteps()) << ")";
  return success();
}

LogicalResult SliceOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  SmallVector<int64_t> out = ctx.shape(getInput());
  int64_t rank = out.size();
  if (Value bounds = getBoundsValue()) {
    auto t = dyn_cast<RankedTensorType>(bounds.getType());
    if (!t || t.getRank() != 2 || t.getDimSize(0) != 4 || t.isDynamicDim(1))
      return emitOpError() << "operand 'bounds_value' must have shape [4, n] "
                              "(starts, ends, axes, steps), got "
                           << bounds.getType();
    if (t.getDimSize(1) > rank)
      return emitOpError() << "operand 'bounds_value' slices "
                           << t.getDimSize(1) << " dims but the input has rank "
                           << rank;
    s.push_back(SmallVector<int64_t>(rank, ShapedType::kDynamic));
    return success();
  }
  if (!getAxes() && static_cast<int64_t>(getStarts().size()) > rank)
    return emitOpError() << "attribute 'starts' has " << getStarts().size()
                         << " values but the input has rank " << rank;
  SliceParams p = sliceParams(*this);
  auto axes = normalizeAxes(*this, "axes", p.axes, rank);
  if (failed(axes))
    return failure();
  for (auto [i, axis] : llvm::enumerate(*axes))
    out[axis] =
        sliceRange(out[axis], getStarts()[i], getEnds()[i], p.steps[i]).size;
  s.push_back(out);
  return success();
}

int64_t SliceOp::getFlops() { return 0; }

LogicalResult SliceOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  SmallVector<int64_t> starts(getStarts()), ends(getEnds());
  SliceParams p;
  if (Value bounds = getBoundsValue()) {
    const Tensor &b = env.get(bounds);
    int64_t n = b.rank() == 2 ? b.dim(1) : 0;
    SmallVector<int64_t> v = runtimeInts(b);
    if (b.rank() != 2 || b.dim(0) != 4)
      return emitOpError() << "operand 'bounds_value' must have shape [4, n], "
                              "got "
                           << formatArray(b.shape());
    starts.assign(v.begin(), v.begin() + n);
    ends.assign(v.begin() + n, v.begin() + 2 * n);
    auto axes = normalizeRuntimeAxes(
        *this, "bounds_value (axes)",
        ArrayRef<int64_t>(v).slice(2 * n, n), in.rank());
    if (failed(axes))
      return failure();
    p.axes = *axes;
    p.steps.assign(v.begin() + 3 * n, v.end());
    for (int64_t step : p.steps)
      if (step == 0)
        return emitOpError() << "operand 'bounds_value' has steps "
                             << formatArray(p.steps) << " with a 0";
  } else {
    p = sliceParams(*this);
  }
  std::vector<int64_t> outShape = in.shape();
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  SmallVector<int64_t> first(in.rank(), 0), steps(in.rank(), 1);
  for (auto [i, axis] : llvm::enumerate(p.axes)) {
    int64_t a = axis < 0 ? axis + in.rank() : axis;
    SliceRange r = sliceRange(in.dim(a), starts[i], ends[i], p.steps[i]);
    first[a] = r.start;
    outShape[a] = r.size;
    steps[a] = p.steps[i];
  }
  if (isEmptyShape(outShape)) {
    env.set(getOutput(), Tensor(in.dtype(), outShape));
    return success();
  }
  SmallVector<SmallVector<int64_t>> offsets;
  for (int64_t d = 0; d < in.rank(); ++d)
    offsets.push_back(
        stridedOffsets(first[d], steps[d], outShape[d], strides[d]));
  env.set(getOutput(), gatherOffsets(in, outShape, offsets));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = ctx.shape(getInput());
  auto axis = normalizeAxis(*this, "axis", getAxis(), in.size());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> out(in.begin(), in.begin() + *axis);
  llvm::append_range(out, ctx.shape(getIndices()));
  out.append(in.begin() + *axis + 1, in.end());
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(out);
  return success();
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
