//===- NormOps.cpp - softmax and normalization ops ------------------------===//
//
// top.Softmax, top.LogSoftmax, top.BatchNorm, top.LayerNorm, top.GroupNorm.
// Reference semantics compute in f32 (f64 for f64 and integer inputs) with
// f64 statistics.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/NormShapes.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

int64_t elementCount(Value v) {
  auto t = cast<ShapedType>(v.getType());
  return t.hasStaticShape() ? t.getNumElements() : 0;
}

/// The float type computations run in: f32 for f32/f16/bf16, else f64.
DType floatCompute(DType t) {
  return isFloat(t) && t != DType::F64 ? DType::F32 : DType::F64;
}

/// The values of an optional parameter operand as f64, `dflt` if none.
std::vector<double> paramOr(const InterpreterEnv &env, Value v, int64_t n,
                            double dflt) {
  std::vector<double> r(static_cast<size_t>(n), dflt);
  if (isNone(v))
    return r;
  const Tensor &t = env.get(v);
  for (int64_t i = 0; i < n; ++i)
    r[i] = t.getAsDouble(i);
  return r;
}

/// Runs `fn(float{})` or `fn(double{})` for a compute tensor's type.
template <typename Fn> void dispatchFloat(DType t, Fn fn) {
  if (t == DType::F32)
    fn(float{});
  else
    fn(double{});
}

/// Softmax (or log-softmax) of `outer x len x inner` along the middle dim.
template <typename T>
void softmaxRows(const T *in, T *out, int64_t outer, int64_t len,
                 int64_t inner, bool log) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const T *x = in + o * len * inner + i;
      T *y = out + o * len * inner + i;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < len; ++k)
        mx = std::max<double>(mx, x[k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < len; ++k)
        sum += std::exp(static_cast<double>(x[k * inner]) - mx);
      double logSum = std::log(sum);
      for (int64_t k = 0; k < len; ++k) {
        double v = static_cast<double>(x[k * inner]) - mx;
        y[k * inner] = static_cast<T>(log ? v - logSum : std::exp(v) / sum);
      }
    }
}

template <typename SoftOp>
LogicalResult inferSoftmax(SoftOp op, const ShapeContext &ctx,
                           SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(
      op, shapes::inferSoftmax(ctx.shape(op.getInput()), op.getAxis()), s);
}

template <typename SoftOp>
LogicalResult interpretSoftmax(SoftOp op, InterpreterEnv &env, bool log) {
  const Tensor &raw = env.get(op.getInput());
  Tensor in = raw.castTo(floatCompute(raw.dtype()));
  int64_t axis = *shapes::normAxis(op.getAxis(), in.rank());
  ArrayRef<int64_t> shape(in.shape());
  int64_t outer = product(shape.take_front(axis)), len = shape[axis],
          inner = product(shape.drop_front(axis + 1));
  Tensor out(in.dtype(), in.shape());
  dispatchFloat(in.dtype(), [&](auto t) {
    using T = decltype(t);
    softmaxRows<T>(in.data<T>(), out.data<T>(), outer, len, inner, log);
  });
  env.set(op.getOutput(), out.castTo(resultDType(op.getOutput())));
  return success();
}

/// Normalizes `rows` contiguous rows of `len` elements to zero mean and unit
/// variance, then applies `scale[j]`/`bias[j]` with j = (element / `per`)
/// % scale.size(); `per` = 1 for per-element params.
template <typename T>
void normalizeRows(const T *in, T *out, int64_t rows, int64_t len, double eps,
                   const std::vector<double> &scale,
                   const std::vector<double> &bias, int64_t per,
                   int64_t paramOffsetPerRow) {
  for (int64_t r = 0; r < rows; ++r) {
    const T *x = in + r * len;
    T *y = out + r * len;
    double mean = 0, var = 0;
    for (int64_t k = 0; k < len; ++k)
      mean += x[k];
    mean /= static_cast<double>(std::max<int64_t>(len, 1));
    for (int64_t k = 0; k < len; ++k)
      var += (x[k] - mean) * (x[k] - mean);
    var /= static_cast<double>(std::max<int64_t>(len, 1));
    double rstd = 1.0 / std::sqrt(var + eps);
    int64_t base = r * paramOffsetPerRow;
    for (int64_t k = 0; k < len; ++k) {
      size_t j = static_cast<size_t>((base + k / per) % scale.size());
      y[k] = static_cast<T>((x[k] - mean) * rstd * scale[j] + bias[j]);
    }
  }
}
} // namespace

//===----------------------------------------------------------------------===//
// SoftmaxOp, LogSoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  return inferSoftmax(*this, ctx, s);
}
/// max, subtract + exp, sum, divide: 4 per element.
int64_t SoftmaxOp::getFlops() { return 4 * elementCount(getInput()); }
LogicalResult SoftmaxOp::interpret(InterpreterEnv &env) {
  return interpretSoftmax(*this, env, /*log=*/false);
}

LogicalResult
LogSoftmaxOp::inferShapes(const ShapeContext &ctx,
                          SmallVectorImpl<SmallVector<int64_t>> &s) {
  return inferSoftmax(*this, ctx, s);
}
int64_t LogSoftmaxOp::getFlops() { return 4 * elementCount(getInput()); }
LogicalResult LogSoftmaxOp::interpret(InterpreterEnv &env) {
  return interpretSoftmax(*this, env, /*log=*/true);
}

//===----------------------------------------------------------------------===//
// BatchNormOp
//===----------------------------------------------------------------------===//

