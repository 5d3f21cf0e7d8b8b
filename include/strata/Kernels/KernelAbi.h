//===- KernelAbi.h - the runtime kernels' names and params ------*- C++ -*-===//
//
// What the compiler (CpuArtifactBuilder) and the runtime (the cpu driver's
// kernel table) agree on for each kernel dispatch: the name, the bindings
// and the int64 params. Every GEMM and convolution kernel here takes five
// bindings (input, weight, bias, output, residual; with no bias or no
// residual the output is bound in its place and not read; the residual may
// be the output itself: the result written in place of it) and its params
// are the strategy's kernel params (lib/Strategy/CpuStrategies.cpp), then
// the kernel's own, then the epilogue (kEpilogueParams).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_KERNELABI_H
#define STRATA_KERNELS_KERNELABI_H

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/OpKernels.h"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace strata::kernels::kabi {

/// The f32 matmul kernels share one implementation. Params: B, M, N, K,
/// transpose_b (strategy), a_batched, b_batched, b_packed, then the
/// epilogue; the bias is per output column.
inline constexpr const char *kMatmulGemm = "matmul_gemm_f32";
inline constexpr const char *kMatmulGemv = "matmul_gemv_f32";
inline constexpr const char *kMatmulBatched = "matmul_batched_gemm_f32";
inline constexpr int64_t kMatmulStrategyParams = 5;
/// Convolutions, NCHW, OIHW filter; the bias is per output channel.
/// filter_packed of the GEMM convolutions: 0 the plain filter, 1 packed for
/// the normal GEMM form, 2 packed for the transposed one
/// (kernels::ConvGemmForm).
/// 1x1: N, C, HW, O (strategy), filter_packed, then the epilogue.
inline constexpr const char *kConv1x1 = "conv2d_1x1_gemm_f32";
inline constexpr int64_t kConv1x1StrategyParams = 4;
/// General and depthwise: N, C, H, W, OH, OW, O, KH, KW, SH, SW, PT, PL,
/// PB, PR, DH, DW, G (strategy), filter_packed (always 0 for depthwise),
/// then the epilogue.
inline constexpr const char *kConvIm2col = "conv2d_im2col_gemm_f32";
inline constexpr const char *kConvDepthwise = "conv2d_depthwise_f32";
inline constexpr int64_t kConvStrategyParams = 18;
/// Winograd F(4x4, 3x3) (strata/Kernels/Winograd.h): the general
/// convolution's params, filter_packed (1: the transformed filter), the
/// epilogue, then tile_hw (output tiles per block, the strategy's schedule).
inline constexpr const char *kConvWinograd = "conv2d_winograd_f43_f32";
/// The direct stem convolution (strata/Kernels/StemConv.h: 3x3, stride 2,
/// group 1, at most kStemMaxChannels input channels): the general
/// convolution's params, filter_packed (always 0: the plain filter), then
/// the epilogue (no residual).
inline constexpr const char *kConvStem = "conv2d_stem_f32";
/// The narrow 1x1 convolution (StemConv.h conv1x1Narrow: few output
/// channels, read straight from the NCHW input): the 1x1 kernel's params
/// (N, C, HW, O), filter_packed (always 0), the epilogue (residual allowed).
inline constexpr const char *kConv1x1Narrow = "conv2d_1x1_narrow_f32";
/// The fused first block (strata/Kernels/StemConv.h stemBlock: the 3x3
/// stride-2 stem, a 3x3 depthwise, a 1x1 projection). Bindings (input, w1
/// E x C x 3 x 3, b1, depthwise filter E x 1 x 3 x 3, b2, w3 P x E, b3,
/// output; filters plain, an absent bias binds the output, not read).
/// Params: N, C, H, W, E, P, H1, W1 (the stem's output), the stem's PT, PL,
/// PB, PR, the depthwise's stride, PT, PL, PB, PR, OH, OW, then per stage
/// has_bias, activation, p0, p1 (three times), strip_rows (0: from the
/// output width at run time).
inline constexpr const char *kStemBlock = "conv2d_stem_block_f32";
inline constexpr int64_t kStemBlockBindings = 8;
inline constexpr int64_t kStemBlockParams = 19 + 3 * 4 + 1;

/// oneDNN primitives (built only with oneDNN, lib/Runtime/CpuOneDnnKernels.cpp):
/// the matmul takes the matmul params, the convolution the general
/// convolution's; their packed flags are always 0 (oneDNN reorders a
/// constant weight itself, once). One workgroup: oneDNN threads itself.
inline constexpr const char *kOneDnnConv = "onednn_conv2d_f32";
inline constexpr const char *kOneDnnMatmul = "onednn_matmul_f32";

