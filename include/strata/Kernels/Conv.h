//===- Conv.h - f32 2-d NCHW convolution kernels -----------------*- C++
//-*-===//
//
// Convolution as GEMM per (image, group): Y_g[O/G, OH*OW] = W_g[O/G,
// C/G*KH*KW] * cols[C/G*KH*KW, OH*OW]. The filter is the A operand (packed
// once, at compile time for a constant filter); the columns are packed on
// the fly straight from the input (im2col into the B panels, never a whole
// im2col matrix), or read directly for a 1x1 stride-1 unpadded convolution.
// Depthwise convolution (C/G == 1) runs directly, vectorized along W.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_CONV_H
#define STRATA_KERNELS_CONV_H

#include "strata/Kernels/Gemm.h"

#include <string>

namespace strata::kernels {

struct Conv2dShape {
  int64_t n = 1, c = 1, h = 1, w = 1; ///< input N x C x H x W
  int64_t oh = 1, ow = 1;             ///< output spatial dims
  int64_t o = 1, kh = 1, kw = 1;      ///< filter O x C/G x KH x KW
  int64_t sh = 1, sw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  int64_t dh = 1, dw = 1;
  int64_t g = 1;

  /// The GEMM K of one group: C/G * KH * KW.
  int64_t gemmK() const { return c / g * kh * kw; }
};

/// Checks the geometry: positive sizes, G divides C and O, OH/OW agree
/// with the pads, strides and dilations, every element count and byte size
/// fits in int64. Returns an empty string when it holds, else what is wrong.
std::string checkConv2dShape(const Conv2dShape &s);

/// The GEMM convolution's two forms. Normal: Y_g[O/G, OH*OW] = W_g * cols,
/// the filter as A (12-row panels), output pixels along the microkernel's
/// 16-lane vectors. Transposed: Y_g^T = cols^T * W_g^T, output pixels as
/// rows and the filter as B (16-column panels), each block written back to
/// Y transposed: for small outputs whose pixel count fills the vectors badly
/// (7x7: 49 pixels take 64 lanes, but 52 rows).
enum class ConvGemmForm { Normal, Transposed };

/// Largest OH*OW the transposed form takes (its per-thread buffers hold
/// OH*OW x C/G*KH*KW and OH*OW x O/G floats).
inline constexpr int64_t kMaxTransposedPixels = 1024;

/// The form that wastes fewer microkernel lanes on this shape (the
/// transposed one only when it is at least 8% better and O/G >= 16).
ConvGemmForm preferredConvGemmForm(const Conv2dShape &s);

/// Bytes of the filter packed for `form` (A panels, or B panels for the
/// transposed form), one block per group (0 on overflow).
uint64_t packedConvFilterBytes(const Conv2dShape &s,
                               ConvGemmForm form = ConvGemmForm::Normal);
/// Packs the OIHW filter into `dst` (packedConvFilterBytes(s, form) bytes).
void packConvFilter(const Conv2dShape &s, const float *filter, float *dst,
                    ConvGemmForm form = ConvGemmForm::Normal);

/// The GEMM convolution's work splits into units of (image, group, column
/// chunk); `workgroups` sets how many chunks an image's columns take.
int64_t conv2dGemmUnits(const Conv2dShape &s, int64_t workgroups);
/// Computes units [begin, end) of conv2dGemmUnits(s, workgroups). `filter`
/// is OIHW, or packed when `filterPacked`. The epilogue's bias is per output
/// channel (BiasMode::PerRow over O); its residual, if any, is shaped as Y.
void conv2dGemm(const Conv2dShape &s, const float *x, const float *filter,
                bool filterPacked, const Epilogue &e, float *y,
                int64_t workgroups, int64_t begin, int64_t end,
                Isa isa = activeIsa());

/// The transposed form (see ConvGemmForm): units of (image, group, chunk of
/// output channels); `filter` is OIHW, or packed for the transposed form
/// when `filterPacked`. Same epilogue as conv2dGemm. Needs OH*OW <=
/// kMaxTransposedPixels.
int64_t conv2dGemmTransposedUnits(const Conv2dShape &s, int64_t workgroups);
void conv2dGemmTransposed(const Conv2dShape &s, const float *x,
                          const float *filter, bool filterPacked,
                          const Epilogue &e, float *y, int64_t workgroups,
                          int64_t begin, int64_t end, Isa isa = activeIsa());

/// Depthwise (C/G == 1, O a multiple of C): units are the N*O output planes;
/// computes planes [begin, end) from a zero-padded copy of each input plane,
/// 16 output columns per vector accumulator. Bias per output channel; no
/// residual. False when the padded plane cannot be allocated.
bool conv2dDepthwise(const Conv2dShape &s, const float *x, const float *filter,
                     const Epilogue &e, float *y, int64_t begin, int64_t end,
                     Isa isa = activeIsa());

} // namespace strata::kernels

#endif // STRATA_KERNELS_CONV_H
