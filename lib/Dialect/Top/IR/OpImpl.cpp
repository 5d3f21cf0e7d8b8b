//===- OpImpl.cpp - helpers for implementing Top ops ----------------------===//

#include "OpImpl.h"

#include <algorithm>

using namespace mlir;

namespace strata::top::impl {

LogicalResult checkArrayAttr(Operation *op, StringRef name,
                             ArrayRef<int64_t> values, size_t size,
                             int64_t minValue) {
  if (values.size() != size)
    return op->emitOpError() << "attribute '" << name << "' must have " << size
                             << " values, got " << values.size() << " "
                             << formatArray(values);
  for (auto [i, v] : llvm::enumerate(values))
    if (v < minValue)
      return op->emitOpError()
             << "attribute '" << name << "' value " << v << " at index " << i
             << " must be >= " << minValue << " (got " << formatArray(values)
             << ")";
  return success();
}

DType computeType(DType type) {
  if (type == DType::F64)
    return DType::F64;
  if (isFloat(type))
    return DType::F32;
  return DType::I64;
}

Tensor toCompute(const Tensor &t) { return t.castTo(computeType(t.dtype())); }

DType resultDType(Value result) { return *dtypeOfValue(result); }

std::vector<int64_t> resultShape(Value result) {
  auto s = cast<RankedTensorType>(result.getType()).getShape();
  return std::vector<int64_t>(s.begin(), s.end());
}

void applyRelu(Tensor &t, double limit) {
  int64_t n = t.numElements();
  if (t.dtype() == DType::F32) {
    float *p = t.data<float>();
    float lim = static_cast<float>(limit);
    for (int64_t i = 0; i < n; ++i) {
      float v = p[i] > 0.f ? p[i] : 0.f;
      p[i] = (limit >= 0 && v > lim) ? lim : v;
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    double v = std::max(t.getAsDouble(i), 0.0);
    if (limit >= 0)
      v = std::min(v, limit);
    t.setFromDouble(i, v);
  }
}

SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> outShape) {
  size_t rank = outShape.size(), off = rank - shape.size();
  SmallVector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    strides[i + off] = shape[i] == 1 ? 0 : s;
    s *= shape[i];
  }
  return strides;
}

void forEachBroadcast(ArrayRef<int64_t> outShape, ArrayRef<int64_t> lhsShape,
                      ArrayRef<int64_t> rhsShape,
                      const std::function<void(int64_t, int64_t, int64_t)> &fn) {
  size_t rank = outShape.size();
  int64_t total = 1;
  for (int64_t d : outShape)
    total *= d;
  if (total == 0)
    return;
  SmallVector<int64_t> ls = broadcastStrides(lhsShape, outShape);
  SmallVector<int64_t> rs = broadcastStrides(rhsShape, outShape);
  if (rank == 0) {
    fn(0, 0, 0);
    return;
  }
  // Iterate the innermost dim in a tight loop, the others with a counter.
  SmallVector<int64_t> idx(rank, 0);
  int64_t inner = outShape[rank - 1];
  int64_t li = 0, ri = 0, oi = 0;
  while (true) {
    for (int64_t k = 0; k < inner; ++k)
      fn(oi + k, li + k * ls[rank - 1], ri + k * rs[rank - 1]);
    oi += inner;
    int64_t d = static_cast<int64_t>(rank) - 2;
    for (; d >= 0; --d) {
      ++idx[d];
      li += ls[d];
      ri += rs[d];
      if (idx[d] < outShape[d])
        break;
      li -= ls[d] * idx[d];
      ri -= rs[d] * idx[d];
      idx[d] = 0;
    }
    if (d < 0)
      break;
  }
}

void gemmF32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
             const float *B, int64_t ldb, float *C, int64_t ldc,
             bool accumulate) {
  if (!accumulate)
    for (int64_t i = 0; i < M; ++i)
      std::fill(C + i * ldc, C + i * ldc + N, 0.f);
  // Blocked i-k-j loop: the j loop is contiguous in B and C and vectorizes.
  constexpr int64_t kBlockK = 256, kBlockN = 512;
  for (int64_t k0 = 0; k0 < K; k0 += kBlockK) {
    int64_t k1 = std::min(K, k0 + kBlockK);
    for (int64_t j0 = 0; j0 < N; j0 += kBlockN) {
      int64_t j1 = std::min(N, j0 + kBlockN);
      for (int64_t i = 0; i < M; ++i) {
        float *c = C + i * ldc;
        for (int64_t k = k0; k < k1; ++k) {
          float a = A[i * lda + k];
          const float *b = B + k * ldb;
          for (int64_t j = j0; j < j1; ++j)
            c[j] += a * b[j];
        }
      }
    }
  }
}

Tensor mapUnary(const Tensor &input, DType outType,
                const std::function<double(double)> &fn) {
  Tensor out(outType, input.shape());
  int64_t n = input.numElements();
  if (input.dtype() == DType::F32 && outType == DType::F32) {
    const float *in = input.data<float>();
    float *o = out.data<float>();
    for (int64_t i = 0; i < n; ++i)
      o[i] = static_cast<float>(fn(in[i]));
    return out;
  }
  for (int64_t i = 0; i < n; ++i)
    out.setFromDouble(i, fn(input.getAsDouble(i)));
  return out;
}

} // namespace strata::top::impl