/// The int8 kernels (strata/Kernels/Int8Gemm.h): the f32 kernel's param
/// list up to its packed flag (which must be 1: the weight is always packed
/// at compile time, with its per-channel sums, requant multipliers and
/// shifts), then kInt8EpilogueParams. Bindings: input (int8 / uint8),
/// packed weight, bias (int32, per output channel), output (int32, int8 or
/// uint8).
inline constexpr const char *kMatmulGemmI8 = "matmul_gemm_i8";
inline constexpr const char *kConv1x1I8 = "conv2d_1x1_gemm_i8";
inline constexpr const char *kConvIm2colI8 = "conv2d_im2col_gemm_i8";
inline constexpr const char *kConvDepthwiseI8 = "conv2d_depthwise_i8";
/// The bf16 matmul (strata/Kernels/Bf16Gemm.h): the f32 matmul's params
/// (b_packed must be 1, b_batched 0; activation none, relu or clip); input
/// and packed weight bf16, bias f32, output bf16.
inline constexpr const char *kMatmulGemmBf16 = "matmul_gemm_bf16";
/// The bf16 convolution (Bf16Gemm.h bf16Conv2d; group 1): the general
/// convolution's params, filter_packed (must be 1), has_bias, activation,
/// p0, p1, has_residual (must be 0), out_bf16 (1: bf16 output, 0: f32).
/// Bindings as the f32 kernels': input bf16, packed filter, bias f32,
/// output.
inline constexpr const char *kConvIm2colBf16 = "conv2d_im2col_gemm_bf16";
inline constexpr int64_t kConvBf16Params = kConvStrategyParams + 7;
/// The bf16 depthwise convolution (C/G == 1): the f32 depthwise kernel on
/// each plane widened to f32 (products of bf16 values are exact in f32),
/// the result rounded to bf16 or kept f32. The params of
/// conv2d_im2col_gemm_bf16, filter_packed 0: the plain bf16 OIHW filter.
inline constexpr const char *kConvDepthwiseBf16 = "conv2d_depthwise_bf16";

inline bool isInt8Kernel(std::string_view name) {
  return name == kMatmulGemmI8 || name == kConv1x1I8 || name == kConvIm2colI8 ||
         name == kConvDepthwiseI8;
}
/// The int8 Add (strata/Kernels/Int8Add.h; an outlined Requant, Requant,
/// i32 Add, Requant chain). Bindings (a, b, out; out may be a or b).
/// Params: count, a_unsigned, a_zp, a_multiplier, a_shift, b_unsigned,
/// b_zp, b_multiplier, b_shift, relu, out_kind (1 int8, 2 uint8),
/// out_multiplier, out_shift, out_zp, qmin, qmax.
inline constexpr const char *kAddRequantI8 = "add_requant_i8";
inline constexpr int64_t kAddRequantI8Params = 16;
/// The int8 table of a fused activation (strata/Kernels/Int8Table.h; an
/// outlined Dequant -> one-operand float ops -> Quant chain on 8-bit
/// values). Bindings (in, out; out may be in). Params: count, then the
/// 256 entries (entry k for input byte k - 128), 8 bytes per param in
/// memory order.
inline constexpr const char *kTableI8 = "table_i8";
inline constexpr int64_t kTableI8Params = 33;
/// Per-channel int8 tables (strata/Kernels/Int8Table.h, int8TableChannels;
/// an outlined Dequant with a per-axis type on dim 1 -> float ops ->
/// Quant). Bindings (in, out; out may be in). Params: count, channels,
/// inner (elements per channel plane), then channels x 256 entries (channel
/// c's entry k for input byte k - 128), 8 bytes per param in memory order:
/// 3 + 32 x channels params.
inline constexpr const char *kTableChannelsI8 = "table_channels_i8";
inline constexpr int64_t kTableChannelsI8FixedParams = 3;
/// The int16 -> int8 interpolated table of an activation on an int16
/// pre-activation (strata/Kernels/Table16.h; an outlined top.Table16, or
/// top.Requant i32 -> i16 then top.Table16). Bindings (in, out). Params:
/// count, channels, inner, in_kind (0 int16, 1 int32 requantized to int16
/// by MultiplierShift), in_zp (the int16 zero point the requant adds),
/// qmin, qmax (the result's storage range), then the 513 int16 entries, 4
/// per param in memory order (129 params, the last one's spare half 0),
/// then for in_kind 1 `channels` multipliers and `channels` shifts:
/// 7 + 129 (+ 2 x channels) params.
inline constexpr const char *kTable16I8 = "table16_i8";
inline constexpr int64_t kTable16I8FixedParams = 7;
inline constexpr int64_t kTable16I8TableParams = 129;
/// Max pooling of int8 / uint8 NCHW planes (strata/Kernels/Int8Pool.h; a
/// quantized MaxPool keeps its input's quantization). Bindings (in, out).
/// Params as maxpool2d_nchw_f32's (the geometry, then clamp and limit,
/// which must be 0: a MaxPool with a relu is not quantized).
inline constexpr const char *kMaxPoolI8 = "maxpool2d_nchw_i8";
inline constexpr const char *kMaxPoolU8 = "maxpool2d_nchw_u8";
/// has_bias, in_unsigned, in_zp, relu, out_kind (kernels::Int8Output),
/// out_zp, qmin, qmax, rounding (kernels::Int8Rounding: 0 MultiplierShift,
/// 1 TosaSingleRound, 2 TFLiteHalfUp).
inline constexpr int64_t kInt8EpilogueParams = 9;
/// The memory-bound kernels (strata/Kernels/OpKernels.h); each takes its
/// own bindings and params, listed here. `clamp` is kernels::PostClamp and
/// `limit` the clip's upper bound as the bit pattern of an f32.
///
/// Binary with broadcasting, one kernel per kernels::BinaryOp in its order.
/// Bindings (a, b, out). Params: count (strategy: the output's elements),
/// rank, dims[6], a_strides[6], b_strides[6] (unused trailing entries 0),
/// clamp, limit.
inline constexpr const char *kBinaryKernels[] = {
    "add_bcast_f32", "sub_bcast_f32", "mul_bcast_f32",
    "div_bcast_f32", "max_bcast_f32", "min_bcast_f32"};
