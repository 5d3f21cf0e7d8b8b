//===- OpKernelsIsa.h - the per-ISA builds of OpKernelsImpl.inc -*- C++ -*-===//

#ifndef STRATA_LIB_KERNELS_OPKERNELSISA_H
#define STRATA_LIB_KERNELS_OPKERNELSISA_H

#include "strata/Kernels/OpKernels.h"

namespace strata::kernels::detail {
/// One output coordinate's samples: indices (clamped to the input) and
/// weights; nearest uses i0 only (w0 = 1, w1 = 0).
struct ResizeTap {
  int32_t i0, i1;
  float w0, w1;
};
} // namespace strata::kernels::detail

/// The entry points each ISA build defines (OpKernelsImpl.inc).
#define STRATA_OPK_DECLS                                                       \
  void binary(BinaryOp op, const BinaryShape &s, const float *a,               \
              const float *b, float *out, PostClamp clamp, float limit,        \
              int64_t begin, int64_t end);                                     \
  void softmax(const float *x, float *y, int64_t cols, int64_t rowBegin,       \
               int64_t rowEnd);                                                \
  void layerNorm(const float *x, const float *scale, const float *bias,        \
                 float *y, int64_t cols, float eps, int64_t rowBegin,          \
                 int64_t rowEnd);                                              \
  bool pool(bool isMax, const Pool2dShape &s, bool countIncludePad,            \
            const float *x, float *y, PostClamp clamp, float limit,            \
            int64_t begin, int64_t end);                                       \
  void globalAvg(const float *x, float *y, int64_t hw, PostClamp clamp,        \
                 float limit, int64_t begin, int64_t end);                     \
  void unary(UnaryOp op, const float *x, float *y, int64_t n, float p0,        \
             float p1);                                                        \
  void resizeRow(const ResizeTap &ty, const float *plane, int64_t w,           \
                 const ResizeTap *tx, int64_t ow, bool nearest, float *tmp,    \
                 float *out);

namespace strata::kernels::detail {
namespace opk_portable {
STRATA_OPK_DECLS
}
namespace opk_avx2 {
STRATA_OPK_DECLS
}
namespace opk_avx512 {
STRATA_OPK_DECLS
}
} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_OPKERNELSISA_H
