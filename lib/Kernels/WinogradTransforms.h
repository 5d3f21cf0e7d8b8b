//===- WinogradTransforms.h - the per-ISA Winograd transforms ---*- C++ -*-===//

#ifndef STRATA_LIB_KERNELS_WINOGRADTRANSFORMS_H
#define STRATA_LIB_KERNELS_WINOGRADTRANSFORMS_H

#include "strata/Kernels/Winograd.h"

namespace strata::kernels::detail {

/// Where the transformed points' matrices are. F(m x m, 3x3): one group
/// per point, V[xi] C x ld and M[xi] O x ld, each followed by one cache
/// line (winogradMatrixStride). The stride-2 form's 25 points share 16
/// transformed filter matrices (its G has two equal rows, so points in rows
/// or columns 3 and 4 of the 5 x 5 tile meet the same U): the V matrices of
/// the points sharing one U are adjacent, one packed B of 1, 2 or 4 times
/// ld columns, and one GEMM per U writes their M side by side (row stride
/// count x ld).
struct WinogradLayout {
  int points = 0, groups = 0;
  /// Per point: the offsets of V and M, and M's row stride.
  int64_t vOff[36], mOff[36], mRow[36];
  /// Per group (= U matrix): the offsets of its V and M and its points.
  int64_t gV[36], gM[36], gCount[36];
  /// Floats of V and of M.
  int64_t vFloats = 0, mFloats = 0;
};

/// The distance between consecutive V[xi] (M[xi]) matrices: C x ld (O x ld)
/// plus one cache line, so that the transforms' (m+2)^2 accesses per tile
/// group, one per matrix, do not all fall in one L1 set when C x ld is a
/// multiple of 1024 floats (4 KiB; every ResNet-50 layer).
inline int64_t winogradMatrixStride(int64_t rows, int64_t ld) {
  return rows * ld + 16;
}

/// The layout for C input and O output channels, `ld` columns per point,
/// tile side m and the convolution's stride.
inline void winogradLayout(int64_t c, int64_t o, int64_t ld, int64_t m,
                           int64_t stride, WinogradLayout &l) {
  int64_t v = 0, mm = 0;
  if (stride != 2) {
    l.points = l.groups = int((m + 2) * (m + 2));
    for (int xi = 0; xi < l.points; ++xi) {
      l.vOff[xi] = l.gV[xi] = v;
      l.mOff[xi] = l.gM[xi] = mm;
      l.mRow[xi] = ld;
      l.gCount[xi] = 1;
      v += winogradMatrixStride(c, ld);
      mm += winogradMatrixStride(o, ld);
    }
  } else {
    l.points = 25;
    l.groups = 16;
    for (int g = 0; g < 16; ++g) {
      int gi = g / 4, gj = g % 4, ri = gi == 3 ? 2 : 1, rj = gj == 3 ? 2 : 1;
      l.gCount[g] = ri * rj;
      l.gV[g] = v;
      l.gM[g] = mm;
      for (int a = 0; a < ri; ++a)
        for (int q = 0; q < rj; ++q) {
          int xi = (gi + a) * 5 + gj + q, k = a * rj + q;
          l.vOff[xi] = v + k * c * ld;
          l.mOff[xi] = mm + k * ld;
          l.mRow[xi] = ri * rj * ld;
        }
      v += winogradMatrixStride(ri * rj * c, ld);
      mm += winogradMatrixStride(o, ri * rj * ld);
    }
  }
  l.vFloats = v;
  l.mFloats = mm;
}

/// One block of output tiles of one image: tiles [t0, t0 + nt) of the
/// image's tilesH x tilesW tiles of m x m outputs (row-major); V and M hold
/// the points' matrices (`layout`) of `ld` (nt rounded up to 16) columns,
/// V in the GEMM's packed-B layout (ld / 16 panels of C x 16), M row-major.
/// The output transform writes output channels [o0, o1).
struct WinogradBlock {
  int64_t tilesW, t0, nt, ld, o0, o1;
  int64_t m = kWinogradOut; ///< output tile side: 4 or 2
  const WinogradLayout *layout;
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
