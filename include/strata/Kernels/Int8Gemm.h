//===- Int8Gemm.h - int8 GEMM and convolution with fused requant -*- C++
//-*-===//
//
// Integer matmul and convolution: 8-bit activations times signed 8-bit
// weights, accumulated exactly in int32, then an epilogue applied to each
// output tile while it is hot in L1:
//
//   v = wrap32(acc + corr[ch]);  v = relu ? max(v, 0) : v;
//   y = int32 ? v : requantMultiplierShift(v, m[ch], s[ch], zp, qmin, qmax)
//
// (strata::intq, the one definition of the rounding), or by the epilogue's
// `rounding`, requantTosa(v, m[ch], s[ch], single round, zp, qmin, qmax)
// (top.Requant's TosaSingleRound) or requantTFLiteHalfUp (TFLiteHalfUp). `ch`
// is the output channel: the row of a convolution's GEMM, the column of a
// matmul's.
//
// The products run as u8 x s8 (`vpdpbusd` on AVX512-VNNI; on AVX2 both
// operands widened to 16 bits and `vpmaddwd`, exact; portable C++): int8
// activations get +128 (a XOR of the sign bit) while they are packed, and
// `corr[ch] = bias[ch] - (offset + zp_x) * sum_k W[ch, k]` (offset 128 for
// int8, 0 for uint8 activations) takes it and the input zero point back
// out, so the padding of a convolution holds the zero point.
//
// Layouts (the same on every path, so weights pack once, at compile time):
//   - A (broadcast side): panels of kPanelRows (12) rows; each holds K/4
//     groups of 12 x 4 bytes (row r's k = 4g..4g+3 at 4r).
//   - B (vector side): panels of 16 columns; each holds K/4 groups of
//     16 x 4 bytes.
// K is padded to a multiple of 4 with zeros, rows and columns to the panel
// size. A convolution's filter is A and its im2col columns are B; a
// matmul's activations are A and its weights are B.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_INT8GEMM_H
#define STRATA_KERNELS_INT8GEMM_H

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/Isa.h"

#include <cstdint>
#include <string>

