//===- LinalgOps.cpp - determinant and local response normalization -------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/LinalgShapes.h"

#include <cmath>
#include <utility>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

//===----------------------------------------------------------------------===//
// Det
//===----------------------------------------------------------------------===//

LogicalResult DetOp::verify() {
  if (failed(checkElementKind(*this, "operand 'input'", getInput(),
                              kFloatElements)))
    return failure();
  return checkSameElementType(*this, "operand 'input'", getInput(), "result",
                              getOutput());
}

LogicalResult DetOp::inferShapes(const ShapeContext &ctx,
                                 SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this, shapes::inferDet(ctx.shape(getInput())), s);
}

int64_t DetOp::getFlops() {
  if (!hasStaticShape(getInput()))
    return 0;
  SmallVector<int64_t> in = shapeOf(getInput());
  int64_t m = in.back();
  return elementwiseFlops(getOutput(), (2 * m * m * m + 2) / 3);
}

/// The determinant of the row-major `m x m` matrix `a` (overwritten) by
/// Gaussian elimination with partial pivoting.
static double determinant(double *a, int64_t m) {
  double det = 1.0;
  for (int64_t k = 0; k < m; ++k) {
    int64_t pivot = k;
    for (int64_t r = k + 1; r < m; ++r)
      if (std::abs(a[r * m + k]) > std::abs(a[pivot * m + k]))
        pivot = r;
    if (a[pivot * m + k] == 0.0)
      return 0.0;
    if (pivot != k) {
      for (int64_t c = 0; c < m; ++c)
        std::swap(a[k * m + c], a[pivot * m + c]);
      det = -det;
    }
    double p = a[k * m + k];
    det *= p;
    for (int64_t r = k + 1; r < m; ++r) {
      double f = a[r * m + k] / p;
      for (int64_t c = k + 1; c < m; ++c)
        a[r * m + c] -= f * a[k * m + c];
    }
  }
  return det;
}

LogicalResult DetOp::interpret(InterpreterEnv &env) {
  Tensor in = env.get(getInput()).castTo(DType::F64).clone();
  int64_t m = in.shape().back();
  Tensor out(DType::F64, env.resultShape(getOutput()));
  for (int64_t b = 0, n = out.numElements(); b < n; ++b)
    out.data<double>()[b] = determinant(in.data<double>() + b * m * m, m);
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

LogicalResult LRNOp::verify() {
  if (failed(checkElementKind(*this, "operand 'input'", getInput(),
                              kFloatElements)) ||
      failed(checkSameElementType(*this, "operand 'input'", getInput(),
                                  "result", getOutput())))
    return failure();
  int64_t size = getSize();
  if (size < 1)
    return emitOpError() << "attribute 'size' = " << size << " must be >= 1";
  return success();
}

LogicalResult LRNOp::inferShapes(const ShapeContext &ctx,
                                 SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this, shapes::inferLRN(ctx.shape(getInput())), s);
}

int64_t LRNOp::getFlops() {
  int64_t size = getSize();
  return elementwiseFlops(getOutput(), size > INT32_MAX ? 0 : size + 4);
}

LogicalResult LRNOp::interpret(InterpreterEnv &env) {
  Tensor in = toCompute(env.get(getInput()));
  const std::vector<int64_t> &shape = in.shape();
  int64_t batch = shape[0], channels = shape[1];
  int64_t inner = in.numElements() / std::max<int64_t>(1, batch * channels);
  int64_t size = getSize();
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  double alpha = getAlpha().convertToDouble();
  double beta = getBeta().convertToDouble();
  double bias = getBias().convertToDouble();
  Tensor out(in.dtype(), shape);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      int64_t lo = std::max<int64_t>(0, c - before);
      int64_t hi =
          std::min<int64_t>(channels - 1, c + std::min(after, channels));
      for (int64_t i = 0; i < inner; ++i) {
        double sum = 0;
        for (int64_t k = lo; k <= hi; ++k) {
          double v = in.getAsDouble((n * channels + k) * inner + i);
          sum += v * v;
        }
        int64_t idx = (n * channels + c) * inner + i;
        out.setFromDouble(idx, in.getAsDouble(idx) /
                                   std::pow(bias + alpha / size * sum, beta));
      }
    }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}
