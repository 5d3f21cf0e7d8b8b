//===- SelectOps.cpp - Trilu, scans, scatters, GatherND, TopK, ... --------===//
//
// Verifiers, shape inference, FLOP counts and reference semantics of the ops
// in TopSelectOps.td.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/SelectShapes.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// Product of `dims` (the shapes here were checked by shape inference).
int64_t product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// `index` (negative counts from the back) as a position in [0, dim), or an
/// error naming the op's operand, the index, where it is and the bound.
FailureOr<int64_t> normalizeIndex(Operation *op, StringRef what,
                                  int64_t index, int64_t flatPos,
                                  int64_t dim, int64_t axis) {
  if (index < -dim || index >= dim)
    return op->emitOpError()
           << "index " << index << " at flat position " << flatPos << " of '"
           << what << "' is out of range [" << -dim << ", " << dim
           << ") for dim " << axis;
  return index < 0 ? index + dim : index;
}

/// Copies element `from` of `src` to element `to` of `dst` (same dtype).
void copyElementAt(Tensor &dst, int64_t to, const Tensor &src, int64_t from) {
  size_t size = dtypeSize(src.dtype());
  std::memcpy(dst.data<uint8_t>() + to * size,
              src.data<uint8_t>() + from * size, size);
}

/// The reductions of the scatter ops (Cumulative uses Add and Mul).
using Reduction = ScatterReduction;

/// Combines `update` into `*dst` in a compute type (f32, f64 or i64;
/// integers wrap around).
template <typename T> void combine(T *dst, T update, Reduction r) {
  switch (r) {
  case Reduction::None: *dst = update; return;
  case Reduction::Add:
    if constexpr (std::is_integral_v<T>)
      *dst = static_cast<T>(static_cast<uint64_t>(*dst) +
                            static_cast<uint64_t>(update));
    else
      *dst += update;
    return;
  case Reduction::Mul:
    if constexpr (std::is_integral_v<T>)
      *dst = static_cast<T>(static_cast<uint64_t>(*dst) *
                            static_cast<uint64_t>(update));
    else
      *dst *= update;
    return;
  case Reduction::Min: *dst = std::min(*dst, update); return;
  case Reduction::Max: *dst = std::max(*dst, update); return;
  }
}

/// Scatters `updates` element `u` into `out` element `o` for every pair
/// (o, u) of `pairs`, with reduction `r`. `out` starts as a copy of the
/// data. Returns the result in `out`'s dtype.
Tensor scatterPairs(const Tensor &data, const Tensor &updates,
                    ArrayRef<std::pair<int64_t, int64_t>> pairs,
                    Reduction r) {
  if (r == Reduction::None) {
    Tensor out = data.clone();
    for (auto [o, u] : pairs)
      copyElementAt(out, o, updates, u);
    return out;
  }
  Tensor out = toCompute(data).clone();
  Tensor upd = toCompute(updates);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T *dst = out.data<T>();
    const T *src = upd.data<T>();
    for (auto [o, u] : pairs)
      combine<T>(dst + o, src[u], r);
  };
  switch (out.dtype()) {
  case DType::F32: run(float()); break;
  case DType::F64: run(double()); break;
  default: run(int64_t()); break;
  }
  return out.castTo(data.dtype());
}

/// Calls fn(flatIndex, multiIndex) for every element of `shape` in
/// row-major order.
void forEachIndex(ArrayRef<int64_t> shape,
                  llvm::function_ref<void(int64_t, ArrayRef<int64_t>)> fn) {
  int64_t n = product(shape);
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(flat, idx);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}
} // namespace

//===----------------------------------------------------------------------===//
// TriluOp
//===----------------------------------------------------------------------===//

LogicalResult TriluOp::verify() {
  if (getDiagonalValue() && getDiagonal() != 0)
    return emitOpError() << "takes the diagonal from attribute 'diagonal' = "
                         << getDiagonal()
                         << " or from operand 'diagonal_value', not both";
  return success();
}