namespace strata::kernels {

/// The int8 paths: what an Isa runs for int8 (Avx512 needs AVX512-VNNI,
/// BW, DQ and VL besides F; without them it falls back to AVX2).
enum class Int8Path { Portable = 0, Avx2 = 1, Avx512Vnni = 2 };
Int8Path int8PathFor(Isa isa);
bool int8PathSupported(Int8Path path);
const char *int8PathName(Int8Path path);

/// What the epilogue writes.
enum class Int8Output : int64_t { Int32 = 0, Int8 = 1, UInt8 = 2 };

/// How the epilogue requantizes: top.Requant's MultiplierShift (`v * m /
/// 2^s` rounded half away from zero, intq::requantMultiplierShift),
/// TosaSingleRound (rounded half up, intq::requantTosa without the double
/// round) or TFLiteHalfUp (intq::requantTFLiteHalfUp: the Q31 high multiply,
/// then the shift rounded half up; the TFLite interpreter's convolutions).
enum class Int8Rounding : int64_t {
  HalfAwayFromZero = 0,
  HalfUp = 1,
  TFLiteHalfUp = 2
};

struct Int8Epilogue {
  bool perRow = true;            ///< channel = row (conv) or column (matmul)
  const int32_t *corr = nullptr; ///< per channel; null: 0
  bool relu = false;
  Int8Output out = Int8Output::Int8;
  const int32_t *multiplier = nullptr; ///< per channel (not for Int32)
  const int32_t *shift = nullptr;      ///< per channel, clamped to [0, 63]
  int32_t zp = 0, qmin = -128, qmax = 127;
  Int8Rounding rounding = Int8Rounding::HalfAwayFromZero;
};

/// The epilogue of one accumulator, the scalar definition the vector paths
/// reproduce bit for bit.
int32_t int8EpilogueValue(int32_t acc, const Int8Epilogue &e, int64_t ch);

/// Produces the packed B block for K groups [g0, g0 + gc) and columns
/// [j0, j0 + nc) (j0 a multiple of 16): ceil(nc / 16) panels of gc x 64
/// bytes, padded with zeros.
using Int8PackBFn = void (*)(const void *ctx, int64_t g0, int64_t gc,
                             int64_t j0, int64_t nc, uint8_t *dst);

struct Int8GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  /// A: packed (whole matrix, A layout), or plain row-major int8 with row
  /// stride `lda` whose bytes are XORed with `aXor` while packing.
  const uint8_t *aPacked = nullptr;
  const uint8_t *aPlain = nullptr;
  int64_t lda = 0;
  uint8_t aXor = 0;
  /// Which side holds the unsigned (activation) operand.
  bool aUnsigned = false;
  /// B: packed (whole matrix) or produced by bPackFn.
  const uint8_t *bPacked = nullptr;
  Int8PackBFn bPackFn = nullptr;
  const void *bPackCtx = nullptr;
  void *c = nullptr; ///< int32, int8 or uint8 by epilogue.out
  int64_t ldc = 0;   ///< in elements
  /// When colPitch > 0 (per-row epilogues only): C's column j is output
  /// column (j / colPitch) * colValid + j % colPitch, written only when
  /// j % colPitch < colValid (a convolution computed over the padded
  /// width, whose extra columns are dropped).
  int64_t colPitch = 0, colValid = 0;
  Int8Epilogue epilogue;
  /// B read in place instead of through bPackFn (AVX-512 VNNI, fused
  /// requantization of the common form, one K block; otherwise bPackFn):
  /// column j's K group g = t * groupsPerTap + q (tap t, 4-channel quad q)
  /// is the 4 bytes at inPlaceB + (j - inPlaceCol0) * 4 + inPlaceTap[t] +
  /// q * inPlaceQuadStride, so 16 columns of a K group are one 64-byte
  /// vector. Reads may run up to 128 bytes past the last column's group.
  const uint8_t *inPlaceB = nullptr;
  int64_t inPlaceCol0 = 0;
  const int64_t *inPlaceTap = nullptr; ///< per tap, bytes
  int64_t inPlaceTaps = 0, inPlaceQuadStride = 0;
  /// With inPlaceW > 0 the columns are real pixels, rows of inPlaceOw,
  /// stored without horizontal padding: tap (ky, kx) of pixel column ox
  /// reads `inPlacePad` (4 bytes) where its input column ox * inPlaceSw +
  /// kx * inPlaceDw - inPlacePl falls outside [0, inPlaceW) (KW =
  /// inPlaceKw <= 8).
  int64_t inPlaceW = 0, inPlaceOw = 0, inPlaceSw = 1, inPlaceKw = 1,
          inPlaceDw = 1, inPlacePl = 0;
  uint32_t inPlacePad = 0;
};

/// Computes rows [rowBegin, rowEnd) x columns [colBegin, colEnd) of C
/// (rowBegin a multiple of 12, colBegin of 16). The epilogue's channel
/// arrays are indexed by the full C's coordinates.
void int8Gemm(const Int8GemmProblem &p, int64_t rowBegin, int64_t rowEnd,
              int64_t colBegin, int64_t colEnd,
              Int8Path path = int8PathFor(activeIsa()));

/// K rounded up to the 4-byte groups.
inline int64_t int8PaddedK(int64_t k) { return (k + 3) / 4 * 4; }
/// Bytes of an M x K matrix packed as A / a K x N one as B (0 on overflow).
uint64_t int8PackedABytes(int64_t m, int64_t k);
uint64_t int8PackedBBytes(int64_t k, int64_t n);
/// Packs int8 A (M x K, row stride lda) / B (K x N, row stride ldb;
/// transposed: stored N x K) with no XOR (weights).
void int8PackA(const int8_t *a, int64_t lda, int64_t m, int64_t k,
               uint8_t *dst);