inline constexpr int64_t kBinaryParams = 2 + 3 * 6 + 2;
/// Softmax over the last axis. Bindings (in, out). Params: rows, cols.
inline constexpr const char *kSoftmax = "softmax_last_axis_f32";
inline constexpr int64_t kSoftmaxParams = 2;
/// Layer norm over the last axis. Bindings (in, scale, bias, out; an
/// absent scale or bias is bound to the output and not read). Params:
/// rows, cols, has_scale, has_bias, epsilon (f32 bits).
inline constexpr const char *kLayerNorm = "layernorm_last_axis_f32";
inline constexpr int64_t kLayerNormParams = 5;
/// NCHW pooling. Bindings (in, out). Params: N, C, H, W, OH, OW, KH, KW, SH,
/// SW, PT, PL, PB, PR, DH, DW (strategy), [count_include_pad: average],
/// clamp, limit.
inline constexpr const char *kMaxPool = "maxpool2d_nchw_f32";
inline constexpr const char *kAvgPool = "avgpool2d_nchw_f32";
inline constexpr int64_t kMaxPoolParams = 16 + 2;
inline constexpr int64_t kAvgPoolParams = 17 + 2;
/// Global average pooling. Bindings (in, out). Params: NC, HW, clamp, limit.
inline constexpr const char *kGlobalAvgPool = "globalavgpool_nchw_f32";
inline constexpr int64_t kGlobalAvgPoolParams = 4;

/// Unary elementwise, one kernel per kernels::UnaryOp in its order (the
/// first kUnaryKernelCount). Bindings (in, out; out may be in). Params:
/// count (strategy: the input's elements).
inline constexpr const char *kUnaryKernels[] = {
    "relu_f32", "sigmoid_f32", "tanh_f32", "exp_f32", "silu_f32", "gelu_f32"};
inline constexpr int64_t kUnaryParams = 1;

/// Resize of the last two dims, nearest or linear (kernels::resize2d).
/// Bindings (in, out). Params: planes, H, W, OH, OW (strategy), mode,
/// coordinate mode, nearest mode (kernels::Resize* enums), the H and W
/// coordinate scales as the bit patterns of f64 values.
inline constexpr const char *kResize2d = "resize_2d_f32";
inline constexpr int64_t kResize2dParams = 5 + 5;

/// Concat of up to kConcatMaxInputs f32 tensors (kernels::concatF32).
/// Bindings: the inputs (unused ones bound to the output and not read),
/// then the output (binding kConcatMaxInputs). Params: inputs, outer (the
/// product of the output dims before the axis), then each input's elements
/// per outer slice (0 past `inputs`).
inline constexpr const char *kConcat = "concat_f32";
inline constexpr int64_t kConcatMaxInputs = 8;
inline constexpr int64_t kConcatParams = 2 + kConcatMaxInputs;