LogicalResult TriluOp::inferShapes(const ShapeContext &ctx,
                                   SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (getDiagonalValue() &&
      failed(checkRuntimeScalar(*this, "diagonal_value", getDiagonalValue())))
    return failure();
  return appendShape(*this, shapes::inferTrilu(ctx.shape(getInput())), s);
}

int64_t TriluOp::getFlops() { return 0; }

LogicalResult TriluOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  Tensor out = in.clone();
  int64_t rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
  int64_t matrices = rows * cols == 0 ? 0 : in.numElements() / (rows * cols);
  size_t size = dtypeSize(in.dtype());
  int64_t k = getDiagonal();
  if (Value diagonal = getDiagonalValue()) {
    auto v = runtimeScalarInt(*this, "diagonal_value", env.get(diagonal));
    if (failed(v))
      return failure();
    k = *v;
  }
  bool upper = getUpper();
  uint8_t *p = out.data<uint8_t>();
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        // j - i in int64 cannot overflow (both are dims); compare with k.
        bool keep = upper ? j - i >= k : j - i <= k;
        if (!keep)
          std::memset(p + ((m * rows + i) * cols + j) * size, 0, size);
      }
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// CumulativeOp
//===----------------------------------------------------------------------===//

LogicalResult CumulativeOp::verify() {
  if (failed(checkElementKind(*this, "operand 'input'", getInput(),
                              kFloatElements | kIntElements)))
    return failure();
  if (getAxisValue() && getAxis() != 0)
    return emitOpError() << "takes the axis from attribute 'axis' = "
                         << getAxis()
                         << " or from operand 'axis_value', not both";
  return success();
}

LogicalResult
CumulativeOp::inferShapes(const ShapeContext &ctx,
                          SmallVectorImpl<SmallVector<int64_t>> &s) {
  std::optional<int64_t> axis = getAxis();
  if (getAxisValue()) {
    if (failed(checkRuntimeScalar(*this, "axis_value", getAxisValue())))
      return failure();
    axis = std::nullopt;
  }
  return appendShape(*this,
                     shapes::inferCumulative(ctx.shape(getInput()), axis), s);
}

int64_t CumulativeOp::getFlops() { return elementwiseFlops(getOutput(), 1); }

LogicalResult CumulativeOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  Tensor x = toCompute(in);
  Tensor out(x.dtype(), in.shape());
  int64_t axis = getAxis();
  if (Value axisValue = getAxisValue()) {
    auto v = runtimeScalarInt(*this, "axis_value", env.get(axisValue));
    if (failed(v))
      return failure();
    auto a = normalizeRuntimeAxes(*this, "axis_value", {*v}, in.rank());
    if (failed(a))
      return failure();
    axis = (*a)[0];
  }
  if (axis < 0)
    axis += in.rank();
  int64_t dim = in.dim(axis);
  int64_t inner = product(ArrayRef<int64_t>(in.shape()).drop_front(axis + 1));
  int64_t outer = product(ArrayRef<int64_t>(in.shape()).take_front(axis));
  bool prod = getMode() == CumulativeMode::Prod, exclusive = getExclusive(),
       reverse = getReverse();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.data<T>();
    T *dst = out.data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        T acc = prod ? T(1) : T(0);
        for (int64_t step = 0; step < dim; ++step) {
          int64_t j = reverse ? dim - 1 - step : step;
          int64_t at = (o * dim + j) * inner + i;
          if (exclusive)
            dst[at] = acc;
          combine<T>(&acc, src[at], prod ? Reduction::Mul : Reduction::Add);
          if (!exclusive)
            dst[at] = acc;
        }
      }
  };
  switch (x.dtype()) {
  case DType::F32: run(float()); break;
  case DType::F64: run(double()); break;
  default: run(int64_t()); break;
  }
  env.set(getOutput(), out.castTo(in.dtype()));
  return success();
}

//===----------------------------------------------------------------------===//
// ScatterElementsOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterElementsOp::verify() {
  return checkSameElementType(*this, "operand 'data'", getData(),
                              "operand 'updates'", getUpdates());
}