LogicalResult
BatchNormOp::inferShapes(const ShapeContext &ctx,
                         SmallVectorImpl<SmallVector<int64_t>> &s) {
  bool channelsLast = getLayout() == Layout::NHWC;
  OptionalShape mean(ctx, getMean()), variance(ctx, getVariance()),
      scale(ctx, getScale()), bias(ctx, getBias());
  return appendShape(*this,
                     shapes::inferBatchNorm(
                         ctx.shape(getInput()), {mean, variance, scale, bias},
                         getEpsilon().convertToDouble(), channelsLast),
                     s);
}

/// One multiply-add per element (scale and shift are folded per channel).
int64_t BatchNormOp::getFlops() { return 2 * elementCount(getInput()); }

LogicalResult BatchNormOp::interpret(InterpreterEnv &env) {
  bool channelsLast = getLayout() == Layout::NHWC;
  Tensor raw = toChannelsFirst(env.get(getInput()), channelsLast);
  Tensor in = raw.castTo(floatCompute(raw.dtype()));
  int64_t n = in.dim(0), c = in.dim(1);
  int64_t plane = product(ArrayRef<int64_t>(in.shape()).drop_front(2));
  std::vector<double> mean = paramOr(env, getMean(), c, 0),
                      var = paramOr(env, getVariance(), c, 1),
                      scale = paramOr(env, getScale(), c, 1),
                      bias = paramOr(env, getBias(), c, 0);
  double eps = getEpsilon().convertToDouble();
  Tensor out(in.dtype(), in.shape());
  dispatchFloat(in.dtype(), [&](auto t) {
    using T = decltype(t);
    const T *x = in.data<T>();
    T *y = out.data<T>();
    for (int64_t ch = 0; ch < c; ++ch) {
      double a = scale[ch] / std::sqrt(var[ch] + eps);
      double b = bias[ch] - mean[ch] * a;
      for (int64_t b0 = 0; b0 < n; ++b0) {
        int64_t off = (b0 * c + ch) * plane;
        for (int64_t i = 0; i < plane; ++i)
          y[off + i] = static_cast<T>(x[off + i] * a + b);
      }
    }
  });
  env.set(getOutput(), fromChannelsFirst(out, channelsLast)
                           .castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult
LayerNormOp::inferShapes(const ShapeContext &ctx,
                         SmallVectorImpl<SmallVector<int64_t>> &s) {
  OptionalShape scale(ctx, getScale()), bias(ctx, getBias());
  return appendShape(
      *this,
      shapes::inferLayerNorm(ctx.shape(getInput()), getAxis(),
                             {std::nullopt, std::nullopt, scale, bias},
                             getEpsilon().convertToDouble()),
      s);
}

/// Mean, variance (2), normalize (2), scale and shift (2): ~6 per element.
int64_t LayerNormOp::getFlops() { return 6 * elementCount(getInput()); }

LogicalResult LayerNormOp::interpret(InterpreterEnv &env) {
  const Tensor &raw = env.get(getInput());
  Tensor in = raw.castTo(floatCompute(raw.dtype()));
  int64_t axis = *shapes::normAxis(getAxis(), in.rank());
  ArrayRef<int64_t> shape(in.shape());
  int64_t rows = product(shape.take_front(axis)),
          len = product(shape.drop_front(axis));
  int64_t params = std::max<int64_t>(len, 1);
  std::vector<double> scale = paramOr(env, getScale(), params, 1),
                      bias = paramOr(env, getBias(), params, 0);
  Tensor out(in.dtype(), in.shape());
  dispatchFloat(in.dtype(), [&](auto t) {
    using T = decltype(t);
    normalizeRows<T>(in.data<T>(), out.data<T>(), rows, len,
                     getEpsilon().convertToDouble(), scale, bias, /*per=*/1,
                     /*paramOffsetPerRow=*/0);
  });
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// GroupNormOp
//===----------------------------------------------------------------------===//

LogicalResult
GroupNormOp::inferShapes(const ShapeContext &ctx,
                         SmallVectorImpl<SmallVector<int64_t>> &s) {
  bool channelsLast = getLayout() == Layout::NHWC;
  OptionalShape scale(ctx, getScale()), bias(ctx, getBias());
  return appendShape(
      *this,
      shapes::inferGroupNorm(ctx.shape(getInput()), getNumGroups(),
                             {std::nullopt, std::nullopt, scale, bias},
                             getEpsilon().convertToDouble(), channelsLast),
      s);
}

int64_t GroupNormOp::getFlops() { return 6 * elementCount(getInput()); }

LogicalResult GroupNormOp::interpret(InterpreterEnv &env) {
  bool channelsLast = getLayout() == Layout::NHWC;
  Tensor raw = toChannelsFirst(env.get(getInput()), channelsLast);
  Tensor in = raw.castTo(floatCompute(raw.dtype()));
  int64_t n = in.dim(0), c = in.dim(1), g = getNumGroups();
  int64_t plane = product(ArrayRef<int64_t>(in.shape()).drop_front(2));
  int64_t params = std::max<int64_t>(c, 1);
  std::vector<double> scale = paramOr(env, getScale(), params, 1),
                      bias = paramOr(env, getBias(), params, 0);
  Tensor out(in.dtype(), in.shape());
  // Row r = (batch, group) spans c/g channels; its first channel is
  // (r % g) * c/g.
  int64_t perGroup = c / g;
  dispatchFloat(in.dtype(), [&](auto t) {
    using T = decltype(t);
    normalizeRows<T>(in.data<T>(), out.data<T>(), n * g, perGroup * plane,
                     getEpsilon().convertToDouble(), scale, bias,
                     std::max<int64_t>(plane, 1), perGroup);
  });
  env.set(getOutput(), fromChannelsFirst(out, channelsLast)
                           .castTo(resultDType(getOutput())));
  return success();
}
