//===- TopQuantOps.td - quantize, dequantize, requantize ---*- tablegen -*-===//
//
// Conversions between float tensors and tensors of MLIR quant dialect types
// (`!quant.uniform`), and between quantized representations. Quantized
// tensors hold their storage integers on the host (an `int8` npz array for
// `!quant.uniform<i8:f32, ...>`, `uint8` for `u8`).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_QUANT_OPS
#define STRATA_TOP_QUANT_OPS

def Top_QuantOp : Top_Op<"Quant", [Pure]> {
  let summary = "Quantize a float tensor (ONNX QuantizeLinear)";
  let description = [{
    Converts a float tensor to the `!quant.uniform` element type of the
    result, which carries the parameters:

    `q = clamp(round_half_to_even(x / scale) + zero_point, qmin, qmax)`

    - The result element type is a per-tensor
      (`!quant.uniform<i8:f32, 0.1:3>`) or per-axis
      (`!quant.uniform<i8:f32:1, {0.1:1, 0.2:-2}>`) uniform quantized type
      with integer storage. For per-axis types, element `x[..., i, ...]`
      (index `i` on the quantized dimension) uses `scale[i]` and
      `zero_point[i]`; the quantized dimension must be a dim of the tensor
      and the type must list one scale per index of that dim.
    - The input element type must be the quantized type's expressed type
      (`f32` for `!quant.uniform<i8:f32, ...>`).
    - `qmin`, `qmax` are the storage range: the full range of the storage
      integer type (`[-128, 127]` for `i8`, `[0, 255]` for `u8`) or the
      explicit bounds of a narrow type such as `i8<-127:127>`.
    - The division is done in f64 with the scale exactly as written in the
      type; ties round to even. Infinities saturate to `qmin`/`qmax`; NaN
      quantizes to the zero point.

    ```mlir
    %q = top.Quant(%x) : (tensor<1x4xf32>) -> tensor<1x4x!quant.uniform<i8:f32, 0.05:-3>>
    ```
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_DequantOp : Top_Op<"Dequant", [Pure]> {
  let summary = "Dequantize to float (ONNX DequantizeLinear)";
  let description = [{
    Converts a tensor of `!quant.uniform` element type (per-tensor or
    per-axis, see `top.Quant`) to float:

    `x = (q - zero_point) * scale`

    computed exactly in f64 and rounded once to the result element type,
    which must be the quantized type's expressed type.

    ```mlir
    %x = top.Dequant(%q) : (tensor<8x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_RequantOp : Top_Op<"Requant", [Pure]> {
  let summary = "Change quantization parameters (TPU-MLIR RequantInt/Fp)";
  let description = [{
    Maps a quantized or plain integer tensor to another quantized or plain
    integer tensor of the same shape, typically an int32 convolution or
    matmul accumulator to int8. Each element is computed as

    `y = clamp(f(q - zp_in) + zp_out, qmin, qmax)`

    where `zp_in` is the input type's zero point (0 for a plain integer
    input, and `q - zp_in` is exact in int64), `zp_out` the output type's
    zero point (0 for a plain integer result), and `qmin`/`qmax` the
    result's storage range (see `top.Quant`; a plain integer result
    saturates to its type's range). Per-axis input and output types use
    their own quantized dimension. `f` depends on `quant_mode`:

    - `"MultiplierShift"` (TPU-MLIR `MultiplierShift`): `f(x) =
      round_half_away_from_zero(x * multiplier / 2^rshift)`, with the product
      exact (128-bit), i.e. a rounding arithmetic right shift.
    - `"TFLite"` (TFLite / gemmlowp `MultiplyByQuantizedMultiplier` without
      left shift): `x` is first saturated to int32, then
      `f(x) = RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x,
      multiplier), rshift)`. `SaturatingRoundingDoublingHighMul(a, b)` is
      `(a * b + nudge) / 2^31` on the exact 64-bit product with C division
      (truncating toward zero), `nudge = 2^30` for a non-negative product and
      `1 - 2^30` for a negative one; the only overflow,
      `INT32_MIN * INT32_MIN`, saturates to `INT32_MAX`.
      `RoundingDivideByPOT(v, s)` divides by `2^s` rounding to nearest with
      ties away from zero. `multiplier` is a Q0.31 value, in practice in
      `[2^30, 2^31)` (TFLite's `QuantizeMultiplier`).
    - `"TFLiteHalfUp"` (what the TFLite interpreter, ai-edge-litert 2.x on
      x86, computes for CONV_2D and FULLY_CONNECTED: ruy's / ARM's
      SQRDMULH + rounding shift): as `"TFLite"`, but
      `RoundingDivideByPOT` is replaced by a division by `2^rshift` that
      rounds ties toward +infinity, `floor((v + 2^(rshift-1)) / 2^rshift)`.
      It differs from `"TFLite"` exactly on negative ties of that division
      (-19.5 gives -19 here, -20 there), and from a single rounding of the
      exact `x * multiplier / 2^(31 + rshift)` (`"TosaSingleRound"` with
      `rshift + 31`) where the first rounding moves a value onto or off a
      tie.
    - `"Float"` (TPU-MLIR `RequantFp`): the input and result must both be
      `!quant.uniform` types; `real = (q - zp_in) * scale_in`, then
      `y = clamp(round_half_to_even(real / scale_out) + zp_out, qmin, qmax)`,
      each an f64 operation: `top.Dequant` with the input parameters
      followed by `top.Quant` with the output ones, without rounding `real`
      to the expressed type. `multiplier` and `rshift` must be absent.
    - `"TosaSingleRound"` (TOSA's `tosa.rescale` with `SINGLE_ROUND`, and
      `apply_scale_16`): `f(x) = floor((x * multiplier + 2^(rshift-1)) /
      2^rshift)` with the product exact, i.e. round half up (toward
      +infinity), unlike `"MultiplierShift"`'s ties away from zero: x = -480,
      multiplier = 2^30, rshift = 36 gives -7 here and -8 there.
    - `"TosaDoubleRound"` (TOSA's `DOUBLE_ROUND`, `apply_scale_32`): as
      `"TosaSingleRound"` but for `rshift > 31` the rounding term is further
      `+ 2^30` when `x >= 0` and `- 2^30` when `x < 0`.
      TOSA's unsigned inputs and outputs (`input_unsigned`,
      `output_unsigned`) are unsigned element types here (`ui8`,
      `!quant.uniform<u8:...>`), its zero points the types' zero points.

    Attributes:

    - `quant_mode`: `"MultiplierShift"` (default), `"TFLite"`,
      `"TFLiteHalfUp"`, `"Float"`, `"TosaSingleRound"` or
      `"TosaDoubleRound"`.
    - `multiplier`: for the integer modes, one value or one per channel,
      where the channel is dim `axis` of the input. Values lie in the int32
      range (`[0, 2^31 - 1]` for `"TFLite"`, `"TFLiteHalfUp"` and the TOSA
      modes).
    - `axis`: the channel dim of per-channel `multiplier` / `rshift`, in
      `[0, rank)`; absent means dim 1 (TPU-MLIR's NCHW convention; then
      per-channel values need rank >= 2). TFLite and TOSA, NHWC, use the
      last dim.
    - `rshift`: like `multiplier`, one value or one per channel, each in
      `[0, 63]`; required together with `multiplier` and of the same length
      or length 1.

    The input and result element types are `!quant.uniform` types with 8,
    16 or 32-bit integer storage, or 8, 16 or 32-bit integer types.

    ```mlir
    %y = top.Requant(%acc) {multiplier = array<i64: 1717986918>,
                             rshift = array<i64: 5>, quant_mode = #top.requant_mode<TFLite>}
        : (tensor<1x8x4x4xi32>) -> tensor<1x8x4x4x!quant.uniform<i8:f32, 0.1:-4>>
    ```
  }];
  let arguments = (ins
    Top_Tensor:$input,
    OptionalAttr<DenseI64ArrayAttr>:$multiplier,
    OptionalAttr<DenseI64ArrayAttr>:$rshift,
    Top_DefaultEnum<Top_RequantModeAttr, "MultiplierShift">:$quant_mode,
    OptionalAttr<I64Attr>:$axis
  );
  let results = (outs Top_Tensor:$output);
  // The builder of the attributes before `axis` (channel on dim 1).
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::mlir::DenseI64ArrayAttr":$multiplier,
                   "::mlir::DenseI64ArrayAttr":$rshift,
                   "::strata::top::RequantModeAttr":$quant_mode), [{
      build($_builder, $_state, output, input, multiplier, rshift, quant_mode,
            ::mlir::IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

#endif // STRATA_TOP_QUANT_OPS