LogicalResult
ScatterElementsOp::inferShapes(const ShapeContext &ctx,
                               SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this,
                     shapes::inferScatterElements(
                         ctx.shape(getData()), ctx.shape(getIndices()),
                         ctx.shape(getUpdates()), getAxis()),
                     s);
}

int64_t ScatterElementsOp::getFlops() {
  if (getReduction() == Reduction::None)
    return 0;
  return elementwiseFlops(getUpdates(), 1);
}

/// For every element of `indices` (ScatterElements / GatherElements), the
/// flat offset in `data` of its position with the `axis` coordinate replaced
/// by the index; an index out of range is an error naming it.
static FailureOr<std::vector<int64_t>>
alongAxisOffsets(Operation *op, const Tensor &data, const Tensor &indices,
                 int64_t axisAttr) {
  int64_t axis = axisAttr < 0 ? axisAttr + data.rank() : axisAttr;
  int64_t dim = data.dim(axis);
  SmallVector<int64_t> strides = rowMajorStrides(data.shape());
  std::vector<int64_t> offsets;
  offsets.reserve(indices.numElements());
  LogicalResult ok = success();
  forEachIndex(indices.shape(), [&](int64_t flat, ArrayRef<int64_t> pos) {
    if (failed(ok))
      return;
    auto i = normalizeIndex(op, "indices", indices.getAsInt(flat), flat, dim,
                            axis);
    if (failed(i)) {
      ok = failure();
      return;
    }
    int64_t offset = 0;
    for (int64_t d = 0; d < data.rank(); ++d)
      offset += (d == axis ? *i : pos[d]) * strides[d];
    offsets.push_back(offset);
  });
  if (failed(ok))
    return failure();
  return offsets;
}

LogicalResult ScatterElementsOp::interpret(InterpreterEnv &env) {
  auto offsets = alongAxisOffsets(*this, env.get(getData()),
                                  env.get(getIndices()), getAxis());
  if (failed(offsets))
    return failure();
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (auto [flat, offset] : llvm::enumerate(*offsets))
    pairs.emplace_back(offset, static_cast<int64_t>(flat));
  env.set(getOutput(), scatterPairs(env.get(getData()), env.get(getUpdates()),
                                    pairs, getReduction()));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherElementsOp
//===----------------------------------------------------------------------===//

LogicalResult
GatherElementsOp::inferShapes(const ShapeContext &ctx,
                              SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this,
                     shapes::inferGatherElements(ctx.shape(getData()),
                                                 ctx.shape(getIndices()),
                                                 getAxis()),
                     s);
}

int64_t GatherElementsOp::getFlops() { return 0; }

LogicalResult GatherElementsOp::interpret(InterpreterEnv &env) {
  const Tensor &data = env.get(getData());
  const Tensor &indices = env.get(getIndices());
  auto offsets = alongAxisOffsets(*this, data, indices, getAxis());
  if (failed(offsets))
    return failure();
  Tensor out(data.dtype(), indices.shape());
  for (auto [flat, offset] : llvm::enumerate(*offsets))
    copyElementAt(out, static_cast<int64_t>(flat), data, offset);
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// ScatterNDOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterNDOp::verify() {
  return checkSameElementType(*this, "operand 'data'", getData(),
                              "operand 'updates'", getUpdates());
}

LogicalResult
ScatterNDOp::inferShapes(const ShapeContext &ctx,
                         SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this,
                     shapes::inferScatterND(ctx.shape(getData()),
                                            ctx.shape(getIndices()),
                                            ctx.shape(getUpdates())),
                     s);
}

int64_t ScatterNDOp::getFlops() {
  if (getReduction() == Reduction::None)
    return 0;
  return elementwiseFlops(getUpdates(), 1);
}

