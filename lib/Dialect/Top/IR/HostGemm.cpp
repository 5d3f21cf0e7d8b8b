//===- HostGemm.cpp - the reference interpreter's f32 matrix product ------===//
//
// Conv (im2col), MatMul and the recurrent ops of the golden model multiply
// matrices here. The golden model stays simple and obviously right: the
// product is Eigen's, a well-kept library, not a hand-tuned kernel (the fast
// kernels belong to the CPU target).
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"

#include <Eigen/Core>

namespace strata::top::impl {

void gemmF32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
             const float *B, int64_t ldb, float *C, int64_t ldc,
             bool accumulate) {
  using Matrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  Eigen::Map<const Matrix, 0, Stride> a(A, M, K, Stride(lda));
  Eigen::Map<const Matrix, 0, Stride> b(B, K, N, Stride(ldb));
  Eigen::Map<Matrix, 0, Stride> c(C, M, N, Stride(ldc));
  if (accumulate)
    c.noalias() += a * b;
  else
    c.noalias() = a * b;
}

} // namespace strata::top::impl
