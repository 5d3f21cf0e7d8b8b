//===- MatMulOps.cpp - top.MatMul -----------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/MatMulShapes.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

LogicalResult MatMulOp::verify() { return verifyEpilogue(*this); }

LogicalResult MatMulOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  OptionalShape bias(ctx, getBias());
  return appendShape(*this,
                     shapes::inferMatMul(ctx.shape(getInput()),
                                         ctx.shape(getRight()), bias,
                                         getRightTranspose()),
                     s);
}

int64_t MatMulOp::getFlops() {
  if (!hasStaticShape(getInput()) || !hasStaticShape(getRight()))
    return 0;
  ShapeOr<shapes::MatMulGeometry> g = shapes::matmulGeometry(
      shapeOf(getInput()), shapeOf(getRight()), getRightTranspose());
  if (!g)
    return 0;
  int64_t batch = 1;
  for (int64_t d : g->batch)
    batch *= d;
  return batch * g->m * g->n * (2 * g->k + (isNone(getBias()) ? 0 : 1));
}

LogicalResult MatMulOp::interpret(InterpreterEnv &env) {
  const Tensor &lhs = env.get(getInput()), &rhs = env.get(getRight());
  // The shape rule has accepted these shapes before the op runs.
  shapes::MatMulGeometry g =
      *shapes::matmulGeometry(lhs.shape(), rhs.shape(), getRightTranspose());
  Tensor a = toCompute(lhs);
  Tensor b = toCompute(rhs).castTo(a.dtype());
  int64_t M = g.m, N = g.n, K = g.k;
  int64_t batch = 1;
  for (int64_t d : g.batch)
    batch *= d;
  std::vector<int64_t> outFull = g.batch;
  outFull.push_back(M);
  outFull.push_back(N);
  Tensor out(a.dtype(), outFull);
  SmallVector<int64_t> aStr = broadcastStrides(g.lhsBatch, g.batch);
  SmallVector<int64_t> bStr = broadcastStrides(g.rhsBatch, g.batch);
  bool transB = getRightTranspose() && rhs.rank() >= 2;
  for (int64_t i = 0; i < batch; ++i) {
    int64_t rem = i, aOff = 0, bOff = 0;
    for (int64_t d = static_cast<int64_t>(g.batch.size()) - 1; d >= 0; --d) {
      int64_t idx = rem % g.batch[d];
      rem /= g.batch[d];
      aOff += idx * aStr[d];
      bOff += idx * bStr[d];
    }
    aOff *= M * K;
    bOff *= K * N;
    int64_t cOff = i * M * N;
    if (a.dtype() == DType::F32 && !transB) {
      gemmF32(M, N, K, a.data<float>() + aOff, K, b.data<float>() + bOff, N,
              out.data<float>() + cOff, N, false);
      continue;
    }
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        int64_t accInt = 0;
        for (int64_t k = 0; k < K; ++k) {
          int64_t bi = bOff + (transB ? n * K + k : k * N + n);
          if (a.dtype() == DType::I64)
            accInt += a.data<int64_t>()[aOff + m * K + k] * b.data<int64_t>()[bi];
          else
            acc += a.getAsDouble(aOff + m * K + k) * b.getAsDouble(bi);
        }
        if (a.dtype() == DType::I64)
          out.data<int64_t>()[cOff + m * N + n] = accInt;
        else
          out.setFromDouble(cOff + m * N + n, acc);
      }
  }
  if (!isNone(getBias())) {
    Tensor bias = toCompute(env.get(getBias())).castTo(out.dtype());
    bool scalar = bias.numElements() == 1;
    for (int64_t i = 0; i < out.numElements(); ++i)
      out.setFromDouble(i, out.getAsDouble(i) +
                               bias.getAsDouble(scalar ? 0 : i % N));
  }
  applyEpilogue(*this, out);
  env.set(getOutput(), out.reshaped(env.resultShape(getOutput()))
                           .castTo(resultDType(getOutput())));
  return success();
}
