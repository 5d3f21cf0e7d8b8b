//===- WinogradTransforms.h - the per-ISA Winograd transforms ---*- C++ -*-===//

#ifndef STRATA_LIB_KERNELS_WINOGRADTRANSFORMS_H
#define STRATA_LIB_KERNELS_WINOGRADTRANSFORMS_H

#include "strata/Kernels/Winograd.h"

namespace strata::kernels::detail {

/// One block of output tiles of one image: tiles [t0, t0 + nt) of the
/// image's tilesH x tilesW tiles of m x m outputs (row-major); V and M hold
/// (m+2)^2 matrices of `ld` (nt rounded up to 16) columns, V[xi] C x ld in
/// the GEMM's packed-B layout (ld / 16 panels of C x 16), M[xi] O x ld
/// row-major. The output transform writes output channels [o0, o1).
struct WinogradBlock {
  int64_t tilesW, t0, nt, ld, o0, o1;
  int64_t m = kWinogradOut; ///< output tile side: 4 or 2
  /// Floats from V[xi] to V[xi + 1] and from M[xi] to M[xi + 1].
  int64_t vStride, mStride;
  /// The convolution's stride: 1, or 2 (m = 2, 5 x 5 input tiles 4 apart).
  int64_t stride = 1;
};

/// Input rows / columns between neighbouring tiles, and the input tile side.
inline int64_t winogradTileStep(const WinogradBlock &b) {
  return b.m * b.stride;
}
inline int64_t winogradTileIn(const WinogradBlock &b) {
  return b.stride == 2 ? 5 : b.m + 2;
}

/// The distance between consecutive V[xi] (M[xi]) matrices: C x ld (O x ld)
/// plus one cache line, so that the transforms' (m+2)^2 accesses per tile
/// group, one per matrix, do not all fall in one L1 set when C x ld is a
/// multiple of 1024 floats (4 KiB; every ResNet-50 layer).
inline int64_t winogradMatrixStride(int64_t rows, int64_t ld) {
  return rows * ld + 16;
}

/// The zero-padded input strip the input transform reads one channel at a
/// time: the rows of the block's tile rows, the columns of every tile.
inline int64_t winogradStripRows(const WinogradBlock &b) {
  int64_t ty0 = b.t0 / b.tilesW, ty1 = (b.t0 + b.nt - 1) / b.tilesW;
  return (ty1 - ty0) * winogradTileStep(b) + winogradTileIn(b);
}
inline int64_t winogradStripStride(const WinogradBlock &b) {
  return (b.tilesW - 1) * winogradTileStep(b) + winogradTileIn(b);
}

#define STRATA_DECLARE_WINOGRAD(suffix)                                        \
  void winogradInput##suffix(const Conv2dShape &s, const WinogradBlock &b,     \
                             const float *x, float *v, float *strip);          \
  void winogradOutput##suffix(const Conv2dShape &s, const WinogradBlock &b,    \
                              const float *m, const Epilogue &e, float *y);
STRATA_DECLARE_WINOGRAD(Portable)
STRATA_DECLARE_WINOGRAD(Avx2)
STRATA_DECLARE_WINOGRAD(Avx512)
#undef STRATA_DECLARE_WINOGRAD

} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_WINOGRADTRANSFORMS_H
