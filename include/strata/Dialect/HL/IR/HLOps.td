//===- HLOps.td - the NPU's kernel-level dialect -------------*- tablegen -*-===//
//
// HL (the seed's TorqHL): one op per hand kernel of the NPU, with operands
// and attributes as the hardware takes them. docs/npu.md has the op table.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_HL_OPS
#define STRATA_HL_OPS

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "strata/Interpreter/InterpretableOpInterface.td"

def HL_Dialect : Dialect {
  let name = "hl";
  let cppNamespace = "::strata::hl";
  let summary = "The NPU's kernels (kernel level, NCHW)";
  let description = [{
    One op per hand kernel of the NPU. Activations are NCHW; integer
    operands hold int8 storage (`!quant.uniform<i8:...>` or `i8`) and every
    quantization parameter is an attribute or the per-channel `[C, 3]`
    scale+bias tensor (rows bias, multiplier, shift); weights are packed
    `(O/B)IHWB` with `B` the NPU description's `weight_channel_block`.
    Each op carries its reference semantics (`InterpretableOpInterface`):
    the interpreter is the NPU's golden model. Constants are `top.Weight`.
  }];
  let dependentDialects = ["::mlir::quant::QuantDialect"];
}

/// A 64-bit integer attribute read as int64_t (zero points and clip bounds
/// are negative).
def HL_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                              "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

