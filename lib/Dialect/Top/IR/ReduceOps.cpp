//===- ReduceOps.cpp - reductions and argmax ------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/ReduceShapes.h"


#include <cmath>
#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// The lowest and highest value of an integer dtype, saturated to int64.
std::pair<int64_t, int64_t> intLimits(DType type) {
  switch (type) {
  case DType::Bool: return {0, 1};
  case DType::I8: return {INT8_MIN, INT8_MAX};
  case DType::I16: return {INT16_MIN, INT16_MAX};
  case DType::I32: return {INT32_MIN, INT32_MAX};
  case DType::U8: return {0, UINT8_MAX};
  case DType::U16: return {0, UINT16_MAX};
  case DType::U32: return {0, UINT32_MAX};
  default: return {INT64_MIN, INT64_MAX};
  }
}

/// Accumulates in double (floats) or int64 with wrap-around (integers).
template <typename T> struct Accumulator {
  static T add(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    else
      return a + b;
  }
  static T mul(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else
      return a * b;
  }
  static bool isNan(T v) {
    if constexpr (std::is_integral_v<T>)
      return false;
    else
      return std::isnan(v);
  }
};

/// The value a reduction of zero elements gives.
template <typename T> T initialValue(ReduceMode mode, DType type) {
  constexpr bool isInt = std::is_integral_v<T>;
  constexpr T inf = isInt ? T(0) : std::numeric_limits<T>::infinity();
  switch (mode) {
  case ReduceMode::Sum:
  case ReduceMode::Mean: return 0;
  case ReduceMode::Prod: return 1;
  case ReduceMode::Max: return isInt ? T(intLimits(type).first) : -inf;
  case ReduceMode::Min: return isInt ? T(intLimits(type).second) : inf;
  }
  return 0;
}

/// Reduces `src` (compute values of `in`) into `acc`, one entry per output
/// element; `outStrides[d]` is 0 for reduced dims.
template <typename T, typename S>
void reduceInto(const S *src, ArrayRef<int64_t> shape,
                ArrayRef<int64_t> outStrides, ReduceMode mode,
                std::vector<T> &acc) {
  int64_t rank = shape.size(), n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<int64_t> idx(rank, 0);
  int64_t o = 0;
  using A = Accumulator<T>;
  for (int64_t i = 0; i < n; ++i) {
    T v = static_cast<T>(src[i]);
    T &a = acc[o];
    switch (mode) {
    case ReduceMode::Sum:
    case ReduceMode::Mean: a = A::add(a, v); break;
    case ReduceMode::Prod: a = A::mul(a, v); break;
    case ReduceMode::Max:
      if (!A::isNan(a) && (A::isNan(v) || v > a))
        a = v;
      break;
    case ReduceMode::Min:
      if (!A::isNan(a) && (A::isNan(v) || v < a))
        a = v;
      break;
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      o += outStrides[d];
      if (++idx[d] < shape[d])
        break;
      o -= outStrides[d] * idx[d];
      idx[d] = 0;
    }
  }
}

/// Runs a reduction with accumulator type T over a compute tensor.
template <typename T>
Tensor reduceTensor(const Tensor &c, DType type, ArrayRef<int64_t> outShape,
                    ArrayRef<int64_t> outStrides, ReduceMode mode,
                    int64_t count) {
  int64_t outCount = 1;
  for (int64_t d : outShape)
    outCount *= d;
  std::vector<T> acc(outCount, initialValue<T>(mode, type));
  if (c.dtype() == DType::F32)
    reduceInto(c.data<float>(), c.shape(), outStrides, mode, acc);
  else if (c.dtype() == DType::F64)
    reduceInto(c.data<double>(), c.shape(), outStrides, mode, acc);
  else
    reduceInto(c.data<int64_t>(), c.shape(), outStrides, mode, acc);
  bool isInt = std::is_integral_v<T>;
  Tensor out(isInt ? DType::I64 : DType::F64,
             std::vector<int64_t>(outShape.begin(), outShape.end()));
  for (int64_t i = 0; i < outCount; ++i) {
    T v = acc[i];
    if (mode == ReduceMode::Mean)
      v = isInt && count == 0 ? T(0) : static_cast<T>(v / static_cast<T>(count));
    if constexpr (std::is_integral_v<T>)
      out.data<int64_t>()[i] = v;
    else
      out.data<double>()[i] = v;
  }
  return out.castTo(type);
}
} // namespace

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  if (getAxesValue() && !getAxes().empty())
    return emitOpError() << "takes the axes from attribute 'axes' "
                         << formatArray(getAxes())
                         << " or from operand 'axes_value', not both";
  return success();
}

