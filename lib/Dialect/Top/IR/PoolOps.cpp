//===- PoolOps.cpp - top.MaxPool, top.AvgPool, top.GlobalAvgPool ----------===//

#include "OpImpl.h"

#include "llvm/Support/MathExtras.h"

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
LogicalResult inferPoolShape(PoolOp op, SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto channelsLast = checkLayout(op, op.getLayout());
  if (failed(channelsLast))
    return failure();
  SmallVector<int64_t> in = toChannelsFirst(shapeOf(op.getInput()), *channelsLast);
  if (in.size() < 3 || in.size() > 5)
    return op.emitOpError() << "input must have rank 3 to 5 (N, C, 1-3 "
                               "spatial dims), got shape "
                            << formatArray(in);
  size_t r = in.size() - 2;
  ArrayRef<int64_t> kernel = op.getKernelShape();
  SmallVector<int64_t> strides = op.getStridesOrDefault(),
                       dil = op.getDilationsOrDefault(),
                       pads = op.getPadsOrDefault();
  if (failed(checkArrayAttr(op, "kernel_shape", kernel, r, 1)) ||
      failed(checkArrayAttr(op, "strides", strides, r, 1)) ||
      failed(checkArrayAttr(op, "dilations", dil, r, 1)) ||
      failed(checkArrayAttr(op, "pads", pads, 2 * r, 0)))
    return failure();
  SmallVector<int64_t> out{in[0], in[1]};
  for (size_t d = 0; d < r; ++d) {
    auto window = windowExtent(op, d, in[d + 2], kernel[d], dil[d], pads[d],
                               pads[d + r]);
    if (failed(window))
      return failure();
    auto [ext, padded] = *window;
    if (pads[d] >= ext || pads[d + r] >= ext)
      return op.emitOpError() << "pads " << formatArray(pads)
                              << " must be smaller than the effective kernel "
                              << ext << " in spatial dim " << d;
    if (padded < ext)
      return op.emitOpError() << "effective kernel size " << ext
                              << " exceeds padded input size " << padded
                              << " in spatial dim " << d;
    int64_t span = padded - ext;
    bool roundUp = op.getCeilMode() && span % strides[d] != 0;
    int64_t o = span / strides[d] + (roundUp ? 1 : 0) + 1;
    // A window must start inside the input or its begin padding.
    int64_t lastStart;
    if (op.getCeilMode() &&
        (llvm::MulOverflow(o - 1, strides[d], lastStart) ||
         lastStart >= in[d + 2] + pads[d]))
      --o;
    out.push_back(o);
  }
  s.push_back(fromChannelsFirst(out, *channelsLast));
  return success();
}

/// Shared N-d pooling loop. `isMax` selects max; otherwise average.
template <typename PoolOp>
Tensor poolCompute(PoolOp op, const InterpreterEnv &env, const Tensor &input,
                   bool isMax) {
  // NHWC runs as NCHW between two transposes.
  bool channelsLast = op.getLayout() == kLayoutNHWC;
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
  LogicalResult OP::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {    \
    return inferPoolShape(*this, s);                                           \
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
GlobalAvgPoolOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto channelsLast = checkLayout(*this, getLayout());
  if (failed(channelsLast))
    return failure();
  SmallVector<int64_t> in = toChannelsFirst(ctx.shape(getInput()), *channelsLast);
  if (in.size() < 3)
    return emitOpError() << "input must have rank >= 3 (N, C, spatial...), "
                            "got shape "
                         << formatArray(in);
  SmallVector<int64_t> out(in.size(), 1);
  out[0] = in[0];
  out[1] = in[1];
  s.push_back(fromChannelsFirst(out, *channelsLast));
  return success();
}

int64_t GlobalAvgPoolOp::getFlops() {
  auto t = cast<ShapedType>(getInput().getType());
  return t.hasStaticShape() ? t.getNumElements() : 0;
}

LogicalResult GlobalAvgPoolOp::interpret(InterpreterEnv &env) {
  bool channelsLast = getLayout() == kLayoutNHWC;
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
