//===- DataDependentOps.cpp - NonZero, Unique, NonMaxSuppression, Range ===//
//
// Ops of TopSelectOps.td whose result shapes depend on input values: the
// shape rule counts NonZero's results from its input; Unique's and
// NonMaxSuppression's sizes stay `?` until `interpret` computes them;
// Range's count is computed from its three scalars when they are known.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/DataDependentShapes.h"
#include "strata/Support/NmsBoxes.h"
#include "strata/Support/UniqueSlices.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

//===----------------------------------------------------------------------===//
// NonZeroOp
//===----------------------------------------------------------------------===//

LogicalResult NonZeroOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(
      *this,
      shapes::inferNonZero(ctx.shape(getInput()), ctx.tensor(getInput())), s);
}

int64_t NonZeroOp::getFlops() { return elementwiseFlops(getInput(), 1); }

LogicalResult NonZeroOp::interpret(InterpreterEnv &env) {
  const Tensor &x = env.get(getInput());
  Tensor out(DType::I64, env.resultShape(getOutput()));
  int64_t rank = x.rank(), n = out.dim(1);
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x.numElements(); ++i)
    if (shapes::isNonZeroElement(x, i))
      hits.push_back(i);
  assert(static_cast<int64_t>(hits.size()) == n && "shape rule counted");
  std::vector<int64_t> strides = x.strides();
  for (int64_t j = 0; j < n; ++j)
    for (int64_t d = 0; d < rank; ++d)
      out.data<int64_t>()[d * n + j] = hits[j] / strides[d] % x.dim(d);
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// UniqueOp
//===----------------------------------------------------------------------===//

LogicalResult UniqueOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  std::optional<int64_t> axis;
  if (getHasAxis())
    axis = getAxis();
  return appendShapes(*this, shapes::inferUnique(ctx.shape(getInput()), axis),
                      s);
}

int64_t UniqueOp::getFlops() { return elementwiseFlops(getInput(), 1); }

LogicalResult UniqueOp::interpret(InterpreterEnv &env) {
  Tensor in = env.get(getInput());
  int64_t axis = 0;
  if (getHasAxis())
    axis = getAxis() < 0 ? getAxis() + in.rank() : getAxis();
  else
    in = in.reshaped({in.numElements()});
  std::vector<int64_t> shape = in.shape();
  int64_t dim = shape[axis], outer = 1, inner = 1;
  for (int64_t d = 0; d < in.rank(); ++d)
    if (d < axis)
      outer *= shape[d];
    else if (d > axis)
      inner *= shape[d];
  unique::Slices found =
      unique::findSlices(outer, dim, inner, getSorted(),
                         [&](int64_t i) { return in.getAsDouble(i); });
  const std::vector<int64_t> &order = found.order;
  int64_t u = order.size();
  std::vector<int64_t> yShape = shape;
  yShape[axis] = u;
  Tensor y(in.dtype(), yShape), first(DType::I64, {u}),
      inverse(DType::I64, {dim}), counts(DType::I64, {u});
  size_t size = dtypeSize(in.dtype());
  for (int64_t r = 0; r < u; ++r) {
    first.data<int64_t>()[r] = order[r];
    counts.data<int64_t>()[r] = found.counts[r];
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y.data<uint8_t>() + (o * u + r) * inner * size,
                  in.data<uint8_t>() + (o * dim + order[r]) * inner * size,
                  inner * size);
  }
  std::copy(found.inverse.begin(), found.inverse.end(),
            inverse.data<int64_t>());
  env.set(getOutput(), y);
  env.set(getIndices(), first);
  env.set(getInverseIndices(), inverse);
  env.set(getCounts(), counts);
  return success();
}

//===----------------------------------------------------------------------===//
// NonMaxSuppressionOp
//===----------------------------------------------------------------------===//

LogicalResult
NonMaxSuppressionOp::inferShapes(const ShapeContext &ctx,
                                 SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(checkElementKind(*this, "operand 'boxes'", getBoxes(),
                              kFloatElements)) ||
      failed(checkElementKind(*this, "operand 'scores'", getScores(),
                              kFloatElements)))
    return failure();
  auto scalarShape = [&](Value v) -> std::optional<Shape> {
    if (isNone(v))
      return std::nullopt;
    SmallVector<int64_t> shape = ctx.shape(v);
    return Shape(shape.begin(), shape.end());
  };
  shapes::NonMaxSuppressionScalars scalars{
      scalarShape(getMaxOutputBoxesPerClass()), scalarShape(getIouThreshold()),
      scalarShape(getScoreThreshold())};
  return appendShape(*this,
                     shapes::inferNonMaxSuppression(
                         ctx.shape(getBoxes()), ctx.shape(getScores()), scalars,
                         getCenterPointBox()),
                     s);
}

