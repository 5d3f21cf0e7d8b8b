//===- PoolOps.cpp - top.MaxPool, top.AvgPool, top.GlobalAvgPool ----------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/PoolShapes.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
template <typename PoolOp> SmallVector<int64_t> stridesOrDefault(PoolOp op) {
  if (auto s = op.getStrides())
    return SmallVector<int64_t>(*s);
  return SmallVector<int64_t>(op.getKernelShape().size(), 1);
}
template <typename PoolOp> SmallVector<int64_t> dilationsOrDefault(PoolOp op) {
  if (auto s = op.getDilations())
    return SmallVector<int64_t>(*s);
  return SmallVector<int64_t>(op.getKernelShape().size(), 1);
}
template <typename PoolOp> SmallVector<int64_t> padsOrDefault(PoolOp op) {
  if (auto s = op.getPads())
    return SmallVector<int64_t>(*s);
  return SmallVector<int64_t>(2 * op.getKernelShape().size(), 0);
}

template <typename PoolOp>
LogicalResult inferPoolShape(PoolOp op, const ShapeContext &ctx,
                             SmallVectorImpl<SmallVector<int64_t>> &s) {
  bool channelsLast = op.getLayout() == Layout::NHWC;
  SmallVector<int64_t> strides = op.getStridesOrDefault(),
                       dilations = op.getDilationsOrDefault(),
                       pads = op.getPadsOrDefault();
  shapes::WindowAttrs window{op.getKernelShape(), strides, dilations, pads};
  return appendShape(op,
                     shapes::inferPool(ctx.shape(op.getInput()), window,
                                       op.getCeilMode(), channelsLast),
                     s);
}

/// Shared N-d pooling loop. `isMax` selects max; otherwise average.
template <typename PoolOp>
Tensor poolCompute(PoolOp op, const InterpreterEnv &env, const Tensor &input,
                   bool isMax) {
  // NHWC runs as NCHW between two transposes.
  bool channelsLast = op.getLayout() == Layout::NHWC;
  Tensor in = toCompute(toChannelsFirst(input, channelsLast))
                  .castTo(isFloat(input.dtype()) ? computeType(input.dtype())
                                                 : DType::F64);
  SmallVector<int64_t> outDims =
      toChannelsFirst(env.resultShape(op.getOutput()), channelsLast);
  std::vector<int64_t> outShape(outDims.begin(), outDims.end());
  Tensor out(in.dtype(), outShape);
  int64_t r = in.rank() - 2;
  ArrayRef<int64_t> kernel = op.getKernelShape();
  SmallVector<int64_t> strides = op.getStridesOrDefault(),
                       dil = op.getDilationsOrDefault(),
                       pads = op.getPadsOrDefault();
  int64_t planes = in.dim(0) * in.dim(1);
  int64_t inPlane = 1, outPlane = 1, kn = 1;
  for (int64_t d = 0; d < r; ++d) {
    inPlane *= in.dim(d + 2);
    outPlane *= outShape[d + 2];
    kn *= kernel[d];
  }
  SmallVector<int64_t> oIdx(r), kIdx(r);
  for (int64_t pl = 0; pl < planes; ++pl) {
    for (int64_t p = 0; p < outPlane; ++p) {
      int64_t rem = p;
      for (int64_t d = r - 1; d >= 0; --d) {
        oIdx[d] = rem % outShape[d + 2];
        rem /= outShape[d + 2];
      }
      double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
      int64_t count = 0, padCount = 0;
      for (int64_t k = 0; k < kn; ++k) {
        int64_t krem = k, off = 0;
        bool inside = true, inPadded = true;
        for (int64_t d = r - 1; d >= 0; --d) {
          kIdx[d] = krem % kernel[d];
          krem /= kernel[d];
        }
        int64_t stride = 1;
        for (int64_t d = r - 1; d >= 0; --d) {
          int64_t x = oIdx[d] * strides[d] + kIdx[d] * dil[d] - pads[d];
          if (x < 0 || x >= in.dim(d + 2))
            inside = false;
          if (x < -pads[d] || x >= in.dim(d + 2) + pads[d + r])
            inPadded = false;
          off += x * stride;
          stride *= in.dim(d + 2);
        }
        if (inPadded)
          ++padCount;
        if (!inside)
          continue;
        double v = in.getAsDouble(pl * inPlane + off);
        ++count;
        if (isMax)
          acc = (v > acc || std::isnan(v)) ? v : acc;
        else
          acc += v;
      }
      if (!isMax) {
        int64_t div = op.getCountIncludePad() ? padCount : count;
        acc = div ? acc / static_cast<double>(div) : 0.0;
      }
      out.setFromDouble(pl * outPlane + p, acc);
    }
  }
  if (op.getDoRelu())
    applyRelu(out, op.getReluLimit().convertToDouble());
  return fromChannelsFirst(out, channelsLast)
      .castTo(resultDType(op.getOutput()));
}

