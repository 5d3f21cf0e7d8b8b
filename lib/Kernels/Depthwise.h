//===- Depthwise.h - the per-ISA depthwise builds ---------------*- C++ -*-===//

#ifndef STRATA_LIB_KERNELS_DEPTHWISE_H
#define STRATA_LIB_KERNELS_DEPTHWISE_H

#include "strata/Kernels/Conv.h"

namespace strata::kernels::detail {
/// Depthwise planes [begin, end) (conv2dDepthwise); input channel planes
/// `xPlane` floats apart (H * W when they are contiguous).
#define STRATA_DECLARE_DEPTHWISE(name)                                         \
  int name(const Conv2dShape &s, const float *x, int64_t xPlane,               \
           const float *filter, const Epilogue &e, float *y, int64_t begin,    \
           int64_t end);
STRATA_DECLARE_DEPTHWISE(depthwisePortable)
STRATA_DECLARE_DEPTHWISE(depthwiseAvx2)
STRATA_DECLARE_DEPTHWISE(depthwiseAvx512)
#undef STRATA_DECLARE_DEPTHWISE

/// The largest K expandTilesAvx512 takes (at K = 64-96 the GEMM's
/// prefetching tiles were as fast), and the largest M * K (A: 64 KiB).
inline constexpr int64_t kExpandTilesMaxK = 48;
inline constexpr int64_t kExpandTilesMaxAFloats = 16384;
/// The fused inverted-residual block's expansion on AVX-512
/// (InvResExpandAvx512.cpp): c (m rows of ldc floats, n columns) = act(A *
/// B + bias) for A packed in 12-row panels of k (packA), B plain (k rows of
/// ldb floats; only its n columns are read), bias per row or null, `e`'s
/// activation None, Relu or Clip (p0, p1). Identical to gemm()'s result.
/// False, computing nothing, when m is not a multiple of 12, k is over
/// kExpandTilesMaxK, m * k over kExpandTilesMaxAFloats or the activation is
/// another one.
bool expandTilesAvx512(int64_t m, int64_t n, int64_t k, const float *a,
                       const float *b, int64_t ldb, const float *bias,
                       const Epilogue &e, float *c, int64_t ldc);

/// One strip of the fused inverted-residual block's 3x3 depthwise stage
/// (InvertedResidual.cpp): `outRows` x `ow` outputs per channel from padded
/// input rows, written straight into the projection GEMM's packed-B layout.
struct Dw3x3Strip {
  int64_t stride = 1; ///< 1 or 2 in both directions
  int64_t ow = 1, outRows = 1;
  /// Stride 2: floats from a row's start to its odd half (padded column 2i
  /// at i, 2i + 1 at half + i). Stride 1: row[ox + kx] is padded column
  /// ox + kx.
  int64_t half = 0;
  /// (outRows - 1) * stride + 3 row pointers of channel 0 and, per row, the
  /// floats from one channel's row to the next one's (0 for a zero row).
  const float *const *in = nullptr;
  const int64_t *inStep = nullptr;
  const float *filter = nullptr; ///< channels x 9
  Epilogue e;                    ///< PerRow bias (or none), activation
  float *stage = nullptr;        ///< outRows * ow + 32 floats of scratch
  /// Packed B of K = `k` rows (channels) and outRows * ow columns: 16-column
  /// panels of k x 16 floats; the last panel's extra columns are zeros.
  float *panels = nullptr;
  int64_t k = 0;
};
#define STRATA_DECLARE_DW_STRIP(name)                                          \
  void name(const Dw3x3Strip &a, int64_t begin, int64_t end);
STRATA_DECLARE_DW_STRIP(dwStripPortable)
STRATA_DECLARE_DW_STRIP(dwStripAvx2)
STRATA_DECLARE_DW_STRIP(dwStripAvx512)
#undef STRATA_DECLARE_DW_STRIP

/// Splits src[0, n) into even[i] = src[2i] and odd[i] = src[2i + 1].
#define STRATA_DECLARE_DEINTERLEAVE(name)                                      \
  void name(const float *src, int64_t n, float *even, float *odd);
STRATA_DECLARE_DEINTERLEAVE(deinterleavePortable)
STRATA_DECLARE_DEINTERLEAVE(deinterleaveAvx2)
STRATA_DECLARE_DEINTERLEAVE(deinterleaveAvx512)
#undef STRATA_DECLARE_DEINTERLEAVE
} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_DEPTHWISE_H
