//===- Deconv.h - 2-d transposed convolution as GEMM + col2im ---*- C++ -*-===//
//
// ConvTranspose (NCHW input, C x O/G x KH x KW filter) per (image, group):
// cols[O/G * KH * KW, pixels] = filter_g^T * x_g on the packed f32 GEMM,
// then each column's taps are added into the output (col2im). Work splits
// into (image, group, output-row chunk) units: a unit computes the input
// rows its output rows read, so units never write the same element and any
// stride, pad, dilation and output padding works.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_DECONV_H
#define STRATA_KERNELS_DECONV_H

#include "strata/Kernels/Conv.h"

#include <string>

namespace strata::kernels {

/// "" when `s` is a consistent transposed convolution: H x W the input,
/// OH x OW the output, O the output channels, C and O multiples of G, OH =
/// (H - 1) * SH + (KH - 1) * DH + 1 - PT - PB + output padding with the
/// output padding in [0, max(SH, DH)) (likewise W), sizes within int64.
std::string checkDeconv2dShape(const Conv2dShape &s);

/// Units of deconv2dGemm for `workgroups` workgroups.
int64_t deconv2dUnits(const Conv2dShape &s, int64_t workgroups);

/// Computes units [begin, end): y = act(deconv(x) + bias) with the bias per
/// output channel (null: none) and the epilogue's activation.
void deconv2dGemm(const Conv2dShape &s, const float *x, const float *filter,
                  const float *bias, Activation act, float p0, float p1,
                  float *y, int64_t workgroups, int64_t begin, int64_t end,
                  Isa isa = activeIsa());

} // namespace strata::kernels

#endif // STRATA_KERNELS_DECONV_H
