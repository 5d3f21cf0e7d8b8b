//===- OpKernels.h - elementwise, pooling, softmax, layer norm --*- C++ -*-===//
//
// The memory-bound f32 kernels next to the GEMM: binary elementwise ops
// with numpy broadcasting (as strides), NCHW max/average/global-average
// pooling, softmax and layer normalization over the last axis. Each is a
// plain loop nest compiled once per ISA (portable, AVX2, AVX-512; Isa.h),
// reductions in 16-lane vector accumulators. Each works on a range of units
// (rows or planes) so callers split them over threads. No MLIR/LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_OPKERNELS_H
#define STRATA_KERNELS_OPKERNELS_H

#include "strata/Kernels/Isa.h"

#include <cstdint>
#include <string>

namespace strata::kernels {

/// Binary elementwise ops, in the order of their kernel names.
enum class BinaryOp : int64_t { Add = 0, Sub, Mul, Div, Max, Min };
inline constexpr int64_t kBinaryOpCount = 6;

/// The output's dims (row-major) and each operand's element stride per dim
/// (0 where it broadcasts). Rows are the output's last dim; the work splits
/// into units of at most kBinaryChunk columns of a row.
inline constexpr int64_t kMaxBinaryRank = 6;
inline constexpr int64_t kBinaryChunk = 4096;
struct BinaryShape {
  int64_t rank = 1;
  int64_t dims[kMaxBinaryRank] = {};
  int64_t aStride[kMaxBinaryRank] = {}, bStride[kMaxBinaryRank] = {};
  int64_t rows() const; ///< product of all dims but the last
  int64_t cols() const { return dims[rank - 1]; }
  /// rows() x ceil(cols() / kBinaryChunk).
  int64_t units() const;
};

/// "" when `s` is well formed (rank 1..6, dims and strides >= 0, element
/// counts within int64), else why not. `aElems`/`bElems`: how many elements
/// each operand must hold (1 + its largest offset; 0 for an empty output).
std::string checkBinaryShape(const BinaryShape &s, int64_t &aElems,
                             int64_t &bElems);

/// The post-op clamp of pooling and binary kernels: none, relu (max(y, 0))
/// or clip to [0, limit] (relu6); NaN stays NaN.
enum class PostClamp : int64_t { None = 0, Relu = 1, Clip = 2 };

/// out = op(a, b) on units [begin, end) of s.units(), then the clamp.
void binaryF32(BinaryOp op, const BinaryShape &s, const float *a,
               const float *b, float *out, PostClamp clamp, float limit,
               int64_t begin, int64_t end, Isa isa = activeIsa());
/// Softmax over each row of `cols` floats, rows [rowBegin, rowEnd) (exp by
/// a polynomial accurate to about 1e-7 relative).
void softmaxRows(const float *x, float *y, int64_t cols, int64_t rowBegin,
                 int64_t rowEnd, Isa isa = activeIsa());

/// (x - mean) / sqrt(biased var + eps) * scale + bias over each row of
/// `cols` floats; `scale`/`bias` null for 1/0.
void layerNormRows(const float *x, const float *scale, const float *bias,
                   float *y, int64_t cols, float eps, int64_t rowBegin,
                   int64_t rowEnd, Isa isa = activeIsa());

/// 2-d NCHW pooling geometry; OH/OW may be the ceil-mode sizes.
struct Pool2dShape {
  int64_t n = 1, c = 1, h = 1, w = 1, oh = 1, ow = 1, kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, pt = 0, pl = 0, pb = 0, pr = 0, dh = 1, dw = 1;
};
/// "" when consistent: sizes >= 1, pads >= 0, OH/OW the floor- or
/// ceil-mode size with every window starting inside the input or its
/// begin padding, element counts within int64.
std::string checkPool2dShape(const Pool2dShape &s);

/// Max (padding never wins; NaN propagates) or average (divisor: the
/// window's positions inside the input, or inside input + explicit pads
/// when `countIncludePad`; 0 gives 0) over planes [begin, end) of N*C.
/// Reads the input in place (no scratch); returns true.
bool maxPool2d(const Pool2dShape &s, const float *x, float *y, PostClamp clamp,
               float limit, int64_t begin, int64_t end, Isa isa = activeIsa());
bool avgPool2d(const Pool2dShape &s, bool countIncludePad, const float *x,
               float *y, PostClamp clamp, float limit, int64_t begin,
               int64_t end, Isa isa = activeIsa());
/// The mean of each of planes [begin, end) of `hw` floats (0 when hw = 0).
void globalAvgPool(const float *x, float *y, int64_t hw, PostClamp clamp,
                   float limit, int64_t begin, int64_t end,
                   Isa isa = activeIsa());

/// Unary elementwise functions: the first six are the unary kernels (in the
/// order of their names, KernelAbi.h); the GEMM applies the transcendental
/// epilogue activations with them too.
enum class UnaryOp : int64_t {
  Relu = 0,
  Sigmoid,
  Tanh,
  Exp,
  SiLU,
  Gelu,        ///< erf form
  GeluTanh,    ///< tanh form
  HardSwish,   ///< x * clip(x / 6 + 0.5, 0, 1)
  HardSigmoid, ///< clip(p0 * x + p1, 0, 1)
};
inline constexpr int64_t kUnaryKernelCount = 6;

/// y[i] = op(x[i]) for i in [0, n) (`y` may be `x`). Vectorized per ISA;
/// exp, sigmoid, SiLU and GELU by the polynomials of the softmax and the
/// GEMM epilogue (about 1e-7 relative; erf 1.5e-7 absolute), tanh by
/// Cephes' tanhf (about 2 ulp); relu and exp keep NaN.
void unaryF32(UnaryOp op, const float *x, float *y, int64_t n, float p0 = 0,
              float p1 = 0, Isa isa = activeIsa());

/// Resize (ONNX / top.Resize) of the last two dims of `planes` planes of
/// H x W to OH x OW, nearest or linear, with the interpreter's sampling:
/// output coordinate x maps to the input coordinate by `coord`, then
/// i = floor, r = the fraction (an exact sample taken as i - 1 with r = 1);
/// nearest takes in[i] or in[i + 1] by `nearest`, linear (1 - r) in[i] +
/// r in[i + 1], indices clamped to the input; a zero weight's sample is
/// skipped. H is resampled first, then W.
enum class ResizeMode : int64_t { Nearest = 0, Linear = 1 };
/// top.Resize's coordinate modes (TopEnums.td order; tf_crop_and_resize is
/// not taken).
enum class ResizeCoord : int64_t {
  HalfPixel = 0,
  HalfPixelSymmetric = 1,
  PytorchHalfPixel = 2,
  AlignCorners = 3,
  Asymmetric = 4,
};
enum class ResizeNearest : int64_t {
  RoundPreferFloor = 0,
  RoundPreferCeil = 1,
  Floor = 2,
  Ceil = 3,
};
struct ResizeShape {
  int64_t planes = 1, h = 1, w = 1, oh = 1, ow = 1;
  ResizeMode mode = ResizeMode::Nearest;
  ResizeCoord coord = ResizeCoord::HalfPixel;
  ResizeNearest nearest = ResizeNearest::RoundPreferFloor;
  double scaleH = 1.0, scaleW = 1.0; ///< the coordinate scales
};
/// "" when well formed (sizes >= 1 except planes >= 0, enums in range,
/// scales finite and > 0, element counts within int64), else why not.
std::string checkResizeShape(const ResizeShape &s);
/// Output rows [begin, end) of planes * OH.
void resize2d(const ResizeShape &s, const float *x, float *y, int64_t begin,
              int64_t end, Isa isa = activeIsa());

/// Concat: output slice o (of `outer`) is input 0's slice o (inner[0]
/// floats), then input 1's, ...; this copies output elements [begin, end)
/// (row = the sum of `inner`).
void concatF32(const float *const *inputs, const int64_t *inner,
               int64_t count, float *out, int64_t begin, int64_t end);

} // namespace strata::kernels

#endif // STRATA_KERNELS_OPKERNELS_H
