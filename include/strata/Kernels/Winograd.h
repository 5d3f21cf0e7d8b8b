//===- Winograd.h - f32 Winograd F(4x4, 3x3) convolution ---------*- C++
//-*-===//
//
// 3x3, stride 1, dilation 1, group 1 NCHW convolutions as Winograd
// F(4x4, 3x3) (Lavin & Gray's transforms, interpolation points 0, +-1, +-2,
// infinity): each 6x6 input tile d and 3x3 filter g give the 4x4 output tile
// A^T [(G g G^T) . (B^T d B)] A. Per image and block of `tileHw` output
// tiles: the input transform writes V[36][C][tiles], 36 GEMMs (the kernel
// library's, lib/Kernels/Gemm.cpp) compute M[xi] = U[xi] (O x C) * V[xi],
// and the output transform applies the fused epilogue (bias, activation)
// while it writes the 4x4 tiles. The transforms run on 16 tiles at once
// (AVX-512, AVX2 or portable builds). The filter transform U, packed as 36
// GEMM A operands, is done once at compile time for a constant filter.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_WINOGRAD_H
#define STRATA_KERNELS_WINOGRAD_H

#include "strata/Kernels/Conv.h"

#include <string>

namespace strata::kernels {

/// Output tiles per side and input tile size of F(4x4, 3x3).
inline constexpr int64_t kWinogradOut = 4, kWinogradIn = 6;
/// The largest number of tiles per block (the tile_hw schedule parameter).
inline constexpr int64_t kWinogradMaxBlockTiles = 1024;

/// Empty when the Winograd kernel takes `s` (checkConv2dShape holds, 3x3
/// kernel, stride 1, dilation 1, group 1), else why not.
std::string checkWinogradShape(const Conv2dShape &s);

/// Bytes of the transformed, packed filter (0 on overflow).
uint64_t winogradFilterBytes(const Conv2dShape &s);
/// Transforms the OIHW filter into `dst` (winogradFilterBytes bytes).
void winogradTransformFilter(const Conv2dShape &s, const float *filter,
                             float *dst);

/// How the work splits into units: (image, block of `blockTiles` output
/// tiles, chunk of output channels).
struct WinogradSplit {
  int64_t blockTiles = 32; ///< the schedule parameter tile_hw
  int64_t oChunks = 1;     ///< each chunk redoes the block's input transform
};
/// `tileHw` tiles per block; the output channels in two chunks when there
/// would be a single unit for two or more workgroups (a small image then
/// still takes two threads, for one extra input transform).
WinogradSplit winogradSplit(const Conv2dShape &s, int64_t tileHw,
                            int64_t workgroups);
int64_t winogradUnits(const Conv2dShape &s, const WinogradSplit &split);
/// Computes units [begin, end) of winogradUnits(s, split). `filter` is
/// OIHW, or transformed (winogradTransformFilter) when `filterTransformed`.
/// Bias per output channel; the residual, if any, is shaped as Y (added
/// before the activation). False when scratch memory cannot be allocated.
bool conv2dWinograd(const Conv2dShape &s, const float *x, const float *filter,
                    bool filterTransformed, const Epilogue &e, float *y,
                    const WinogradSplit &split, int64_t begin, int64_t end,
                    Isa isa = activeIsa());

} // namespace strata::kernels

#endif // STRATA_KERNELS_WINOGRAD_H