template <typename PoolOp> int64_t poolFlops(PoolOp op) {
  auto t = cast<ShapedType>(op.getOutput().getType());
  if (!t.hasStaticShape())
    return 0;
  int64_t kn = 1;
  for (int64_t k : op.getKernelShape())
    kn *= k;
  return t.getNumElements() * kn;
}
} // namespace

#define STRATA_POOL_DEFAULTS(OP)                                               \
  SmallVector<int64_t> OP::getStridesOrDefault() {                             \
    return stridesOrDefault(*this);                                            \
  }                                                                            \
  SmallVector<int64_t> OP::getDilationsOrDefault() {                           \
    return dilationsOrDefault(*this);                                          \
  }                                                                            \
  SmallVector<int64_t> OP::getPadsOrDefault() { return padsOrDefault(*this); } \
  LogicalResult OP::inferShapes(const ShapeContext &ctx,                       \
                                SmallVectorImpl<SmallVector<int64_t>> &s) {    \
    return inferPoolShape(*this, ctx, s);                                      \
  }                                                                            \
  int64_t OP::getFlops() { return poolFlops(*this); }

STRATA_POOL_DEFAULTS(MaxPoolOp)
STRATA_POOL_DEFAULTS(AvgPoolOp)
#undef STRATA_POOL_DEFAULTS

LogicalResult MaxPoolOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(), poolCompute(*this, env, env.get(getInput()), true));
  return success();
}

LogicalResult AvgPoolOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(), poolCompute(*this, env, env.get(getInput()), false));
  return success();
}

//===----------------------------------------------------------------------===//
// GlobalAvgPoolOp
//===----------------------------------------------------------------------===//

LogicalResult
GlobalAvgPoolOp::inferShapes(const ShapeContext &ctx,
                             SmallVectorImpl<SmallVector<int64_t>> &s) {
  bool channelsLast = getLayout() == Layout::NHWC;
  return appendShape(
      *this, shapes::inferGlobalAvgPool(ctx.shape(getInput()), channelsLast),
      s);
}

int64_t GlobalAvgPoolOp::getFlops() {
  auto t = cast<ShapedType>(getInput().getType());
  return t.hasStaticShape() ? t.getNumElements() : 0;
}

LogicalResult GlobalAvgPoolOp::interpret(InterpreterEnv &env) {
  bool channelsLast = getLayout() == Layout::NHWC;
  Tensor in = toCompute(toChannelsFirst(env.get(getInput()), channelsLast));
  int64_t planes = in.dim(0) * in.dim(1);
  int64_t plane = planes ? in.numElements() / planes : 0;
  SmallVector<int64_t> outDims =
      toChannelsFirst(env.resultShape(getOutput()), channelsLast);
  Tensor out(DType::F64, std::vector<int64_t>(outDims.begin(), outDims.end()));
  for (int64_t p = 0; p < planes; ++p) {
    double acc = 0;
    for (int64_t i = 0; i < plane; ++i)
      acc += in.getAsDouble(p * plane + i);
    out.data<double>()[p] = plane ? acc / static_cast<double>(plane) : 0.0;
  }
  env.set(getOutput(), fromChannelsFirst(out, channelsLast)
                           .castTo(resultDType(getOutput())));
  return success();
}
