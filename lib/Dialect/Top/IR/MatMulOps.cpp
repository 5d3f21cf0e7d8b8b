//===- MatMulOps.cpp - top.MatMul -----------------------------------------===//

#include "OpImpl.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// numpy-matmul geometry: batch shape, M, K, N and which operands were 1-d.
struct MatMulGeometry {
  SmallVector<int64_t> batch, lhsBatch, rhsBatch;
  int64_t m = 1, k = 1, n = 1;
  bool lhsVector = false, rhsVector = false;
  SmallVector<int64_t> outShape;
};

FailureOr<MatMulGeometry> matmulGeometry(MatMulOp op) {
  SmallVector<int64_t> a = shapeOf(op.getInput()), b = shapeOf(op.getRight());
  if (a.empty() || b.empty())
    return op.emitOpError() << "operands must have rank >= 1, got shapes "
                            << formatArray(a) << " and " << formatArray(b);
  MatMulGeometry g;
  if (op.getRightTranspose() && b.size() >= 2)
    std::swap(b[b.size() - 1], b[b.size() - 2]);
  if (a.size() == 1) {
    g.lhsVector = true;
    a.insert(a.begin(), 1);
  }
  if (b.size() == 1) {
    g.rhsVector = true;
    b.push_back(1);
  }
  g.m = a[a.size() - 2];
  g.k = a.back();
  g.n = b.back();
  if (b[b.size() - 2] != g.k)
    return op.emitOpError() << "contracting dims differ: input shape "
                            << formatArray(shapeOf(op.getInput()))
                            << " has K = " << g.k << ", right shape "
                            << formatArray(shapeOf(op.getRight()))
                            << (op.getRightTranspose() ? " (transposed)" : "")
                            << " has K = " << b[b.size() - 2];
  g.lhsBatch.assign(a.begin(), a.end() - 2);
  g.rhsBatch.assign(b.begin(), b.end() - 2);
  auto batch = broadcastShapes(op, g.lhsBatch, g.rhsBatch);
  if (failed(batch))
    return failure();
  g.batch = *batch;
  g.outShape = g.batch;
  if (!g.lhsVector)
    g.outShape.push_back(g.m);
  if (!g.rhsVector)
    g.outShape.push_back(g.n);
  return g;
}
} // namespace

LogicalResult MatMulOp::verify() { return verifyEpilogue(*this); }

LogicalResult MatMulOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto g = matmulGeometry(*this);
  if (failed(g))
    return failure();
  if (!isNone(getBias()) && hasStaticShape(getBias())) {
    SmallVector<int64_t> b = ctx.shape(getBias());
    int64_t n = 1;
    for (int64_t d : b)
      n *= d;
    if (n != g->n && n != 1)
      return emitOpError() << "bias must have 1 or " << g->n
                           << " elements (the output's last dim), got shape "
                           << formatArray(b);
  }
  s.push_back(g->outShape);
  return success();
}

int64_t MatMulOp::getFlops() {
  if (!hasStaticShape(getInput()) || !hasStaticShape(getRight()))
    return 0;
  auto g = matmulGeometry(*this);
  if (failed(g))
    return 0;
  int64_t batch = 1;
  for (int64_t d : g->batch)
    batch *= d;
  return batch * g->m * g->n * (2 * g->k + (isNone(getBias()) ? 0 : 1));
}

LogicalResult MatMulOp::interpret(InterpreterEnv &env) {
  auto g = matmulGeometry(*this);
  if (failed(g))
    return failure();
  Tensor a = toCompute(env.get(getInput()));
  Tensor b = toCompute(env.get(getRight())).castTo(a.dtype());
  int64_t M = g->m, N = g->n, K = g->k;
  int64_t batch = 1;
  for (int64_t d : g->batch)
    batch *= d;
  SmallVector<int64_t> outFull = g->batch;
  outFull.push_back(M);
  outFull.push_back(N);
  Tensor out(a.dtype(), std::vector<int64_t>(outFull.begin(), outFull.end()));
  SmallVector<int64_t> aStr = broadcastStrides(g->lhsBatch, g->batch);
  SmallVector<int64_t> bStr = broadcastStrides(g->rhsBatch, g->batch);
  bool transB = getRightTranspose() && env.get(getRight()).rank() >= 2;
  for (int64_t i = 0; i < batch; ++i) {
    int64_t rem = i, aOff = 0, bOff = 0;
    for (int64_t d = static_cast<int64_t>(g->batch.size()) - 1; d >= 0; --d) {
      int64_t idx = rem % g->batch[d];
      rem /= g->batch[d];
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