int64_t NonMaxSuppressionOp::getFlops() {
  auto t = cast<ShapedType>(getScores().getType());
  if (!t.hasStaticShape())
    return 0;
  int64_t n = t.getDimSize(2);
  return t.getNumElements() * n * 10; // one IoU per pair, worst case
}

namespace {
using nms::Box;
using nms::suppresses;

Box readBox(const Tensor &boxes, int64_t at, bool centerPoint) {
  double v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = boxes.getAsDouble(at * 4 + k);
  return nms::makeBox(v, centerPoint);
}
} // namespace

LogicalResult NonMaxSuppressionOp::interpret(InterpreterEnv &env) {
  const Tensor &boxes = env.get(getBoxes());
  const Tensor &scores = env.get(getScores());
  int64_t maxOut = 0;
  double iou = 0, scoreMin = 0;
  bool filter = !isNone(getScoreThreshold());
  if (!isNone(getMaxOutputBoxesPerClass()))
    maxOut = std::max<int64_t>(env.get(getMaxOutputBoxesPerClass()).getAsInt(0),
                               0);
  if (!isNone(getIouThreshold()))
    iou = env.get(getIouThreshold()).getAsDouble(0);
  if (filter)
    scoreMin = env.get(getScoreThreshold()).getAsDouble(0);
  int64_t batches = boxes.dim(0), n = boxes.dim(1), classes = scores.dim(1);
  bool centerPoint = getCenterPointBox() == 1;
  std::vector<int64_t> rows;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      int64_t base = (b * classes + c) * n;
      std::vector<int64_t> candidates;
      for (int64_t i = 0; i < n; ++i)
        if (!filter || scores.getAsDouble(base + i) > scoreMin)
          candidates.push_back(i);
      // By decreasing score (NaN as -inf); equal scores keep the lower
      // index first.
      auto score = [&](int64_t i) {
        double v = scores.getAsDouble(base + i);
        return std::isnan(v) ? -INFINITY : v;
      };
      std::sort(candidates.begin(), candidates.end(),
                [&](int64_t x, int64_t y) {
                  double sx = score(x), sy = score(y);
                  return sx > sy || (sx == sy && x < y);
                });
      std::vector<Box> selected;
      for (int64_t i : candidates) {
        if (static_cast<int64_t>(selected.size()) >= maxOut)
          break;
        Box box = readBox(boxes, b * n + i, centerPoint);
        if (llvm::any_of(selected, [&](const Box &s) {
              return suppresses(box, s, iou);
            }))
          continue;
        selected.push_back(box);
        rows.insert(rows.end(), {b, c, i});
      }
    }
  Tensor out(DType::I64, {static_cast<int64_t>(rows.size() / 3), 3});
  std::copy(rows.begin(), rows.end(), out.data<int64_t>());
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// RangeOp
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  return checkElementKind(*this, "operand 'start'", getStart(),
                          kFloatElements | kIntElements);
}

LogicalResult RangeOp::inferShapes(const ShapeContext &ctx,
                                   SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(
      *this,
      shapes::inferRange(ctx.shape(getStart()), ctx.shape(getLimit()),
                         ctx.shape(getDelta()), ctx.tensor(getStart()),
                         ctx.tensor(getLimit()), ctx.tensor(getDelta())),
      s);
}

int64_t RangeOp::getFlops() { return elementwiseFlops(getOutput(), 1); }

LogicalResult RangeOp::interpret(InterpreterEnv &env) {
  const Tensor &start = env.get(getStart()), &delta = env.get(getDelta());
  Tensor out(start.dtype(), env.resultShape(getOutput()));
  int64_t n = out.numElements();
  // Each element is the previous one plus delta, in the element type (the
  // accumulation of ONNX's function body): floats add in f64 and round, as
  // an add of two values of the type does; integers wrap.
  if (isFloat(out.dtype())) {
    double d = delta.getAsDouble(0);
    for (int64_t k = 0; k < n; ++k)
      out.setFromDouble(k,
                        k ? out.getAsDouble(k - 1) + d : start.getAsDouble(0));
  } else {
    Tensor wide(DType::I64, {n});
    uint64_t v = static_cast<uint64_t>(start.getAsInt(0));
    uint64_t d = static_cast<uint64_t>(delta.getAsInt(0));
    for (int64_t k = 0; k < n; ++k, v += d)
      wide.data<int64_t>()[k] = static_cast<int64_t>(v);
    out = wide.castTo(out.dtype());
  }
  env.set(getOutput(), out);
  return success();
}