LogicalResult ScatterNDOp::interpret(InterpreterEnv &env) {
  const Tensor &data = env.get(getData());
  const Tensor &indices = env.get(getIndices());
  int64_t k = indices.dim(indices.rank() - 1);
  int64_t rows = k == 0 ? 0 : indices.numElements() / k;
  int64_t slice = product(ArrayRef<int64_t>(data.shape()).drop_front(k));
  SmallVector<int64_t> strides = rowMajorStrides(data.shape());
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t flat = r * k + j;
      auto i = normalizeIndex(*this, "indices", indices.getAsInt(flat), flat,
                              data.dim(j), j);
      if (failed(i))
        return failure();
      offset += *i * strides[j];
    }
    for (int64_t e = 0; e < slice; ++e)
      pairs.emplace_back(offset + e, r * slice + e);
  }
  env.set(getOutput(), scatterPairs(data, env.get(getUpdates()), pairs,
                                    getReduction()));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherNDOp
//===----------------------------------------------------------------------===//

LogicalResult
GatherNDOp::inferShapes(const ShapeContext &ctx,
                        SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this,
                     shapes::inferGatherND(ctx.shape(getData()),
                                           ctx.shape(getIndices()),
                                           getBatchDims()),
                     s);
}

int64_t GatherNDOp::getFlops() { return 0; }