class HL_Op<string mnemonic, list<Trait> traits = []>
    : Op<HL_Dialect, mnemonic, !listconcat(traits, [Pure,
          DeclareOpInterfaceMethods<InterpretableOpInterface>])> {
  let assemblyFormat =
      "`(` operands `)` attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

// The integer epilogue shared by the MAC kernels: zero points, clip bounds
// in the output's integer domain and the accumulator width.
defvar HL_IntEpilogue = (ins
  DefaultValuedAttr<HL_I64Attr, "0">:$input_zp,
  DefaultValuedAttr<HL_I64Attr, "0">:$weight_zp,
  DefaultValuedAttr<HL_I64Attr, "0">:$output_zp,
  DefaultValuedAttr<HL_I64Attr, "-128">:$clip_min,
  DefaultValuedAttr<HL_I64Attr, "127">:$clip_max,
  DefaultValuedAttr<BoolAttr, "false">:$relu,
  OptionalAttr<F64Attr>:$relu_limit,
  DefaultValuedAttr<HL_I64Attr, "32">:$accumulator_bits,
  DefaultValuedAttr<StrAttr, "\"multiplier_shift\"">:$rounding);

// The window of conv2d, depthwise_conv2d, maxpool and avgpool.
defvar HL_Window = (ins
  DenseI64ArrayAttr:$pad,
  DenseI64ArrayAttr:$stride,
  DenseI64ArrayAttr:$dilation,
  DefaultValuedAttr<HL_I64Attr, "1">:$segments,
  OptionalAttr<DenseI64ArrayAttr>:$segment_output);

def HL_Conv2DOp : HL_Op<"conv2d"> {
  let summary = "Grouped 2-d convolution with the requantizing epilogue";
  let description = [{
    `input` `N x C x H x W`, `weights` packed `(O/B) x C/groups x KH x KW x B`
    (`B` = weight_channel_block; output channels `O..` up to the multiple of
    `B` hold zero weights), `scale_bias` `O x 3` i32 (rows bias, multiplier,
    shift; shift in [0, 63]) or `O x 4` (a fourth column: the channel's
    output zero point, added to `output_zp`; not with `segment_output`).
    Integer per output element:
    `acc = bias[o] + sum_{ic, kh, kw} (x - input_zp) * (w - weight_zp)` in
    `accumulator_bits`-wide two's complement, padding reads `input_zp`;
    `out = requantMultiplierShift(acc, multiplier[o], shift[o], output_zp,
    clip_min, clip_max)` (include/strata/Support/IntegerRequant.h);
    `rounding = "tflite"`: `requantTFLite` instead (gemmlowp's
    SaturatingRoundingDoublingHighMul by a Q0.31 multiplier, then
    RoundingDivideByPOT; the rule of TFLite-mode `top.Requant`).
    bf16: `scale_bias` is `O` f32 biases; products and sums in f32 from the
    bias in the order ic, kh, kw; `relu` then clamps at 0 and `relu_limit`
    (bf16 only, e.g. 6.0 for ReLU6) from above, in f32; the result is
    rounded to bf16 (nearest even).

    `pad` `[top, left, bottom, right]`, `stride`, `dilation` `[h, w]`.
    `segments = s > 1`: the input is `hl.segmentation`'s `N x C x s*s x Hs x
    Ws` (phases of the padded input; `pad` must be zeros) and the kernel
    walks each phase at stride 1: tap `(kh, kw)` of output `(y, x)` reads
    phase `((kh*dh) % s, (kw*dw) % s)` at `(y + kh*dh / s, x + kw*dw / s)`.
    `segment_output = [s, top, left, bottom, right]`: the result is written
    already segmented for a strided consumer (`hl.segmentation` fused).
  }];
  let arguments = !con((ins AnyRankedTensor:$input, AnyRankedTensor:$weights,
                            AnyRankedTensor:$scale_bias,
                            DefaultValuedAttr<HL_I64Attr, "1">:$groups),
                       HL_Window, HL_IntEpilogue);
  let results = (outs AnyRankedTensor:$output);
}

def HL_DepthwiseConv2DOp : HL_Op<"depthwise_conv2d"> {
  let summary = "Depthwise 2-d convolution (one filter per channel)";
  let description = [{
    As `hl.conv2d` with `groups = C` and one output channel per input
    channel; `weights` packed `(C/B) x KH x KW x B`, `scale_bias` `C x 3`
    (or `C x 4` with per-channel output zero points, as `hl.conv2d`).
  }];
  let arguments = !con((ins AnyRankedTensor:$input, AnyRankedTensor:$weights,
                            AnyRankedTensor:$scale_bias),
                       HL_Window, HL_IntEpilogue);
  let results = (outs AnyRankedTensor:$output);
}

def HL_FullyConnectedOp : HL_Op<"fully_connected"> {
  let summary = "Fully connected layer: input `N x I`, weights `(O/B) x I x B`";
  let description = [{
    `out[n, o] = requant(bias[o] + sum_i (x[n, i] - input_zp) * (w[o, i] -
    weight_zp))` with `scale_bias` `O x 3`, as `hl.conv2d` (bf16 alike).
  }];
  let arguments = !con((ins AnyRankedTensor:$input, AnyRankedTensor:$weights,
                            AnyRankedTensor:$scale_bias),
                       HL_IntEpilogue);
  let results = (outs AnyRankedTensor:$output);
}

def HL_MatMulOp : HL_Op<"matmul"> {
  let summary = "Matrix product of two activations `[B..] x M x K`, `[B..] x K x N`";
  let description = [{
    `out[.., m, n] = requant(bias[n] + sum_k (a - input_zp) * (b - weight_zp))`
    with `scale_bias` `N x 3` (bf16: `N` f32 biases); both operands of the
    same rank, batch dims equal.
  }];
  let arguments = !con((ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                            AnyRankedTensor:$scale_bias),
                       HL_IntEpilogue);
  let results = (outs AnyRankedTensor:$output);
}

// Elementwise binary ops. Integer: each input is rescaled
// `l = requant((x - zp) << left_shift, multiplier, shift)` (TFLite's ADD
// structure with Strata's rounding), then combined, then
// `out = requant(r, output_multiplier, output_shift, output_zp, clip)`;
// mul multiplies `(l - lhs_zp) * (r - rhs_zp)` without the input rescale.
class HL_BinaryOp<string mnemonic, string what> : HL_Op<mnemonic> {
  let summary = "Elementwise " # what # " of two tensors of the same shape";
  let description = [{
    Integer (int8): `a = requant((lhs - lhs_zp) << left_shift,
    lhs_multiplier, lhs_shift)`, `b` alike from `rhs`, then `r = a OP b`
    (`mul`: `r = (lhs - lhs_zp) * (rhs - rhs_zp)`, no input rescale), then
    `out = requantMultiplierShift(r, output_multiplier, output_shift,
    output_zp, clip_min, clip_max)`; every requant and rescale uses
    `requantTFLite` when `rounding = "tflite"` (then `add` is TFLite's
    reference ADD). bf16: computed in f32, rounded to bf16.
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
      DefaultValuedAttr<HL_I64Attr, "0">:$lhs_zp,
      DefaultValuedAttr<HL_I64Attr, "1">:$lhs_multiplier,
      DefaultValuedAttr<HL_I64Attr, "0">:$lhs_shift,
      DefaultValuedAttr<HL_I64Attr, "0">:$rhs_zp,
      DefaultValuedAttr<HL_I64Attr, "1">:$rhs_multiplier,
      DefaultValuedAttr<HL_I64Attr, "0">:$rhs_shift,
      DefaultValuedAttr<HL_I64Attr, "0">:$left_shift,
      DefaultValuedAttr<HL_I64Attr, "1">:$output_multiplier,
      DefaultValuedAttr<HL_I64Attr, "0">:$output_shift,
      DefaultValuedAttr<HL_I64Attr, "0">:$output_zp,
      DefaultValuedAttr<HL_I64Attr, "-128">:$clip_min,
      DefaultValuedAttr<HL_I64Attr, "127">:$clip_max,
      DefaultValuedAttr<StrAttr, "\"multiplier_shift\"">:$rounding);
  let results = (outs AnyRankedTensor:$output);
}
def HL_AddOp : HL_BinaryOp<"add", "sum">;
def HL_SubOp : HL_BinaryOp<"sub", "difference">;
def HL_MulOp : HL_BinaryOp<"mul", "product">;
def HL_MinOp : HL_BinaryOp<"min", "minimum">;
def HL_MaxOp : HL_BinaryOp<"max", "maximum">;

def HL_ActivationOp : HL_Op<"activation"> {
  let summary = "The activation unit: rescale, zero point, clip";
  let description = [{
    `out = requantMultiplierShift(x - input_zp, multiplier, shift, output_zp,
    clip_min, clip_max)` (ReLU: `clip_min = output_zp`; ReLU6: `clip_max` the
    integer of 6; `rounding = "tflite"`: `requantTFLite`). bf16:
    `clamp(x, clip_min, clip_max)`.
  }];
  let arguments = (ins AnyRankedTensor:$input,
      DefaultValuedAttr<HL_I64Attr, "0">:$input_zp,
      DefaultValuedAttr<HL_I64Attr, "1">:$multiplier,
      DefaultValuedAttr<HL_I64Attr, "0">:$shift,
      DefaultValuedAttr<HL_I64Attr, "0">:$output_zp,
      DefaultValuedAttr<HL_I64Attr, "-128">:$clip_min,
      DefaultValuedAttr<HL_I64Attr, "127">:$clip_max,
      DefaultValuedAttr<StrAttr, "\"multiplier_shift\"">:$rounding);
  let results = (outs AnyRankedTensor:$output);
}

def HL_TableOp : HL_Op<"table"> {
  let summary = "The activation unit's lookup table (any int8 function)";
  let description = [{
    `out = table[x - min]` for an int8 `input` (`min` = -128, or 0 for
    uint8); `table` is a 1-d constant of `lut_entries` (the NPU
    description's) elements of the output's storage type, and `lut_entries`
    must be 2^8. A 2-d `C x lut_entries` table holds one table per channel
    (the input's dim 1): `out[n, c, ...] = table[c, x - min]`.
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$table,
                   HL_I64Attr:$lut_entries);
  let results = (outs AnyRankedTensor:$output);
}

def HL_Table16Op : HL_Op<"table16"> {
  let summary = "The activation unit's interpolated int16-input table";
  let description = [{
    `out = table16Lookup(table, x, -128, 127)` for each element `x` of a
    signed int16 `input` (strata/Support/IntegerTable16.h, top.Table16's
    definition: TOSA's int16 TABLE of 513 entries, a 9-bit index and 7-bit
    linear interpolation, then a rounding right shift by 14 and a clamp).
    `table` is a 1-d constant of 513 i16 entries (the NPU description's
    `lut16_entries`), the result signed int8 of the input's shape. The
    int16 input is what an int8 hl.conv2d / hl.depthwise_conv2d writes
    with an int16 result: the NPU folds the pair into the convolution's
    activation unit (the int16 value never leaves it).
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$table);
  let results = (outs AnyRankedTensor:$output);
}

def HL_MaxPoolOp : HL_Op<"maxpool"> {
  let summary = "Max pooling (window `kernel`, padding never wins)";
  let description = [{
    `out[n, c, y, x] = max` over the window's taps inside the input; same
    element type as the input. `segments` / `segment_output` as `hl.conv2d`.
  }];
  let arguments = !con((ins AnyRankedTensor:$input,
                            DenseI64ArrayAttr:$kernel), HL_Window);
  let results = (outs AnyRankedTensor:$output);
}

def HL_AvgPoolOp : HL_Op<"avgpool"> {
  let summary = "Average pooling with the requantizing epilogue";
  let description = [{
    Integer: `s = sum (x - input_zp)` over the taps inside the input,
    `n` = their count (`count_include_pad`: the window's size), `a =
    round_half_away_from_zero(s / n)`, `out = requantMultiplierShift(a,
    multiplier, shift, output_zp, clip_min, clip_max)`. bf16: the f32 mean
    rounded to bf16.
  }];
  let arguments = !con((ins AnyRankedTensor:$input,
                            DenseI64ArrayAttr:$kernel,
                            DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                            DefaultValuedAttr<HL_I64Attr, "0">:$input_zp,
                            DefaultValuedAttr<HL_I64Attr, "1">:$multiplier,
                            DefaultValuedAttr<HL_I64Attr, "0">:$shift,
                            DefaultValuedAttr<HL_I64Attr, "0">:$output_zp,
                            DefaultValuedAttr<HL_I64Attr, "-128">:$clip_min,
                            DefaultValuedAttr<HL_I64Attr, "127">:$clip_max),
                       HL_Window);
  let results = (outs AnyRankedTensor:$output);
}

def HL_ReduceMeanOp : HL_Op<"reduce_mean"> {
  let summary = "Mean over `axes` (kept as size-1 dims), requantized";
  let description = [{
    Integer: `s = sum (x - input_zp)` over the reduced dims, `n` their
    element count, `a = round_half_away_from_zero(s / n)`, `out =
    requantMultiplierShift(a, multiplier, shift, output_zp, clip_min,
    clip_max)` (as `hl.avgpool`). bf16: the f32 sum in index order divided
    by `n`, rounded to bf16.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<HL_I64Attr, "0">:$input_zp,
                       DefaultValuedAttr<HL_I64Attr, "1">:$multiplier,
                       DefaultValuedAttr<HL_I64Attr, "0">:$shift,
                       DefaultValuedAttr<HL_I64Attr, "0">:$output_zp,
                       DefaultValuedAttr<HL_I64Attr, "-128">:$clip_min,
                       DefaultValuedAttr<HL_I64Attr, "127">:$clip_max);
  let results = (outs AnyRankedTensor:$output);
}

def HL_GatherOp : HL_Op<"gather"> {
  let summary = "Takes the `indices` (a 1-d integer tensor) along `axis`";
  let description = [{
    `out[.., i, ..] = input[.., indices[i], ..]` along `axis`; a negative
    index counts from the end; an index outside the axis is an error.
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$indices,
                   HL_I64Attr:$axis);
  let results = (outs AnyRankedTensor:$output);
}

def HL_ResizeNearestOp : HL_Op<"resize_nearest"> {
  let summary = "Nearest-neighbour resize of an NCHW tensor";
  let description = [{
    `out[n, c, y, x] = input[n, c, (y * H) / OH, (x * W) / OW]` (integer
    division: the asymmetric, floor mapping of TFLite's RESIZE_NEAREST
    without half-pixel centers and of ONNX's `asymmetric` + `floor`).
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
}

def HL_DepthToSpaceOp : HL_Op<"depth_to_space"> {
  let summary = "Moves `block^2` channel groups into `block x block` pixels";
  let description = [{
    `N x C*b*b x H x W -> N x C x H*b x W*b`. `mode = "DCR"` (depth, column,
    row; TFLite and ONNX's default): `out[n, c, h*b + i, w*b + j] = in[n,
    (i*b + j)*C + c, h, w]`; `"CRD"`: `in[n, c*b*b + i*b + j, h, w]`.
  }];
  let arguments = (ins AnyRankedTensor:$input, HL_I64Attr:$block,
                   DefaultValuedAttr<StrAttr, "\"DCR\"">:$mode);
  let results = (outs AnyRankedTensor:$output);
}

def HL_TransposeOp : HL_Op<"transpose"> {
  let summary = "Permutes the dims: `out.shape[i] = in.shape[perm[i]]`";
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs AnyRankedTensor:$output);
  let hasFolder = 1;
}

def HL_SegmentationOp : HL_Op<"segmentation"> {
  let summary = "Partitions the padded input into stride^2 phases";
  let description = [{
    `input` `N x C x H x W` -> `N x C x s*s x Hs x Ws` with `s = stride`:
    `out[n, c, a*s + b, u, v] = P[n, c, s*u + a, s*v + b]` where `P` is the
    input padded by `pad` `[top, left, bottom, right]` with `pad_value`
    (positions beyond `P` also read `pad_value`). A strided `hl.conv2d`,
    `hl.depthwise_conv2d` or `hl.maxpool` with `segments = s` then walks
    each phase at stride 1 (the seed's segmentation of strided kernels).
  }];
  let arguments = (ins AnyRankedTensor:$input, HL_I64Attr:$stride,
                   DenseI64ArrayAttr:$pad,
                   DefaultValuedAttr<HL_I64Attr, "0">:$pad_value);
  let results = (outs AnyRankedTensor:$output);
}

def HL_ConcatOp : HL_Op<"concat"> {
  let summary = "Concatenates tensors of one element type along `axis`";
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, HL_I64Attr:$axis);
  let results = (outs AnyRankedTensor:$output);
}

def HL_ConvertOp : HL_Op<"convert"> {
  let summary = "Converts between int8, bf16 and f32";
  let description = [{
    int8 -> bf16/f32: `(q - zp) * scale` in f64, rounded to f32 (then to
    bf16, nearest even);
    bf16/f32 -> int8: `clamp(round_half_even(x / scale) + zp, -128, 127)`
    (the rule of `top.Quant`); bf16 <-> f32: round to nearest even.
  }];
  let arguments = (ins AnyRankedTensor:$input,
                   DefaultValuedAttr<F64Attr, "1.0">:$scale,
                   DefaultValuedAttr<HL_I64Attr, "0">:$zp);
  let results = (outs AnyRankedTensor:$output);
}

#endif // STRATA_HL_OPS
