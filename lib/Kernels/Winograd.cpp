//===- Winograd.cpp - Winograd F(m x m, 3x3): filter transform, driver ----===//
//
// The filter transform (U = G g G^T, packed as (m+2)^2 GEMM A operands of
// O x C) and the per-block driver: input transform (WinogradImpl.inc),
// (m+2)^2 GEMMs on the library's packed GEMM, output transform with the
// epilogue. m = 4, or 2 on small outputs (winogradTileOut).
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Winograd.h"

#include "WinogradTransforms.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace strata::kernels {

namespace {

/// Transformed filter matrices: (m + 2)^2 for F(m x m, 3x3), 16 for the
/// stride-2 form (its 25 points take 16 distinct U; WinogradLayout).
int64_t pointsOf(const Conv2dShape &s, int64_t m) {
  return s.sh == 2 ? 16 : (m + 2) * (m + 2);
}

int64_t tilesOf(int64_t outDim, int64_t m) { return (outDim + m - 1) / m; }

/// G g G^T of one 3x3 filter (row-major), in double: (m+2)^2 row-major.
/// F(4, 3): G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6;
///               1/24 -1/12 1/6; 0 0 1].
/// F(2, 3): G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1].
void transformFilter3x3(const float *g, float *u, int64_t m) {
  static const double G4[6][3] = {{1.0 / 4, 0, 0},
                                  {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                  {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                  {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                  {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                  {0, 0, 1}};
  static const double G2[4][3] = {
      {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  const double (*G)[3] = m == 2 ? G2 : G4;
  int n = int(m + 2);
  double t[6][3];
  for (int i = 0; i < n; ++i)
    for (int b = 0; b < 3; ++b)
      t[i][b] = G[i][0] * g[0 * 3 + b] + G[i][1] * g[1 * 3 + b] +
                G[i][2] * g[2 * 3 + b];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      u[i * n + j] =
          float(t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
}

/// The stride-2 form's 5 x 5 points of one 3x3 filter: G g G^T with
/// G = [1 0 0; 1 0 1; 0 0 1; 0 1 0; 0 1 0] (rows 0-2: F(2, 2) on the even
/// taps g0, g2, points 0, 1, infinity; rows 3-4: the odd tap g1 once per
/// output). Exact sums of at most four filter values.
void transformFilter3x3Stride2(const float *g, float *u) {
  static const double G[5][3] = {
      {1, 0, 0}, {1, 0, 1}, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}};
  double t[5][3];
  for (int i = 0; i < 5; ++i)
    for (int b = 0; b < 3; ++b)
      t[i][b] = G[i][0] * g[0 * 3 + b] + G[i][1] * g[1 * 3 + b] +
                G[i][2] * g[2 * 3 + b];
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      u[i * 5 + j] =
          float(t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
}

/// A growable 64-byte-aligned buffer per thread.
class Scratch {
public:
  ~Scratch() { std::free(ptr); }
  float *get(size_t floats) {
    size_t bytes = floats * sizeof(float);
    if (bytes > cap) {
      std::free(ptr);
      cap = (bytes + 63) / 64 * 64;
      ptr = static_cast<float *>(std::aligned_alloc(64, cap));
      if (!ptr)
        cap = 0;
    }
    return ptr;
  }

private:
  float *ptr = nullptr;
  size_t cap = 0;
};
thread_local Scratch scratchV, scratchM, scratchU, scratchStrip;

} // namespace

std::string checkWinogradShape(const Conv2dShape &s) {
  std::string why = checkConv2dShape(s);
  if (!why.empty())
    return why;
  if (s.kh != 3 || s.kw != 3 || s.sh != s.sw || (s.sh != 1 && s.sh != 2) ||
      s.dh != 1 || s.dw != 1 || s.g != 1)
    return "the Winograd kernel takes 3x3, stride 1 or 2 (both ways), "
           "dilation 1, group 1 "
           "convolutions (KH, KW = " +
           std::to_string(s.kh) + ", " + std::to_string(s.kw) +
           ", SH, SW = " + std::to_string(s.sh) + ", " + std::to_string(s.sw) +
           ", DH, DW = " + std::to_string(s.dh) + ", " + std::to_string(s.dw) +
           ", G = " + std::to_string(s.g) + ")";
  return "";
}

int64_t winogradTileOut(const Conv2dShape &s) {
  if (s.sh == 2)
    return kWinogradOutSmall; // the stride-2 form has 2x2 tiles only
  // GEMM work per (input, output) channel pair: the transformed points
  // times the tiles rounded up to the microkernel's 16 columns.
  auto cost = [&](int64_t m) {
    int64_t tiles = tilesOf(s.oh, m) * tilesOf(s.ow, m);
    return pointsOf(s, m) * ((tiles + 15) / 16 * 16);
  };
  return cost(kWinogradOutSmall) < cost(kWinogradOut) ? kWinogradOutSmall
                                                      : kWinogradOut;
}

uint64_t winogradFilterBytes(const Conv2dShape &s, int64_t m) {
  uint64_t one = packedABytes(s.o, s.c), bytes;
  if (s.sh == 2 && m != kWinogradOutSmall)
    return 0;
  if (one == 0 || __builtin_mul_overflow(one, uint64_t(pointsOf(s, m)), &bytes))
    return 0;
  return bytes;
}

uint64_t winogradFilterBytes(const Conv2dShape &s) {
  return winogradFilterBytes(s, winogradTileOut(s));
}

void winogradTransformFilter(const Conv2dShape &s, const float *filter,
                             float *dst, int64_t m) {
  // U as (m+2)^2 plain O x C matrices, then each packed.
  int64_t points = pointsOf(s, m);
  std::vector<float> u(size_t(points * s.o * s.c));
  float t[36];
  for (int64_t o = 0; o < s.o; ++o)
    for (int64_t c = 0; c < s.c; ++c) {
      if (s.sh == 2) {
        // Points (i, j) with i or j = 4 equal those with 3: keep the 4 x 4.
        float t5[25];
        transformFilter3x3Stride2(filter + (o * s.c + c) * 9, t5);
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j)
            t[i * 4 + j] = t5[i * 5 + j];
      } else {
        transformFilter3x3(filter + (o * s.c + c) * 9, t, m);
      }
      for (int64_t xi = 0; xi < points; ++xi)
        u[size_t((xi * s.o + o) * s.c + c)] = t[xi];
    }
  int64_t one = int64_t(packedABytes(s.o, s.c) / sizeof(float));
  for (int64_t xi = 0; xi < points; ++xi)
    packA(u.data() + xi * s.o * s.c, s.c, false, s.o, s.c, dst + xi * one);
}

void winogradTransformFilter(const Conv2dShape &s, const float *filter,
                             float *dst) {
  winogradTransformFilter(s, filter, dst, winogradTileOut(s));
}

namespace {
/// Rows per output-channel chunk: a multiple of the GEMM's 12-row panels.
int64_t chunkRows(const Conv2dShape &s, const WinogradSplit &split) {
  int64_t rows = (s.o + split.oChunks - 1) / split.oChunks;
  return (rows + kPanelRows - 1) / kPanelRows * kPanelRows;
}
} // namespace

WinogradSplit winogradSplit(const Conv2dShape &s, int64_t tileHw,
                            int64_t workgroups, int64_t tileOut) {
  WinogradSplit split;
  split.blockTiles = tileHw;
  split.tileOut = tileOut ? tileOut : winogradTileOut(s);
  int64_t tiles = tilesOf(s.oh, split.tileOut) * tilesOf(s.ow, split.tileOut);
  int64_t share = workgroups >= 2 ? (tiles + workgroups - 1) / workgroups : 0;
  // Not for the stride-2 form: its GEMMs run whole 16-column panels, so a
  // share's partial last block costs a whole panel (ResNet-50's 14x14
  // output at 2 threads: 25 + 24 tiles computed as 32 + 32 columns each,
  // where blocks of 32 + 17 take one panel pair each).
  if (workgroups >= 2 && s.n < workgroups && tiles > tileHw &&
      share >= kPanelCols && s.sh != 2) {
    split.shareTiles = share;
    return split;
  }
  int64_t units = s.n * ((tiles + tileHw - 1) / tileHw);
  if (units < 2 && workgroups >= 2 && s.o >= 2 * kPanelRows)
    split.oChunks = 2;
  return split;
}

namespace {
/// An image's blocks: shares x blocks per share, or blocks of blockTiles.
struct ImageBlocks {
  int64_t perImage, perShare;
};
ImageBlocks imageBlocks(int64_t tiles, const WinogradSplit &split) {
  if (!split.shareTiles)
    return {(tiles + split.blockTiles - 1) / split.blockTiles, 0};
  int64_t shares = (tiles + split.shareTiles - 1) / split.shareTiles;
  int64_t perShare =
      (split.shareTiles + split.blockTiles - 1) / split.blockTiles;
  return {shares * perShare, perShare};
}
} // namespace

int64_t winogradUnits(const Conv2dShape &s, const WinogradSplit &split) {
  int64_t tiles = tilesOf(s.oh, split.tileOut) * tilesOf(s.ow, split.tileOut);
  return s.n * imageBlocks(tiles, split).perImage * split.oChunks;
}

bool conv2dWinograd(const Conv2dShape &s, const float *x, const float *filter,
                    bool filterTransformed, const Epilogue &e, float *y,
                    const WinogradSplit &split, int64_t begin, int64_t end,
                    Isa isa) {
  if (begin >= end)
    return true;
  const int64_t tm = split.tileOut;
  if (tm != kWinogradOut && tm != kWinogradOutSmall)
    return false;
  if (s.sh == 2 && tm != kWinogradOutSmall)
    return false;
  const float *u = filter;
  if (!filterTransformed) {
    float *t = scratchU.get(winogradFilterBytes(s, tm) / sizeof(float));
    if (!t)
      return false;
    winogradTransformFilter(s, filter, t, tm);
    u = t;
  }
  int64_t tileHw = split.blockTiles;
  int64_t tilesW = tilesOf(s.ow, tm), tiles = tilesOf(s.oh, tm) * tilesW;
  ImageBlocks blocks = imageBlocks(tiles, split);
  int64_t oStep = chunkRows(s, split);
  int64_t ld = (tileHw + 15) / 16 * 16;
  detail::WinogradLayout layout;
  detail::winogradLayout(s.c, s.o, ld, tm, s.sh, layout);
  float *v = scratchV.get(size_t(layout.vFloats));
  float *m = scratchM.get(size_t(layout.mFloats));
  if (!v || !m)
    return false;
  int64_t uStride = int64_t(packedABytes(s.o, s.c) / sizeof(float));
  auto input = isa == Isa::Avx512 ? detail::winogradInputAvx512
               : isa == Isa::Avx2 ? detail::winogradInputAvx2
                                  : detail::winogradInputPortable;
  auto output = isa == Isa::Avx512 ? detail::winogradOutputAvx512
                : isa == Isa::Avx2 ? detail::winogradOutputAvx2
                                   : detail::winogradOutputPortable;
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t chunk = unit % split.oChunks, rest = unit / split.oChunks;
    int64_t n = rest / blocks.perImage, block = rest % blocks.perImage;
    int64_t t0 = block * tileHw, tEnd = tiles;
    if (split.shareTiles) {
      int64_t share = block / blocks.perShare;
      t0 = share * split.shareTiles + block % blocks.perShare * tileHw;
      tEnd = std::min(tiles, (share + 1) * split.shareTiles);
    }
    int64_t nt = std::min(tileHw, tEnd - t0);
    if (nt <= 0)
      continue;
    int64_t o0 = chunk * oStep, o1 = std::min(s.o, o0 + oStep);
    if (o0 >= o1)
      continue;
    int64_t bld = (nt + 15) / 16 * 16;
    detail::winogradLayout(s.c, s.o, bld, tm, s.sh, layout);
    detail::WinogradBlock b{tilesW, t0, nt, bld, o0, o1, tm, &layout, s.sh};
    int64_t yOffset = n * s.o * s.oh * s.ow;
    int64_t stripFloats =
        detail::winogradStripRows(b) * detail::winogradStripStride(b);
    // Gathers use int32 offsets; 8 floats of slack: the F(4x4) input
    // transform's 8-float row loads read two floats past a tile's six, the
    // stride-2 form's three past its five.
    float *strip = stripFloats <= INT32_MAX
                       ? scratchStrip.get(size_t(stripFloats) + 8)
                       : nullptr;
    if (!strip || tileHw > kWinogradMaxBlockTiles)
      return false;
    input(s, b, x + n * s.c * s.h * s.w, v, strip);
    GemmProblem g;
    g.m = s.o;
    g.n = nt;
    g.k = s.c;
    g.a.packed = true;
    g.b.packed = true; // the input transform writes the packed panels
    // One GEMM per U matrix, over the adjacent V of the points it meets.
    // The stride-2 form computes the last point's columns past nt too (their
    // lanes repeat the block's last tile): whole 16-column panels, where a
    // 1- to 15-column tail (a 14x14 output's 49 tiles) measured slower than
    // the extra columns.
    for (int xi = 0; xi < layout.groups; ++xi) {
      int64_t count = layout.gCount[xi];
      g.a.data = u + xi * uStride;
      g.b.data = v + layout.gV[xi];
      g.c = m + layout.gM[xi];
      g.n = (count - 1) * bld + (s.sh == 2 ? bld : nt);
      g.ldc = count * bld;
      gemm(g, o0, o1, 0, g.n, isa);
    }
    Epilogue en = e;
    if (en.residual)
      en.residual += yOffset;
    output(s, b, m, en, y + yOffset);
  }
  return true;
}

} // namespace strata::kernels
