//===- Gemm.h - f32 GEMM with packed panels and fused epilogues -*- C++ -*-===//
//
// C[M,N] = A[M,K] * B[K,N], then an epilogue (bias, residual, activation)
// applied to each output tile while it is in registers. The operands are
// packed into panels the microkernels stream:
//   - A: panels of kPanelRows (12) rows, each K x 12 floats (k-major), the
//     last panel zero-padded;
//   - B: panels of kPanelCols (16) columns, each K x 16 floats (k-major),
//     the last panel zero-padded.
// Both layouts are the same for every ISA, so the compiler packs constant
// weights once (packedABytes/packA, packedBBytes/packB) and the runtime uses
// them on whatever CPU it runs. The library has no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_GEMM_H
#define STRATA_KERNELS_GEMM_H

#include "strata/Kernels/Isa.h"

#include <cstddef>
#include <cstdint>

namespace strata::kernels {

/// Rows per packed A panel and columns per packed B panel.
inline constexpr int64_t kPanelRows = 12;
inline constexpr int64_t kPanelCols = 16;

/// The epilogue activation, in the order of the kernels' `act` param.
enum class Activation : int64_t {
  None = 0,
  Relu = 1,
  Clip = 2,      ///< min(max(x, p0), p1); relu6 is Clip(0, 6)
  LeakyRelu = 3, ///< x < 0 ? p0 * x : x
  Sigmoid = 4,
  SiLU = 5,
  HardSwish = 6,   ///< x * clip(x / 6 + 0.5, 0, 1)
  HardSigmoid = 7, ///< clip(p0 * x + p1, 0, 1)
  Gelu = 8,        ///< erf form
  GeluTanh = 9,
};
inline constexpr int64_t kActivationCount = 10;

enum class BiasMode : int { None, PerRow, PerCol };

/// What happens to an output tile after its last K block:
/// y = act(acc + bias + residual).
struct Epilogue {
  BiasMode biasMode = BiasMode::None;
  const float *bias = nullptr;     ///< M (PerRow) or N (PerCol) floats
  /// Same shape as C, row stride ldr. It may be C itself (same pointer and
  /// stride: the result written in place of the residual); any other
  /// overlap with C is not allowed.
  const float *residual = nullptr;
  int64_t ldr = 0;
  Activation act = Activation::None;
  float p0 = 0.0f, p1 = 0.0f;
};

/// Produces the packed B block of rows [k0, k0 + kc) and columns [j0, j0 +
/// nc) (j0 a multiple of 16): ceil(nc / 16) panels of kc x 16 floats, the
/// last zero-padded. Used to pack B on the fly (im2col).
using PackBFn = void (*)(const void *ctx, int64_t k0, int64_t kc, int64_t j0,
                         int64_t nc, float *dst);

/// One operand. Exactly one of the forms is used:
///   - plain: `data` with row stride `ld` (transposed: the matrix is stored
///     transposed, element (r, c) at data[c * ld + r]);
///   - packed: `data` in the panel layout above for the whole matrix;
///   - B only: `packFn(packCtx, ...)` writes packed blocks.
struct GemmOperand {
  const float *data = nullptr;
  int64_t ld = 0;
  bool transposed = false;
  bool packed = false;
  PackBFn packFn = nullptr;
  const void *packCtx = nullptr;
};

struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  GemmOperand a, b;
  float *c = nullptr;
  int64_t ldc = 0;
  Epilogue epilogue;
};

/// Computes rows [rowBegin, rowEnd) x columns [colBegin, colEnd) of C (the
/// epilogue's bias and residual are indexed by the full C's coordinates).
/// rowBegin must be a multiple of 12 and colBegin of 16 (panel boundaries).
void gemm(const GemmProblem &p, int64_t rowBegin, int64_t rowEnd,
          int64_t colBegin, int64_t colEnd, Isa isa = activeIsa());
inline void gemm(const GemmProblem &p, Isa isa = activeIsa()) {
  gemm(p, 0, p.m, 0, p.n, isa);
}

/// Bytes of the packed form of an M x K matrix used as A (0 on overflow).
uint64_t packedABytes(int64_t m, int64_t k);
/// Bytes of the packed form of a K x N matrix used as B (0 on overflow).
uint64_t packedBBytes(int64_t k, int64_t n);
/// Packs A (M x K, row stride lda; transposed: stored K x M) into `dst`
/// (packedABytes(m, k) bytes).
void packA(const float *a, int64_t lda, bool transposed, int64_t m, int64_t k,
           float *dst);
/// Packs B (K x N, row stride ldb; transposed: stored N x K) into `dst`
/// (packedBBytes(k, n) bytes).
void packB(const float *b, int64_t ldb, bool transposed, int64_t k, int64_t n,
           float *dst);

/// Applies the epilogue to `rows` x `cols` of `c` whose top-left element is
/// C's (row0, col0). The scalar reference of what the microkernels fuse;
/// also used for the activations that need exp/erf.
void applyEpilogue(float *c, int64_t ldc, int64_t rows, int64_t cols,
                   int64_t row0, int64_t col0, const Epilogue &e,
                   bool withBiasAndResidual = true);

/// The activation of one value as the kernels compute it (exp and erf by
/// polynomials accurate to about 1e-7).
float activate(float x, Activation act, float p0, float p1);

/// Whether the activation is piecewise linear (fused in registers); the
/// others run over the stored tile right after it is written.
inline bool activationInRegisters(Activation a) {
  return a == Activation::None || a == Activation::Relu ||
         a == Activation::Clip || a == Activation::LeakyRelu ||
         a == Activation::HardSwish || a == Activation::HardSigmoid;
}

} // namespace strata::kernels

#endif // STRATA_KERNELS_GEMM_H
