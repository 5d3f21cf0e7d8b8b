//===- Passes.td - Top to the NPU's HL dialect --------------*- tablegen -*-===//

#ifndef STRATA_CONVERSION_TOPTOHL_PASSES
#define STRATA_CONVERSION_TOPTOHL_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTopToHL : Pass<"convert-top-to-hl", "::mlir::ModuleOp"> {
  let summary = "Lower the Top ops an NPU kernel implements to HL";
  let description = [{
    For each Top op the npu-sim strategy table (lib/Strategy/NpuStrategies)
    gives an HL kernel, and whose kernel conditions hold, writes the HL op
    with its weights packed `(O/B)IHWB` (`B` = the NPU description's
    `weight_channel_block`) and its `[C, 3]` scale+bias tensor:

    - int8 `top.Conv` (NCHW, 2-d, constant int8 weights, constant int32 or
      no bias, one input zero point) whose only user is a
      `MultiplierShift` `top.Requant` -> `hl.conv2d`, or
      `hl.depthwise_conv2d` when `group == C == O`; `do_relu` becomes
      `clip_min = output_zp`;
    - int8 rank-2 `top.MatMul` with constant weights + Requant ->
      `hl.fully_connected`;
    - bf16 `top.Conv` / rank-2 `top.MatMul` with constant bf16 weights ->
      the same ops in bf16.

    Every other op stays a Top op (the CPU runs it). docs/npu.md lists the
    conditions.

    ```mlir
    %acc = top.Conv(%x, %w, %b) {input_zp = array<i64: 3>, kernel_shape = array<i64: 3, 3>, ...} : (...) -> tensor<1x8x6x6xi32>
    %y = top.Requant(%acc) {multiplier = array<i64: ...>, rshift = array<i64: ...>} : (...) -> tensor<1x8x6x6x!quant.uniform<i8:f32, 0.1:-5>>
    ```
    becomes
    ```mlir
    %y = hl.conv2d(%x, %wp, %sb) {input_zp = 3, output_zp = -5, clip_min = -128, clip_max = 127, pad = ..., stride = ..., dilation = ...} : (tensor<1x4x8x8x!quant...>, tensor<2x4x3x3x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6x!quant...>
    ```
  }];
  let options = [
    Option<"npuConfig", "npu-config", "std::string", "",
           "the NPU description (a JSON file, docs/npu.md); default: the "
           "built-in one">,
  ];
  let dependentDialects = ["::strata::hl::HLDialect"];
}

def HLSegmentStrided : Pass<"hl-segment-strided", "::mlir::ModuleOp"> {
  let summary = "Rewrite strided HL kernels to stride 1 over segmented inputs";
  let description = [{
    An `hl.conv2d`, `hl.depthwise_conv2d` or `hl.maxpool` with stride `s x s`
    (`s >= 2`) reads its input through an `hl.segmentation` (the padded
    input split into its `s^2` row/column phases) and walks each phase at
    stride 1 (`segments = s`, `pad` moved to the segmentation). Results are
    exactly those of the strided op. With `fuse` (default), a segmentation
    whose input is produced by an HL window op with no other user is fused
    into it: the producer writes its result already segmented
    (`segment_output`).
  }];
  let options = [
    Option<"fuse", "fuse", "bool", "true",
           "fuse the segmentation into the producing HL op when possible">,
  ];
}

def HLCancelTransposes : Pass<"hl-cancel-transposes", "::mlir::ModuleOp"> {
  let summary = "Remove adjacent inverse hl.transpose pairs";
  let description = [{
    `hl.transpose(hl.transpose(x, p), q)` with `q` the inverse of `p` is `x`;
    identity transposes vanish. Repeats until no pair is left.
  }];
}

#endif // STRATA_CONVERSION_TOPTOHL_PASSES