LogicalResult GatherNDOp::interpret(InterpreterEnv &env) {
  const Tensor &data = env.get(getData());
  const Tensor &indices = env.get(getIndices());
  int64_t b = getBatchDims();
  int64_t k = indices.dim(indices.rank() - 1);
  ArrayRef<int64_t> dShape(data.shape()), iShape(indices.shape());
  int64_t batches = product(dShape.take_front(b));
  int64_t batchSize = product(dShape.drop_front(b));
  int64_t rowsPerBatch = product(iShape.drop_front(b).drop_back());
  int64_t slice = product(dShape.drop_front(b + k));
  SmallVector<int64_t> strides = rowMajorStrides(dShape);
  Tensor out(data.dtype(), env.resultShape(getOutput()));
  for (int64_t bi = 0; bi < batches; ++bi)
    for (int64_t r = 0; r < rowsPerBatch; ++r) {
      int64_t row = bi * rowsPerBatch + r, offset = bi * batchSize;
      for (int64_t j = 0; j < k; ++j) {
        int64_t flat = row * k + j;
        auto i = normalizeIndex(*this, "indices", indices.getAsInt(flat),
                                flat, dShape[b + j], b + j);
        if (failed(i))
          return failure();
        offset += *i * strides[b + j];
      }
      for (int64_t e = 0; e < slice; ++e)
        copyElementAt(out, row * slice + e, data, offset + e);
    }
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::inferShapes(const ShapeContext &ctx,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto kValue = runtimeScalar(*this, ctx, "k_value", getKValue());
  if (failed(kValue))
    return failure();
  return appendShapes(
      *this,
      shapes::inferTopK(ctx.shape(getInput()), getAxis(), getK(), *kValue), s);
}

int64_t TopKOp::getFlops() {
  auto t = cast<ShapedType>(getInput().getType());
  return t.hasStaticShape() ? t.getNumElements() : 0;
}

namespace {
/// Orders element positions of one TopK row: "a before b" if a's value is
/// larger (smaller with !largest), ties by lower position. NaN is larger
/// than every number. Compares in the element type's own domain so that
/// 64-bit integers keep full precision.
struct TopKOrder {
  const Tensor &t;
  bool largest;

  /// -1, 0, 1 for a < b, a == b, a > b.
  int compare(int64_t a, int64_t b) const {
    DType dt = t.dtype();
    if (isFloat(dt)) {
      double x = t.getAsDouble(a), y = t.getAsDouble(b);
      bool xn = std::isnan(x), yn = std::isnan(y);
      if (xn || yn)
        return xn == yn ? 0 : (xn ? 1 : -1);
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (dt == DType::U64) {
      uint64_t x = t.data<uint64_t>()[a], y = t.data<uint64_t>()[b];
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    int64_t x = t.getAsInt(a), y = t.getAsInt(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
};
} // namespace

LogicalResult TopKOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  int64_t axis = getAxis() < 0 ? getAxis() + in.rank() : getAxis();
  const std::vector<int64_t> &outShape = env.resultShape(getValues());
  int64_t dim = in.dim(axis), k = outShape[axis];
  int64_t inner = product(ArrayRef<int64_t>(in.shape()).drop_front(axis + 1));
  int64_t outer = product(ArrayRef<int64_t>(in.shape()).take_front(axis));
  Tensor values(in.dtype(), outShape), indices(DType::I64, outShape);
  TopKOrder order{in, getLargest()};
  std::vector<int64_t> pos(dim);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto flat = [&](int64_t j) { return (o * dim + j) * inner + i; };
      std::iota(pos.begin(), pos.end(), int64_t(0));
      auto before = [&](int64_t a, int64_t b) {
        int c = order.compare(flat(a), flat(b));
        if (c == 0)
          return a < b;
        return order.largest ? c > 0 : c < 0;
      };
      std::partial_sort(pos.begin(), pos.begin() + k, pos.end(), before);
      if (!getSorted())
        std::sort(pos.begin(), pos.begin() + k);
      for (int64_t j = 0; j < k; ++j) {
        int64_t at = (o * k + j) * inner + i;
        copyElementAt(values, at, in, flat(pos[j]));
        indices.data<int64_t>()[at] = pos[j];
      }
    }
  env.set(getValues(), values);
  env.set(getIndices(), indices);
  return success();
}

//===----------------------------------------------------------------------===//
// OneHotOp
//===----------------------------------------------------------------------===//

LogicalResult OneHotOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(checkElementKind(*this, "operand 'indices'", getIndices(),
                              kFloatElements | kIntElements)))
    return failure();
  std::optional<shapes::RuntimeValue> depthValue;
  if (!isNone(getDepthValue())) {
    SmallVector<int64_t> shape = ctx.shape(getDepthValue());
    depthValue = shapes::RuntimeValue{Shape(shape.begin(), shape.end()),
                                      ctx.tensor(getDepthValue())};
  }
  return appendShape(*this,
                     shapes::inferOneHot(ctx.shape(getIndices()),
                                         ctx.shape(getValues()), getDepth(),
                                         depthValue, getAxis()),
                     s);
}

int64_t OneHotOp::getFlops() { return 0; }

LogicalResult OneHotOp::interpret(InterpreterEnv &env) {
  const Tensor &indices = env.get(getIndices());
  const Tensor &values = env.get(getValues());
  const std::vector<int64_t> &outShape = env.resultShape(getOutput());
  int64_t axis = getAxis() < 0 ? getAxis() + indices.rank() + 1 : getAxis();
  int64_t depth = outShape[axis];
  if (!checkedNumElements(outShape, int64_t(1) << 31))
    return emitOpError() << "result shape " << shapeToString(outShape)
                         << " is too large";
  int64_t inner =
      product(ArrayRef<int64_t>(indices.shape()).drop_front(axis));
  int64_t outer = product(ArrayRef<int64_t>(indices.shape()).take_front(axis));
  Tensor out(values.dtype(), outShape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t index = depth; // out of range: an all-off row
      if (isFloat(indices.dtype())) {
        double v = indices.getAsDouble(o * inner + i);
        if (v > -double(depth) - 1 && v < double(depth))
          index = static_cast<int64_t>(v);
      } else {
        index = indices.getAsInt(o * inner + i);
      }
      if (index < 0 && index >= -depth)
        index += depth;
      for (int64_t d = 0; d < depth; ++d)
        copyElementAt(out, (o * depth + d) * inner + i, values,
                      d == index ? 1 : 0);
    }
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// ReverseSequenceOp
//===----------------------------------------------------------------------===//

LogicalResult
ReverseSequenceOp::inferShapes(const ShapeContext &ctx,
                               SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this,
                     shapes::inferReverseSequence(
                         ctx.shape(getInput()), ctx.shape(getSequenceLens()),
                         getBatchAxis(), getTimeAxis()),
                     s);
}

int64_t ReverseSequenceOp::getFlops() { return 0; }

LogicalResult ReverseSequenceOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  const Tensor &lens = env.get(getSequenceLens());
  int64_t b = getBatchAxis(), t = getTimeAxis();
  int64_t steps = in.dim(t);
  SmallVector<int64_t> len(in.dim(b));
  for (int64_t i = 0; i < in.dim(b); ++i) {
    len[i] = lens.getAsInt(i);
    if (len[i] < 0 || len[i] > steps)
      return emitOpError() << "sequence length " << len[i] << " of batch "
                           << i << " is out of range [0, " << steps << "]";
  }
  SmallVector<int64_t> strides = rowMajorStrides(in.shape());
  Tensor out(in.dtype(), in.shape());
  forEachIndex(in.shape(), [&](int64_t flat, ArrayRef<int64_t> pos) {
    int64_t from = flat, l = len[pos[b]];
    if (pos[t] < l)
      from += (l - 1 - 2 * pos[t]) * strides[t];
    copyElementAt(out, flat, in, from);
  });
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// MaxUnpoolOp
//===----------------------------------------------------------------------===//

LogicalResult
MaxUnpoolOp::inferShapes(const ShapeContext &ctx,
                         SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this,
                     shapes::inferMaxUnpool(ctx.shape(getInput()),
                                            ctx.shape(getIndices()),
                                            getOutputShape()),
                     s);
}

