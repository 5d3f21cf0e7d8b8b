//===- Int8Microkernels.h - the int8 GEMM microkernels ---------*- C++ -*-===//
//
// Internal to the kernel library. A microkernel multiplies one A micro-panel
// (mr <= MR rows; K groups 48 bytes apart) by one B micro-panel (nr <= NR
// columns: NR / 16 panels `bPanelStride` bytes apart, K groups 64 bytes
// apart) over `groups` K groups of 4 and writes (or, with `accumulate`,
// adds to) the int32 tile `c` (row stride ldc). `aUnsigned` says which side
// holds the u8 operand. The tile epilogue turns an int32 tile into the
// output. Each path is compiled in its own file with its ISA's flags.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_KERNELS_INT8MICROKERNELS_H
#define STRATA_LIB_KERNELS_INT8MICROKERNELS_H

#include "strata/Kernels/Int8Gemm.h"

#include <cstdint>

namespace strata::kernels::detail {

using Int8Microkernel = void (*)(int64_t groups, const uint8_t *a,
                                 const uint8_t *b, int64_t bPanelStride,
                                 int32_t *c, int64_t ldc, int64_t mr,
                                 int64_t nr, bool accumulate, bool aUnsigned);

/// Applies `e` to the rows x cols int32 tile `acc` (row stride ldacc) whose
/// top-left is C's (row0, col0), writing `out` (its element (row0, col0);
/// row stride ldo elements).
using Int8TileEpilogue = void (*)(const int32_t *acc, int64_t ldacc,
                                  int64_t rows, int64_t cols, int64_t row0,
                                  int64_t col0, const Int8Epilogue &e,
                                  void *out, int64_t ldo);

/// One output plane of a depthwise convolution: acc[OH x OW] = sum over
/// the window of (x - zp) * w (x the input plane, int8 or uint8; w its KH x
/// KW filter).
using Int8DepthwisePlane = void (*)(const Conv2dShape &s, const void *x,
                                    bool isUnsigned, int32_t zp,
                                    const int8_t *w, int32_t *acc);

/// The per-row parameters of a requantization fused into the microkernel
/// (rows of the common form only: multiplier m > 0, shift s >= 31; for
/// TFLiteHalfUp, m > 0 and 0 <= s <= 31). Each output is, exactly as
/// int8EpilogueValue,
///   v = wrap32(acc + corr); v = relu ? max(v, 0) : v;
///   r = sign(v) * ((|v| * m' + 2^(s'-1)) >> s')   (rounding 0)
///   r = floor((v * m' + 2^(s'-1)) / 2^s')         (rounding 1 and 2)
///   r = (r + 2^(e-1)) >> e                        (rounding 2, e = s)
///   y = clamp(r + zp, qmin, qmax)
/// (rounding 2 is TFLite's SRDHM by m, i.e. rounding 1 with m' = 2m, s' =
/// 32, then its ties-up shift by e).
/// with m' = m, s' = s, or m' = 2m, s' = 32 when s = 31 (the same value,
/// and the odd lanes' shift s' - 32 is never negative). |v| * m' < 2^63,
/// |r| < 2^31. The clamp runs as two saturating narrowings around a
/// saturating 16-bit add of zp: equal to the int32 clamp for |zp| <= 32512
/// and [qmin, qmax] inside the output type.
struct Int8FusedRows {
  const int32_t *corr = nullptr; ///< per row
  const int64_t *m = nullptr;    ///< m' per row (< 2^32)
  const int64_t *s = nullptr;    ///< s' per row (32..63)
  const int64_t *h = nullptr;    ///< 2^(s'-1) per row
  const int64_t *e2 = nullptr;   ///< rounding 2: e per row (0..31)
  int rounding = 0; ///< 0 MultiplierShift, 1 TosaSingleRound, 2 TFLiteHalfUp
  bool relu = false;
  bool isUnsigned = false; ///< uint8 output (else int8)
  int16_t zp = 0, qmin = 0, qmax = 0;
};

/// Where a fused microkernel writes row r's 32 bytes (lane t: tile column
/// t): for each store k, the lanes in mask[k] at out + r * ldo + at[k] + t
/// (a convolution over the padded width drops the columns past each
/// output row and moves the next row's back; masked stores leave the
/// other bytes alone).
struct Int8TileStores {
  static constexpr int kMax = 8;
  int count = 0;
  int64_t at[kMax] = {};
  uint32_t mask[kMax] = {};
};

/// A microkernel with the requantization fused: the tile's accumulators
/// (plus the int32 tile `partial`, row stride ldp, when not null: earlier
/// K blocks) go through `rows` (its arrays indexed from `row`) in
/// registers and are written as 8-bit values as `stores` says (row stride
/// ldo bytes): mr rows, nr columns. A holds the signed operand (a
/// convolution's filter).
using Int8FusedMicrokernel = void (*)(int64_t groups, const uint8_t *a,
                                      const uint8_t *b, int64_t bPanelStride,
                                      const int32_t *partial, int64_t ldp,
                                      int64_t mr, int64_t nr,
                                      const Int8FusedRows &rows, int64_t row,
                                      uint8_t *out, int64_t ldo,
                                      const Int8TileStores &stores);

/// A tile whose requantization is still to do (the software-pipelined
/// fused microkernel): its int32 sums with the corrections added (row i at
/// acc + i * 32, earlier K blocks included), mr rows (0: none), nv vectors
/// of 16 columns, the Int8FusedRows row of its first row and where its
/// bytes go (as Int8FusedMicrokernel's out, ldo, stores).
struct alignas(64) Int8PendingTile {
  int32_t acc[kPanelRows * 32];
  int64_t mr = 0, nv = 0, row = 0, ldo = 0;
  uint8_t *out = nullptr;
  Int8TileStores stores;
};

/// Int8FusedMicrokernel, software-pipelined: the tile's sums go to
/// `pending` (corrections added) and are requantized during the next
/// call's K loop, where the requantization's vector ops share the cycles
/// of that tile's `vpdpbusd`s instead of following them; the tile that
/// was pending is written meanwhile. `flush` writes the pending tile (the
/// caller flushes before it returns, and before any other write to the
/// same rows). `rows` must be the same over one pipeline.
/// The arguments of one Int8PipelinedMicrokernel call (in memory, not
/// 13 registers and stack slots: passed by value, the callee's copies of
/// the stack arguments stalled on store forwarding, ~6% of a K = 64
/// layer).
/// B read in place (Int8GemmProblem::inPlaceB): K group t * groupsPerTap
/// + q of the tile's columns 0-15 at b + tap[t] + q * quadStride, columns
/// 16-31 64 bytes further (`groups` = taps * groupsPerTap).
struct Int8InPlaceWalk {
  const int64_t *tap = nullptr;
  int64_t taps = 0, groupsPerTap = 0, quadStride = 0;
  /// Real pixels as columns (no padded width): tap t reads the lanes of
  /// mask[2 kx + v] (kx = t % kw, v the tile's vector) and puts `pad` (4
  /// bytes) in the others, the pixels whose tap falls in the padding.
  /// Null: every lane read.
  const uint16_t *mask = nullptr;
  int64_t kw = 1;
  uint32_t pad = 0;
};

struct Int8TileCall {
  int64_t groups = 0;
  const uint8_t *a = nullptr, *b = nullptr;
  int64_t bPanelStride = 0;
  const int32_t *partial = nullptr;
  int64_t ldp = 0, mr = 0, nr = 0;
  const Int8FusedRows *rows = nullptr;
  int64_t row = 0;
  uint8_t *out = nullptr;
  int64_t ldo = 0;
  const Int8TileStores *stores = nullptr;
  /// Non-null: B in place (bPanelStride unused).
  const Int8InPlaceWalk *walk = nullptr;
};
using Int8PipelinedMicrokernel = void (*)(const Int8TileCall &call,
                                          Int8PendingTile &pending);
using Int8PipelineFlush = void (*)(const Int8FusedRows &rows,
                                   Int8PendingTile &pending);

/// The vector form of an int8 Add (strata/Kernels/Int8Add.h), for
/// parameters where it is exact (Int8Add.cpp checks them): each input's
/// R(x, m, s) with |x| <= 255, 0 <= m, 1 <= s <= 24 and |R| < 2^30 as
/// |x| * (m >> s) + ((|x| * (m & (2^s - 1)) + 2^(s-1)) >> s) in unsigned
/// 32-bit lanes, the sign put back; the output requantization as
/// Int8FusedRows (m', s', h').
struct Int8AddFast {
  struct Input {
    bool isUnsigned = false;
    int32_t zp = 0;
    uint32_t mHi = 0, mLo = 0, s = 0, h = 0;
  } a, b;
  bool relu = false, outUnsigned = false;
  int64_t m = 0, s = 0, h = 0;
  int16_t zp = 0, qmin = 0, qmax = 0;
};
using Int8AddKernel = void (*)(const Int8AddFast &k, const uint8_t *a,
                               const uint8_t *b, uint8_t *y, int64_t n);

/// Four B panels at once: d(p)[c * 4 + q] = r[q][16 p + c] ^ x for panels
/// p = 0..3 (destinations `panelStride` bytes apart), columns c = 0..15 and
/// the four rows q (64 readable bytes each).
using Int8Interleave64 = void (*)(const uint8_t *const r[4], uint8_t x,
                                  uint8_t *d, int64_t panelStride);

/// Row `row` of Int8FusedRows applied to `n` int32 accumulators (no
/// correction added yet), written as 8-bit values to `out`.
using Int8FusedRow = void (*)(const int32_t *acc, int64_t n,
                              const Int8FusedRows &rows, int64_t row,
                              uint8_t *out);

/// The requantization of 16 output channels held in vector lanes (the
/// transposed form below): Int8FusedRows' corr and m' per channel, and s',
/// 2^(s'-1) for the even channels and s' - 32, 2^(s'-1) for the odd ones
/// (64-bit lanes, as fusedRequant16 takes them).
struct alignas(64) Int8LaneRequant {
  int32_t corr[16];
  uint32_t m[16];
  uint64_t sEven[8], sOdd[8], hEven[8], hOdd[8];
};

/// The transposed form of a convolution with few output pixels: pixels as
/// the broadcast rows, output channels in the vector lanes, so a 7 x 7
/// output fills its lanes. One tile: `rows` (<= 8) pixels times up to 48
/// channels (`channels`), over `groups` K groups. `act` holds the pixels'
/// 4-byte K groups as a B panel does (group g of pixel i at g * 64 + i * 4);
/// `filt` is the packed filter (A layout) at the tile's first 12-row panel,
/// `panels` (<= 4) of them `panelStride` bytes apart. Requantized as
/// Int8FusedRows (rounding 0; `fr` gives relu, zp, the clamp and the
/// type; `rq` the tile's three channel blocks), written transposed: pixel i
/// of channel c at y[c * ldy + i].
using Int8TransposedTile = void (*)(int64_t groups, const uint8_t *act,
                                    const uint8_t *filt, int64_t panelStride,
                                    int64_t panels, int64_t rows,
                                    int64_t channels, const Int8LaneRequant *rq,
                                    const Int8FusedRows &fr, uint8_t *y,
                                    int64_t ldy);

/// A depthwise convolution of up to 16 channels (multiplier 1) with the
/// channels in the vector lanes (KH x KW <= 25; the caller bounds the
/// plane): `x` and `y` at the first channel's plane, `w` its
/// filter; requantized as Int8FusedRows (rounding 0) with `rq` the
/// channels' lanes.
using Int8DepthwiseLanes = void (*)(const Conv2dShape &s, const void *x,
                                    bool isUnsigned, int32_t zp,
                                    const int8_t *w, int64_t channels,
                                    const Int8LaneRequant &rq,
                                    const Int8FusedRows &fr, uint8_t *y);

struct Int8MicrokernelInfo {
  int64_t mr, nr;
  Int8Microkernel fn;
  Int8TileEpilogue epilogue;
  Int8DepthwisePlane depthwise;
  Int8FusedMicrokernel fused = nullptr;         ///< null: fn, then epilogue
  Int8AddKernel add = nullptr;                  ///< null: the table loop
  Int8Interleave64 interleave64 = nullptr;      ///< null: one panel at a time
  Int8FusedRow fusedRow = nullptr;              ///< null: the tile epilogue
  Int8TransposedTile transposed = nullptr;      ///< null: no transposed form
  Int8DepthwiseLanes depthwiseLanes = nullptr;  ///< null: plane by plane
  Int8PipelinedMicrokernel pipelined = nullptr; ///< null: fused
  Int8PipelineFlush flush = nullptr;            ///< with pipelined
};

/// The scalar tile epilogue (every path may use it).
void int8ScalarTileEpilogue(const int32_t *acc, int64_t ldacc, int64_t rows,
                            int64_t cols, int64_t row0, int64_t col0,
                            const Int8Epilogue &e, void *out, int64_t ldo);

Int8MicrokernelInfo int8PortableMicrokernel();
Int8MicrokernelInfo int8Avx2Microkernel();
Int8MicrokernelInfo int8Avx512VnniMicrokernel();

} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_INT8MICROKERNELS_H