LogicalResult ReduceOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  std::optional<shapes::RuntimeAxes> axesValue;
  if (Value v = getAxesValue()) {
    FailureOr<int64_t> length = runtimeListLength(*this, "axes_value", v);
    if (failed(length))
      return failure();
    axesValue = shapes::RuntimeAxes{*length, ctx.tensor(v)};
  }
  return appendShape(*this,
                     shapes::inferReduce(ctx.shape(getInput()), getAxes(),
                                         getKeepdims(), axesValue),
                     s);
}

int64_t ReduceOp::getFlops() {
  auto t = cast<ShapedType>(getInput().getType());
  return t.hasStaticShape() ? t.getNumElements() : 0;
}

LogicalResult ReduceOp::interpret(InterpreterEnv &env) {
  const Tensor &input = env.get(getInput());
  const std::vector<int64_t> &outShape = env.resultShape(getOutput());
  if (isEmptyShape(outShape)) {
    env.set(getOutput(), Tensor(resultDType(getOutput()), outShape));
    return success();
  }
  Value axesValue = getAxesValue();
  ShapeOr<Shape> axes = shapes::reduceAxes(
      input.rank(), getAxes(), axesValue ? &env.get(axesValue) : nullptr);
  if (!axes)
    return emitOpError() << axes.error();
  std::vector<bool> reduced = shapes::reducedDims(input.rank(), *axes);
  Tensor c = toCompute(input);
  // Output strides over the kept dims, 0 on reduced ones.
  SmallVector<int64_t> keptShape, outStrides(c.rank(), 0);
  // The output is not empty, so an empty input is empty along reduced dims.
  int64_t count = c.numElements() == 0 ? 0 : 1;
  for (int64_t d = 0; d < c.rank(); ++d)
    if (reduced[d]) {
      count *= count ? c.dim(d) : 0;
      keptShape.push_back(1);
    } else {
      keptShape.push_back(c.dim(d));
    }
  SmallVector<int64_t> strides = rowMajorStrides(keptShape);
  for (int64_t d = 0; d < c.rank(); ++d)
    if (!reduced[d])
      outStrides[d] = strides[d];
  ReduceMode mode = getMode();
  DType type = resultDType(getOutput());
  Tensor out = isFloat(c.dtype())
                   ? reduceTensor<double>(c, type, keptShape, outStrides, mode,
                                          count)
                   : reduceTensor<int64_t>(c, type, keptShape, outStrides,
                                           mode, count);
  env.set(getOutput(), out.reshaped(outShape));
  return success();
}

//===----------------------------------------------------------------------===//
// ArgMaxOp
//===----------------------------------------------------------------------===//

LogicalResult ArgMaxOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(
      *this,
      shapes::inferArgMax(ctx.shape(getInput()), getAxis(), getKeepdims()), s);
}

int64_t ArgMaxOp::getFlops() {
  auto t = cast<ShapedType>(getInput().getType());
  return t.hasStaticShape() ? t.getNumElements() : 0;
}

namespace {
/// Argmax over the middle dim of [outer, n, inner]; NaN is the largest.
template <typename T>
void argmax(const T *src, int64_t outer, int64_t n, int64_t inner, bool last,
            int64_t *dst) {
  auto isNan = [](T v) { return Accumulator<T>::isNan(v); };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < inner; ++k) {
      const T *p = src + o * n * inner + k;
      int64_t best = 0;
      for (int64_t i = 1; i < n; ++i) {
        T v = p[i * inner], b = p[best * inner];
        bool better = isNan(b) ? (last && isNan(v))
                               : (isNan(v) || v > b || (last && v == b));
        if (better)
          best = i;
      }
      dst[o * inner + k] = best;
    }
}
} // namespace

LogicalResult ArgMaxOp::interpret(InterpreterEnv &env) {
  Tensor c = toCompute(env.get(getInput()));
  Tensor out(DType::I64, env.resultShape(getOutput()));
  if (out.numElements() == 0) {
    env.set(getOutput(), out);
    return success();
  }
  int64_t axis = getAxis() < 0 ? getAxis() + c.rank() : getAxis();
  int64_t outer = 1, inner = 1, n = c.dim(axis);
  for (int64_t d = 0; d < axis; ++d)
    outer *= c.dim(d);
  for (int64_t d = axis + 1; d < c.rank(); ++d)
    inner *= c.dim(d);
  bool last = getSelectLastIndex();
  int64_t *dst = out.data<int64_t>();
  if (c.dtype() == DType::F32)
    argmax(c.data<float>(), outer, n, inner, last, dst);
  else if (c.dtype() == DType::F64)
    argmax(c.data<double>(), outer, n, inner, last, dst);
  else
    argmax(c.data<int64_t>(), outer, n, inner, last, dst);
  env.set(getOutput(), out);
  return success();
}