int64_t MaxUnpoolOp::getFlops() { return 0; }

LogicalResult MaxUnpoolOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  const Tensor &indices = env.get(getIndices());
  Tensor out(in.dtype(), env.resultShape(getOutput()));
  int64_t total = out.numElements();
  for (int64_t i = 0; i < in.numElements(); ++i) {
    int64_t at = indices.getAsInt(i);
    if (at < 0 || at >= total)
      return emitOpError() << "index " << at << " at flat position " << i
                           << " of 'indices' is out of range [0, " << total
                           << ") (the output's element count)";
    copyElementAt(out, at, in, i);
  }
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// MaxPoolIndicesOp
//===----------------------------------------------------------------------===//

LogicalResult
MaxPoolIndicesOp::inferShapes(const ShapeContext &ctx,
                              SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(checkElementKind(*this, "operand 'input'", getInput(),
                              kFloatElements | kIntElements)))
    return failure();
  shapes::MaxPoolIndicesAttrs attrs{getKernelShape(), getStrides(),
                                    getDilations(),   getPads(),
                                    getCeilMode(),    getStorageOrder()};
  return appendShape(
      *this, shapes::inferMaxPoolIndices(ctx.shape(getInput()), attrs), s);
}

int64_t MaxPoolIndicesOp::getFlops() {
  auto t = cast<ShapedType>(getOutput().getType());
  if (!t.hasStaticShape())
    return 0;
  return t.getNumElements() * getKernelShape()[0] * getKernelShape()[1];
}

LogicalResult MaxPoolIndicesOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> outShape = env.resultShape(getOutput());
  Tensor out(DType::I64, outShape);
  int64_t H = in.dim(2), W = in.dim(3), OH = outShape[2], OW = outShape[3];
  ArrayRef<int64_t> k = getKernelShape(), st = getStrides(),
                    dil = getDilations(), pads = getPads();
  bool columnMajor = getStorageOrder() == 1;
  int64_t planes = in.dim(0) * in.dim(1);
  int64_t *dst = out.data<int64_t>();
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t bestH = -1, bestW = -1;
        double best = 0;
        for (int64_t kh = 0; kh < k[0]; ++kh) {
          int64_t h = oh * st[0] - pads[0] + kh * dil[0];
          if (h < 0 || h >= H)
            continue;
          for (int64_t kw = 0; kw < k[1]; ++kw) {
            int64_t w = ow * st[1] - pads[1] + kw * dil[1];
            if (w < 0 || w >= W)
              continue;
            double v = in.getAsDouble((p * H + h) * W + w);
            if (bestH < 0 || v > best) {
              best = v;
              bestH = h;
              bestW = w;
            }
          }
        }
        if (bestH < 0)
          return emitOpError() << "pooling window (" << oh << ", " << ow
                               << ") holds no input element";
        dst[(p * OH + oh) * OW + ow] =
            columnMajor ? p * H * W + bestW * H + bestH
                        : p * H * W + bestH * W + bestW;
      }
  env.set(getOutput(), out);
  return success();
}