void int8PackB(const int8_t *b, int64_t ldb, bool transposed, int64_t k,
               int64_t n, uint8_t *dst);

//===----------------------------------------------------------------------===//
// The packed weight of a runtime kernel: the panels, then per output
// channel the weight sum (int32), the requant multiplier and shift (int32
// each; zeros for an int32 output).
//===----------------------------------------------------------------------===//

enum class Int8WeightKind { MatmulB, ConvFilter, Depthwise };

struct Int8PackedLayout {
  uint64_t panelBytes = 0; ///< multiple of 64
  int64_t channels = 0;
  uint64_t sumOffset = 0, multiplierOffset = 0, shiftOffset = 0;
  uint64_t totalBytes = 0; ///< 0 on overflow
};

/// Matmul: K x N weights (transposed: N x K), channels N. Convolution:
/// OIHW filter, channels O (panels per group). Depthwise: the plain O x KH
/// x KW filter, channels O.
Int8PackedLayout int8PackedLayout(Int8WeightKind kind, const Conv2dShape &s,
                                  int64_t matK, int64_t matN);
/// Packs `w` (int8) and the per-channel requant arrays (`multiplier`,
/// `shift`: `count` values, 1 or channels; null for an int32 output) into
/// `dst` (layout.totalBytes bytes, 64-byte aligned).
void int8PackWeight(Int8WeightKind kind, const Conv2dShape &s, int64_t matK,
                    int64_t matN, bool transposed, const int8_t *w,
                    const int64_t *multiplier, const int64_t *shift,
                    int64_t count, uint8_t *dst, bool tapMajor = false);

/// The int8 activation operand: element type and zero point.
struct Int8Input {
  bool isUnsigned = false; ///< uint8 (else int8)
  int32_t zp = 0;
};

/// corr[ch] = bias[ch] (or 0) - (offset + zp) * weightSum[ch], wrapped to
/// int32.
void int8Corrections(const Int8Input &in, const int32_t *bias,
                     const int32_t *weightSum, int64_t channels, int32_t *corr);

/// Whether a convolution's filter may be packed (and its B operand built)
/// with K ordered tap-major, channel-fastest (k = (ky * KW + kx) * C + c)
/// instead of k = (c * KH + ky) * KW + kx: one group, a window, strides up
/// to 4 (the padded phases' form), C a multiple of 4. Then a K group of 4 is
/// 4 channels of one tap, and the AVX-512 VNNI path reads B in place from
/// the input stored with 4 channels interleaved (no B packing). The
/// compiler packs such filters tap-major (int8PackWeight's `tapMajor`,
/// ignored where this is false) and says so in the kernel's filter_packed
/// param (2); int8Conv2dGemm's `tapMajor` must match the blob.
bool int8ConvTapMajor(const Conv2dShape &s);

/// Int8 convolution as GEMM per (image, group), im2col packed on the fly;
/// units as conv2dGemmUnits. `packed` is int8PackWeight's ConvFilter blob;
/// the epilogue's channel arrays cover all O channels.
void int8Conv2dGemm(const Conv2dShape &s, const Int8Input &in, const void *x,
                    const uint8_t *packed, const Int8Epilogue &e, void *y,
                    int64_t workgroups, int64_t begin, int64_t end,
                    bool tapMajor, Int8Path path = int8PathFor(activeIsa()));

/// Int8 depthwise (C/G == 1), direct; units are the N*O output planes.
/// `filter` is the plain O x KH x KW int8 filter.
void int8Conv2dDepthwise(const Conv2dShape &s, const Int8Input &in,
                         const void *x, const int8_t *filter,
                         const Int8Epilogue &e, void *y, int64_t begin,
                         int64_t end, Int8Path path = int8PathFor(activeIsa()));

} // namespace strata::kernels

#endif // STRATA_KERNELS_INT8GEMM_H
