//===- Bf16Gemm.h - bf16 GEMM with f32 accumulation --------------*- C++
//-*-===//
//
// C[M,N] = A[M,K] * B[K,N] on bf16 operands (stored as uint16_t, the high
// half of an f32), accumulated in f32, then y = act(acc + bias) written as
// f32 or bf16 (round to nearest even). The compute of `--quantize bf16`.
//
// Layouts, as the int8 GEMM's with 2-element K groups (K padded to 2):
//   - A (broadcast side): panels of kPanelRows (12) rows, each K/2 groups of
//     12 x 2 bf16;
//   - B (vector side): panels of 16 columns, each K/2 groups of 16 x 2 bf16
//     (one 64-byte vector per group).
// Paths: `vdpbf16ps` (AVX512-BF16: each 32-bit lane adds a0*b0 + a1*b1 to
// an f32 accumulator, products exact, denormal inputs and outputs flushed
// to zero) and portable C++ (the same two f32 multiply-adds per group, in
// the same order, denormals kept). The two agree up to the denormal
// flushing; against an f64 reference the error is f32 accumulation's
// (about K * 2^-24 relative to sum |a b|), plus the final bf16 rounding.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_BF16GEMM_H
#define STRATA_KERNELS_BF16GEMM_H

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/Gemm.h"
#include "strata/Support/FloatBits.h"

#include <cstdint>
#include <cstring>

namespace strata::kernels {

enum class Bf16Path { Portable = 0, Avx512Bf16 = 1 };
bool bf16PathSupported(Bf16Path path);
/// Avx512Bf16 when `isa` is Avx512 and the CPU has AVX512-BF16.
Bf16Path bf16PathFor(Isa isa);
const char *bf16PathName(Bf16Path path);

/// f32 <-> bf16 (round to nearest even; NaN kept a quiet NaN).
inline uint16_t toBf16(float f) { return floatToBF16(f); }
inline float fromBf16(uint16_t h) { return bf16ToFloat(h); }

struct Bf16GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  /// A: packed (whole matrix) or plain row-major with row stride lda.
  const uint16_t *aPacked = nullptr, *aPlain = nullptr;
  int64_t lda = 0;
  /// B: packed (whole matrix).
  const uint16_t *bPacked = nullptr;
  /// C: f32 or bf16 (outBf16), row stride ldc elements.
  void *c = nullptr;
  int64_t ldc = 0;
  bool outBf16 = true;
  /// Epilogue: bias per row or per column (f32, may be null), then the
  /// activation as the f32 kernels compute it (kernels::activate), in f32
  /// before the bf16 rounding.
  BiasMode biasMode = BiasMode::None;
  const float *bias = nullptr;
  Activation act = Activation::None;
  float p0 = 0, p1 = 0;
};

/// Rows [rowBegin, rowEnd) (a multiple of 12) x columns [colBegin, colEnd)
/// (a multiple of 16) of C.
void bf16Gemm(const Bf16GemmProblem &p, int64_t rowBegin, int64_t rowEnd,
              int64_t colBegin, int64_t colEnd,
              Bf16Path path = bf16PathFor(activeIsa()));

/// Element counts (uint16_t) of the packed forms; 0 on overflow.
uint64_t bf16PackedAElems(int64_t m, int64_t k);
uint64_t bf16PackedBElems(int64_t k, int64_t n);
/// Packs A (M x K, row stride lda) / B (K x N, row stride ldb; transposed:
/// stored N x K).
void bf16PackA(const uint16_t *a, int64_t lda, int64_t m, int64_t k,
               uint16_t *dst);
void bf16PackB(const uint16_t *b, int64_t ldb, bool transposed, int64_t k,
               int64_t n, uint16_t *dst);

/// bf16 convolution (NCHW, OIHW filter, group 1) as the bf16 GEMM above:
/// per image, Y[O, OH*OW] = W[O, C*KH*KW] * im2col(X), the filter packed
/// once as A (bf16PackA of the OIHW filter read as an O x K matrix; K row
/// kk = (c*KH + ky)*KW + kx), the im2col matrix packed straight into B
/// panels (zero outside the padded input; a 1x1 stride-1 unpadded conv
/// copies rows), block by block of kBf16ConvCols output columns. The sum
/// order over K is the GEMM's (kk ascending in pairs), so every path and
/// every 1x1 / windowed form gives the same bits as bf16Gemm on the
/// explicit im2col matrix.
struct Bf16ConvProblem {
  Conv2dShape s;
  const uint16_t *x = nullptr;       ///< N x C x H x W bf16
  const uint16_t *wPacked = nullptr; ///< bf16PackA(filter as O x K)
  const float *bias = nullptr;       ///< O values or null
  void *y = nullptr;                 ///< N x O x OH x OW, bf16 or f32
  bool outBf16 = true;
  Activation act = Activation::None;
  float p0 = 0, p1 = 0;
};
inline constexpr int64_t kBf16ConvCols = 256;
/// Output columns [colBegin, colEnd) (any range) of image `image`.
void bf16Conv2d(const Bf16ConvProblem &p, int64_t image, int64_t colBegin,
                int64_t colEnd, Bf16Path path = bf16PathFor(activeIsa()));
/// Packs columns [j0, j0 + nc) of image `image`'s im2col matrix as B
/// panels (bf16PackedBElems(K, nc) elements; exposed for tests).
void bf16PackIm2col(const Conv2dShape &s, const uint16_t *x, int64_t image,
                    int64_t j0, int64_t nc, uint16_t *dst);

} // namespace strata::kernels

#endif // STRATA_KERNELS_BF16GEMM_H
