//===- Winograd.h - f32 Winograd F(4x4, 3x3) / F(2x2, 3x3) -------*- C++
//-*-===//
//
// 3x3, stride 1, dilation 1, group 1 NCHW convolutions as Winograd
// F(m x m, 3x3), m = 4 (Lavin & Gray's transforms, interpolation points 0,
// +-1, +-2, infinity) or, on small outputs, m = 2 (points 0, +-1,
// infinity): each (m+2)^2 input tile d and 3x3 filter g give the m x m
// output tile A^T [(G g G^T) . (B^T d B)] A. Per image and block of
// `tileHw` output tiles: the input transform writes V[(m+2)^2][C][tiles],
// (m+2)^2 GEMMs (the kernel library's, lib/Kernels/Gemm.cpp) compute
// M[xi] = U[xi] (O x C) * V[xi], and the output transform applies the fused
// epilogue (bias, activation) while it writes the m x m tiles. The
// transforms run on 16 tiles at once (AVX-512, AVX2 or portable builds).
// The filter transform U, packed as (m+2)^2 GEMM A operands, is done once at
// compile time for a constant filter. The tile size m is a function of the
// shape (winogradTileOut), so the compiler and the runtime agree on it
// without a parameter.
//
// Stride 2 (both ways) has its own form: per axis, the even inputs and taps
// as F(2, 2) (points 0, 1, infinity) plus the odd tap once per output, so a
// 2x2 output tile comes from a 5x5 input tile (tiles 4 apart) through 25
// points (36 direct multiplications), transforms of 0 and +-1 only. The 25
// points share 16 transformed filter matrices (docs/cpu-kernels.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_WINOGRAD_H
#define STRATA_KERNELS_WINOGRAD_H

#include "strata/Kernels/Conv.h"

#include <string>

namespace strata::kernels {

/// Output tiles per side and input tile size of F(4x4, 3x3).
inline constexpr int64_t kWinogradOut = 4, kWinogradIn = 6;
/// Output tile side of the small variant, F(2x2, 3x3).
inline constexpr int64_t kWinogradOutSmall = 2;
/// The largest number of tiles per block (the tile_hw schedule parameter).
inline constexpr int64_t kWinogradMaxBlockTiles = 1024;

/// Empty when the Winograd kernel takes `s` (checkConv2dShape holds, 3x3
/// kernel, stride 1 or 2 (the same both ways), dilation 1, group 1), else
/// why not.
std::string checkWinogradShape(const Conv2dShape &s);

/// The output tile side the kernel uses for `s` by default: the one with
/// less GEMM work, (m+2)^2 points times the tiles per image rounded up to
/// the microkernel's 16 columns (ties: 4). For square outputs: F(2x2) up
/// to 10x10 (ResNet-50's 7x7 layers: 4 tiles of 4x4 leave the 36 GEMMs 4
/// columns wide, 16 tiles of 2x2 fill one 16-column panel of 16 GEMMs),
/// F(4x4) from 11x11 on; measured in bench/kernels/WinogradBench.cpp.
int64_t winogradTileOut(const Conv2dShape &s);

/// Bytes of the transformed, packed filter for tile side `m` (0 on
/// overflow, and for stride 2 with m != 2); the one-argument form uses
/// winogradTileOut(s) (always 2 at stride 2).
uint64_t winogradFilterBytes(const Conv2dShape &s, int64_t m);
uint64_t winogradFilterBytes(const Conv2dShape &s);
/// Transforms the OIHW filter into `dst` (winogradFilterBytes bytes) for
/// tile side `m` (default winogradTileOut(s)).
void winogradTransformFilter(const Conv2dShape &s, const float *filter,
                             float *dst, int64_t m);
void winogradTransformFilter(const Conv2dShape &s, const float *filter,
                             float *dst);

/// How the work splits into units: (image, block of `blockTiles` output
/// tiles, chunk of output channels); with `shareTiles`, an image's tiles
/// first split in shares of that many tiles, each share in blocks of at
/// most `blockTiles` (the last one shorter).
struct WinogradSplit {
  int64_t blockTiles = 32; ///< the schedule parameter tile_hw
  int64_t oChunks = 1;     ///< each chunk redoes the block's input transform
  int64_t tileOut = 4;     ///< m: 4 (F(4x4, 3x3)) or 2 (F(2x2, 3x3))
  int64_t shareTiles = 0;  ///< 0: no shares
};
/// `tileHw` tiles per block. With two or more workgroups and fewer images
/// than workgroups, an image of more than one block splits in one share
/// per workgroup (ceil(tiles / workgroups) tiles, when that is at least one
/// 16-column GEMM panel): each workgroup transforms as many tiles, in
/// full blocks but its last (ResNet-50's 56x56 layers at 2 threads: 98
/// tiles each as 32 + 32 + 32 + 2, where equal blocks of 25 tiles each
/// filled a 32-column GEMM tile); the stride-2 form takes no shares (its
/// GEMMs compute whole panels). Otherwise the output channels split in two
/// chunks when there would be a single unit for two or more workgroups (a
/// small image then still takes two threads, for one extra input
/// transform). The tile side is `tileOut` (0: winogradTileOut(s)). Each
/// tile's arithmetic does not depend on its block: the results do not
/// depend on the split.
WinogradSplit winogradSplit(const Conv2dShape &s, int64_t tileHw,
                            int64_t workgroups, int64_t tileOut = 0);
int64_t winogradUnits(const Conv2dShape &s, const WinogradSplit &split);
/// Computes units [begin, end) of winogradUnits(s, split). `filter` is
/// OIHW, or transformed (winogradTransformFilter with split.tileOut) when
/// `filterTransformed`.
/// Bias per output channel; the residual, if any, is shaped as Y (added
/// before the activation). False when scratch memory cannot be allocated.
bool conv2dWinograd(const Conv2dShape &s, const float *x, const float *filter,
                    bool filterTransformed, const Epilogue &e, float *y,
                    const WinogradSplit &split, int64_t begin, int64_t end,
                    Isa isa = activeIsa());

} // namespace strata::kernels

#endif // STRATA_KERNELS_WINOGRAD_H