/// 2-d transposed convolution (strata/Kernels/Deconv.h). Bindings (input,
/// filter C x O/G x KH x KW, bias, output; no bias: the output in its
/// place). Params: N, C, H, W, OH, OW, O, KH, KW, SH, SW, PT, PL, PB, PR,
/// DH, DW, G (strategy), has_bias, activation, p0, p1.
inline constexpr const char *kDeconv = "deconv2d_gemm_f32";
inline constexpr int64_t kDeconvParams = 18 + 4;

/// The epilogue params: has_bias (0/1), activation (kernels::Activation),
/// its two params as the bit patterns of f32 values, and has_residual (0/1:
/// binding kResidualBinding, shaped as the output, is added before the
/// activation). The depthwise kernel takes no residual (has_residual 0).
inline constexpr int64_t kEpilogueParams = 5;
inline constexpr int64_t kResidualBinding = 4;

/// The fused inverted-residual block (strata/Kernels/InvertedResidual.h):
/// 1x1 expansion, 3x3 depthwise, 1x1 projection. Bindings (input, w1
/// packed as a GEMM A operand E x C, b1, depthwise filter E x 1 x 3 x 3,
/// b2, w3 packed E x P -> P x E A operand, b3, output, residual; an absent
/// bias or residual binds the output, not read). Params: N, C, H, W, E, P,
/// stride, PT, PL, PB, PR, OH, OW, then per stage has_bias, activation, p0,
/// p1 (three times), has_residual, strip_rows (0: from the cache size at
/// run time).
inline constexpr const char *kInvertedResidual = "conv2d_inverted_residual_f32";
inline constexpr int64_t kInvertedResidualBindings = 9;
inline constexpr int64_t kInvertedResidualParams = 13 + 3 * 4 + 2;

inline constexpr int64_t kMatmulParams =
    kMatmulStrategyParams + 3 + kEpilogueParams;
inline constexpr int64_t kConv1x1Params =
    kConv1x1StrategyParams + 1 + kEpilogueParams;
inline constexpr int64_t kConvParams =
    kConvStrategyParams + 1 + kEpilogueParams;
inline constexpr int64_t kConvWinogradParams = kConvParams + 1;
inline constexpr int64_t kKernelBindings = 5;
/// The int8 kernels take no residual: input, packed weight, bias, output.
inline constexpr int64_t kInt8KernelBindings = 4;
inline constexpr int64_t kMatmulI8Params =
    kMatmulStrategyParams + 3 + kInt8EpilogueParams;
inline constexpr int64_t kConv1x1I8Params =
    kConv1x1StrategyParams + 1 + kInt8EpilogueParams;
inline constexpr int64_t kConvI8Params =
    kConvStrategyParams + 1 + kInt8EpilogueParams;

inline int64_t floatParam(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return int64_t(bits);
}
inline int64_t doubleParam(double d) {
  int64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}
inline double paramDouble(int64_t p) {
  double d;
  std::memcpy(&d, &p, sizeof d);
  return d;
}
inline float paramFloat(int64_t p) {
  uint32_t bits = uint32_t(p);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// The convolution geometry of a conv kernel's params (the 1x1 kernel's as
/// one over an HW x 1 image). Not checked: see checkConv2dShape.
Conv2dShape convShapeFromParams(std::string_view kernel, const int64_t *p);

/// The pooling geometry of a pool kernel's first 16 params (N, C, H, W, OH,
/// OW, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW). Not checked: see
/// checkPool2dShape.
Pool2dShape poolShapeFromParams(const int64_t *p);

/// Whether the runtime has a kernel of this name for the compiler to call
/// (the oneDNN ones included: only a build with oneDNN selects them).
bool isRuntimeKernel(std::string_view name);
/// Whether `name` is one of the oneDNN-backed kernels.
bool isOneDnnKernel(std::string_view name);

/// How many workgroups a memory-bound kernel over `elements` floats asks
/// for: one per 16 Ki elements (about 10 us of work), a power of two up to
/// 8. The runtime runs min(count, threads) of them: a dispatch above the
/// first step takes every thread of a 2-thread session.
int64_t suggestedOpWorkgroups(int64_t elements);

/// How many workgroups a dispatch of `kernel` with `params` asks for: about
/// one per MFLOP (the depthwise and matrix-vector kernels, bound by memory,
/// count each multiply-add 8 times), a power of two up to 8 (two threads share them
/// evenly). A workgroup of a MFLOP is about 10 us of the GEMM microkernel,
/// several times the thread pool's fork and join.
int64_t suggestedWorkgroups(std::string_view kernel, const int64_t *params,
                            int64_t count);

} // namespace strata::kernels::kabi

#endif // STRATA_KERNELS_KERNELABI_H
