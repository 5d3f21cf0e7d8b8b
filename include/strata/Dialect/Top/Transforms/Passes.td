//===- Passes.td - Top dialect passes ----------------------*- tablegen -*-===//

#ifndef STRATA_TOP_PASSES
#define STRATA_TOP_PASSES

include "mlir/Pass/PassBase.td"

def TopShapeInfer : Pass<"top-shape-infer", "::mlir::func::FuncOp"> {
  let summary = "Fill in result shapes written as unknown";
  let description = [{
    Walks the function in order and, for every Top op whose operands all have
    static shapes, replaces each result type that is unranked or has dynamic
    dims with the inferred static shape (keeping the element type). Then
    updates the function's result types to match its `return`.

    Before:
    ```mlir
    %1 = top.Relu(%0) : (tensor<1x8xf32>) -> tensor<*xf32>
    ```
    After:
    ```mlir
    %1 = top.Relu(%0) : (tensor<1x8xf32>) -> tensor<1x8xf32>
    ```
  }];
  let dependentDialects = ["::strata::top::TopDialect"];
}

def TopFuseComposites : Pass<"top-fuse-composites", "::mlir::ModuleOp"> {
  let summary = "Replace composite functions with the fused op they implement";
  let description = [{
    A `func.func` marked `strata.implements = "<name>"` (or TensorFlow's
    `tf._implements`: a string, or a dictionary whose `name` is the name and
    whose other entries are converter attributes) is a composite. When the
    CompositeRegistry has a converter for the name (matched ignoring case,
    `_` and `-`; a dotted name by its last part) and the converter accepts
    the function's signature, the body is replaced by the fused op(s) and
    the function is marked `strata.fused`; `top-inline-functions` then puts
    the fused op at every call. Converter attributes also come from
    `strata.onnx_attributes` and `strata.composite_attributes`. A composite
    that fails verification is left intact with a warning naming the
    function and the failed check; unknown names are left alone. An ONNX
    model-local function (`strata.onnx_name`) is fused only when the fused
    op and the body agree on seeded inputs through the reference
    interpreter; explicit marks are promises and are not checked. A
    converter attribute of the wrong kind (`epsilon = "abc"`) is an error.
    Built-in names: embedding_lookup, layer_norm, rms_norm, gelu, gelu_tanh,
    silu, scaled_dot_product_attention, lstm, lstm_cell, gru (see
    docs/optimize.md).

    Before:
    ```mlir
    func.func private @ln(%x: tensor<2x8xf32>) -> tensor<2x8xf32>
        attributes {strata.implements = "layer_norm"} {
      ... mean, variance, normalize, op by op ...
    }
    ```
    After:
    ```mlir
    func.func private @ln(%x: tensor<2x8xf32>) -> tensor<2x8xf32>
        attributes {strata.fused, strata.implements = "layer_norm"} {
      %none = top.None() : () -> none
      %0 = top.LayerNorm(%x, %none, %none) {axis = -1 : i64, epsilon = 1.0e-05 : f64}
          : (tensor<2x8xf32>, none, none) -> tensor<2x8xf32>
      return %0 : tensor<2x8xf32>
    }
    ```
  }];
  let dependentDialects = ["::strata::top::TopDialect",
                           "::mlir::func::FuncDialect"];
}

def TopInlineFunctions : Pass<"top-inline-functions", "::mlir::ModuleOp"> {
  let summary = "Inline every call of a function with a body";
  let description = [{
    Replaces each `func.call` by a copy of the callee's body (calls inside
    it are inlined in turn), then erases private functions nobody calls any
    more. The ONNX importer turns model-local functions into private
    functions marked `strata.implements`; composite fusion replaces the
    known ones by fused ops first, and this pass inlines the rest. Fails on
    call chains deeper than 64 (recursion), and before copying anything once
    the ops inlining would create exceed `max-ops` (default 1,000,000): a
    function calling the next twice, 30 deep, is a small model whose inlined
    form has 2^29 ops.

    Before:
    ```mlir
    func.func private @"local.twice"(%x: tensor<2xf32>) -> tensor<2xf32>
        attributes {strata.implements = "local.twice"} {
      %y = top.Add(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %y : tensor<2xf32>
    }
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %r = call @"local.twice"(%a) : (tensor<2xf32>) -> tensor<2xf32>
      return %r : tensor<2xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %r = top.Add(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %r : tensor<2xf32>
    }
    ```
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", "1000000",
           "Most ops inlining may create in total (the inline growth limit)">
  ];
  let dependentDialects = ["::strata::top::TopDialect",
                           "::mlir::func::FuncDialect"];
}

def TopFoldConstants : Pass<"top-fold-constants", "::mlir::ModuleOp"> {
  let summary = "Evaluate ops whose operands are all constants";
  let description = [{
    Every Top op whose tensor operands are all `top.Weight`s carrying a
    `value` (see `top.Weight`) is run through its reference semantics (the
    interpreter's `interpret`) and replaced by new weights holding the
    results. Ops whose results would exceed `max-bytes` (default 64 MiB) or
    be more than twice as large as their operands together (Expand, Tile,
    ConstantOfShape-like growth; unless under 64 KiB) are left alone, so
    folding never inflates the weight file. Weights without a value (data
    still in the weight file only) are not constants for this pass.

    Before:
    ```mlir
    %a = top.Weight() {name = "a", value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
    %b = top.Neg(%a) : (tensor<2xf32>) -> tensor<2xf32>
    ```
    After:
    ```mlir
    %b = top.Weight() {name = "a_fold", value = dense_resource<...>} : () -> tensor<2xf32>
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "64 << 20",
           "Largest result (in bytes) the pass materializes">
  ];
  let dependentDialects = ["::strata::top::TopDialect"];
}

def TopFoldBatchNorm : Pass<"top-fold-batchnorm", "::mlir::ModuleOp"> {
  let summary = "Fold BatchNorm and per-channel scale/shift into convolutions";
  let description = [{
    `top.BatchNorm(top.Conv(x, W, b))` becomes `top.Conv(x, W', b')` with
    `W'[o] = W[o] * s[o]`, `b'[o] = (b[o] - mean[o]) * s[o] + bias[o]` and
    `s = scale / sqrt(variance + epsilon)`. A following `top.Mul` by a
    constant with one value per output channel (shape `[O, 1, ..]` or
    `[1, O, 1, ..]`, or a scalar) folds the same way, and a `top.Add` of such
    a constant folds into the bias. The pattern does not fire when the
    convolution (a `top.Conv`, or a `top.Deconv` whose filter is
    `[C, O/G, ...]`) has another user (it would be duplicated), already applies
    relu, has zero points (integer path), when a weight or statistic is not
    a constant, or when the operand would broadcast the result to a
    different shape.
  }];
  let dependentDialects = ["::strata::top::TopDialect"];
}

def TopFuseActivation : Pass<"top-fuse-activation", "::mlir::func::FuncOp"> {
  let summary = "Fuse activations into conv, matmul and pooling epilogues";
  let description = [{
    `top.Relu(op)` and `top.Clip(op) {min = 0, max = m}` with `op` a
    `top.Conv`, `top.Deconv`, `top.MatMul`, `top.MaxPool` or `top.AvgPool`
    become `op` with `do_relu = true` (and `relu_limit = m`); a Relu of a
    float `top.Add`, `top.Sub` or `top.Mul` becomes its `do_relu`. Sigmoid, SiLU,
    Gelu (erf or tanh), HardSwish, HardSigmoid, LeakyRelu and other clips of
    a Conv, Deconv or MatMul become its `activation` (with
    `activation_params`). Never when `op` has another user or already has
    an epilogue activation, or for integer results.

    Before:
    ```mlir
    %1 = top.MatMul(%x, %w, %b) : (tensor<2x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
    %2 = top.SiLU(%1) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    ```
    After:
    ```mlir
    %2 = top.MatMul(%x, %w, %b) {activation = #top.activation<silu>} : (tensor<2x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
    ```
  }];
  let dependentDialects = ["::strata::top::TopDialect"];
}

def TopFoldMatMulBias : Pass<"top-fold-matmul-bias", "::mlir::ModuleOp"> {
  let summary = "Fold a constant Add after a MatMul into its bias";
  let description = [{
    `top.Add(top.MatMul(x, W, none), b)` with `b` a constant of shape `[N]`
    or `[1, .., 1, N]` (N the MatMul's last result dim, or a single value)
    whose broadcast keeps the MatMul's result shape becomes
    `top.MatMul(x, W, b)`; an existing constant bias is summed with `b`.
    Not when the MatMul has another user, an epilogue (relu or activation),
    when `b` is not a constant or when the Add applies relu.

    Before:
    ```mlir
    %1 = top.MatMul(%x, %w, %none) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
    %2 = top.Add(%1, %b) : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
    ```
    After:
    ```mlir
    %2 = top.MatMul(%x, %w, %b) : (tensor<2x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
    ```
  }];
  let dependentDialects = ["::strata::top::TopDialect"];
}

def TopFuseIdioms : Pass<"top-fuse-idioms", "::mlir::func::FuncOp"> {
  let summary = "Recognize GELU, SiLU, HardSwish, LayerNorm, RMSNorm, Softmax";
  let description = [{
    Replaces the primitive graphs PyTorch and tf2onnx export for common
    functions by the Top op computing them:

    - `x * 0.5 * (1 + erf(x / sqrt(2)))` (any order of the products, or
      `x * 0.7071..`) -> `top.Gelu`;
      `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))` (`x^3` as
      `Pow(x, 3)` or `x * x * x`) -> `top.Gelu {approximate = #top.gelu_approximation<tanh>}`,
    - `x * sigmoid(x)` -> `top.SiLU`; `x * hardsigmoid(x)` (alpha 1/6,
      beta 0.5) and `x * clip(x + 3, 0, 6) / 6` -> `top.HardSwish`,
    - `(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)` (or `* rsqrt`)
      over the last axis, then optional `* gamma` and `+ beta`
      -> `top.LayerNorm`,
    - `x * rsqrt(mean(x^2) + eps) * gamma` (or `/ sqrt`) -> `top.RMSNorm`,
    - `exp(x - max(x)) / sum(exp(x - max(x)))` (also without the max) over
      one axis -> `top.Softmax`; the reductions may keep the dim or drop it
      and be reshaped back (tf2onnx).

    Constants must match within a relative 1e-3 (eps: any value >= 0).
    Never when an intermediate value has a user outside the pattern, when
    the reductions run over other axes than the normalized one, or when a
    constant operand would broadcast the result to another shape.

    Before:
    ```mlir
    %s = top.Sigmoid(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %y = top.Mul(%x, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %y = top.SiLU(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dependentDialects = ["::strata::top::TopDialect"];
}

def TopFoldPad : Pass<"top-fold-pad", "::mlir::func::FuncOp"> {
  let summary = "Fold an explicit zero Pad into the convolution that reads it";
  let description = [{
    `top.Conv(top.Pad(x) {mode = #top.pad_mode<constant>, value = 0})` whose pad touches
    only the spatial dims with non-negative amounts becomes `top.Conv(x)`
    with those amounts added to its `pads`. The same holds for
    `top.MaxPool` with a pad value of -inf or below every input (not
    checked: only -inf qualifies) and for `top.AvgPool` with
    `count_include_pad = true` and zero padding. A Pad with another user
    stays (the convolution still reads the unpadded input). A convolution
    with `input_zp` pads with its zero point, so only a Pad whose value is
    that zero point folds into it (none when the zero point differs per
    channel).
  }];
  let dependentDialects = ["::strata::top::TopDialect"];
}

def TopConvertLayout : Pass<"top-convert-layout", "::mlir::func::FuncOp"> {
  let summary = "Rewrite layout-sensitive ops to the target's layout";
  let description = [{
    Every op with a `layout` attribute (`Conv`, `Deconv`, `MaxPool`,
    `AvgPool`, `GlobalAvgPool`, `BatchNorm`, `GroupNorm`, `DepthToSpace`,
    `SpaceToDepth`) whose layout differs from `target` gets the target
    layout, a `top.Permute` on its data input (and filter) and one on its
    result, so the graph keeps its meaning. Constant filters are permuted
    by folding (`top-fold-constants`), not at run time; the pairs between
    adjacent ops are left for `top-sink-transposes` to cancel.

    Before (`target=nchw`):
    ```mlir
    %y = top.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, layout = #top.layout<NHWC>}
        : (tensor<1x8x8x3xf32>) -> tensor<1x7x7x3xf32>
    ```
    After:
    ```mlir
    %0 = top.Permute(%x) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
    %1 = top.MaxPool(%0) {kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
    %y = top.Permute(%1) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x3x7x7xf32>) -> tensor<1x7x7x3xf32>
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"nchw\"",
           "Layout to convert to: nchw or nhwc">
  ];
  let dependentDialects = ["::strata::top::TopDialect"];
}

def TopSinkTransposes : Pass<"top-sink-transposes", "::mlir::func::FuncOp"> {
  let summary = "Cancel top.Permute pairs by moving layout-agnostic ops";
  let description = [{
    Groups connected layout-agnostic ops of one rank (elementwise unary ops,
    broadcast binary ops, Concat, Reduce with `keepdims`, Pad, Resize,
    Softmax, LogSoftmax) into regions and,
    when that removes Permutes, runs a region in a permuted frame `q`: a
    Permute `p` entering the region composes with `q` (and vanishes when
    `p` and `q` are inverse), a Permute leaving it with `q^-1`; constants
    entering it get a Permute (and a Reshape to full rank for broadcast
    operands) that constant folding removes, other operands one (shared with
    an existing Permute of that operand, if any); axes and pad amounts are
    mapped, and a Reduce without `keepdims` whose kept dims stay in order
    reads the region's frame directly. `q` is tried for every Permute at the region's border and kept
    only if the number of Permutes strictly drops (or stays the same with
    every Permute left on a graph input, which lets e.g. a Pad after the
    input reach the Conv it folds into), so a Permute whose
    other users still need it, or a non-constant operand that would need a
    run-time Permute, stops the rewrite. Then a Permute of a Permute
    composes (an identity one is removed), and a Permute that moves only
    size-1 dims becomes a Reshape.

    Before:
    ```mlir
    %0 = top.Permute(%x) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
    %1 = top.Relu(%0) : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    %2 = top.Permute(%1) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
    ```
    After:
    ```mlir
    %2 = top.Relu(%x) : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
    ```
  }];
  let dependentDialects = ["::strata::top::TopDialect"];
}

def TopQuantize : Pass<"top-quantize", "::mlir::ModuleOp"> {
  let summary = "Quantize convolutions and matmuls to int8, bf16 or f16";
  let description = [{
    Rewrites the entry function's `top.Conv` (NCHW) and rank-2 `top.MatMul`
    ops with constant float weights (docs/quantization.md):

    - `mode=int8`: the input is quantized (`top.Quant`) with per-tensor
      parameters from the calibration table (asymmetric, or symmetric with
      `symmetric=true`); the weights become int8, symmetric per output
      channel (`!quant.uniform<i8:f32:0, {...}>`); the bias an int32 weight
      `round(b / (s_x * s_w[c]))`; the op accumulates in int32 (Conv's
      `input_zp`; for MatMul the input zero point is folded into the int32
      bias) and a `top.Requant` (MultiplierShift) maps the accumulator to the
      output's int8 type; a `top.Dequant` gives the float consumers their
      value. Quantized ops feeding quantized ops are connected directly,
      also through a `Reshape` or `Permute` whose output row in the table
      gives the same parameters as its input's.
      `do_relu` stays on the integer accumulator; `relu_limit` narrows the
      result's storage range. A fused `activation` (SiLU, HardSwish,
      Sigmoid, ...): the accumulator is requantized to int8 at the range of
      the table's `<name>_preact` entry, then `top.Dequant`, the float
      activation and a `top.Quant` to the output's range (an int8 -> int8
      table for the CPU and NPU lowerings; with `per-channel-tables=true` and
      the table's `@range` row for `<name>_preact`, on a Conv or rank-2
      MatMul, per channel: the Requant's result is
      `!quant.uniform<i8:f32:1, {s0:0, s1:0, ...}>`, each channel's range
      cut as the tensor's and symmetric, one table per channel; without the
      row, per tensor and a warning); with `float-activations=true`,
      or without a `_preact` entry (a warning), the activation runs in float
      on the dequantized int32 accumulator instead; with
      `table-input=int16` the accumulator is requantized to int16 (per
      tensor) over the same range and the activation is a `top.Table16`
      (513 interpolated entries tabulated from the activation, int8
      result) instead. Either table folds a float Mul / Add by one-element
      constants that alone read the activation's output (int8 tables: a
      `top.ScalarAffine` before the Quant). NHWC convs, ops named in
      `keep-float` and everything else stay float.
    - `mode=bf16` / `mode=f16`: the same ops read their input and weights in
      that type (a `top.Cast`), accumulate in f32 and write that type, cast
      back to f32 for float consumers.

    With `@mean` rows in the table (`strata calibrate --bias-correction`),
    the float bias of an ungrouped Conv or a MatMul first loses the expected
    output shift of its weights' rounding, `(W_q s_w - W) E[x]`
    (BiasCorrection.h).

    A calibration table entry naming no tensor of the function, or a
    quantized op's input or output missing from the table, is an error
    naming the tensor.
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"int8\"",
           "int8, bf16 or f16">,
    Option<"calibration", "calibration", "std::string", "\"\"",
           "the calibration table (needed for int8)">,
    ListOption<"keepFloat", "keep-float", "std::string",
               "tensor names of ops to keep in float">,
    Option<"symmetric", "symmetric", "bool", "false",
           "int8 activations symmetric (zero point 0)">,
    Option<"floatActivations", "float-activations", "bool", "false",
           "int8: compute fused activations in float from the int32 "
           "accumulator (no int8 table)">,
    Option<"perChannelTables", "per-channel-tables", "bool", "false",
           "int8: the activation tables' inputs per channel, from the "
           "calibration table's @range rows">,
    Option<"tableInput", "table-input", "std::string", "\"int8\"",
           "int8 (default) or int16: the type the accumulator is "
           "requantized to before a fused activation's table (int16: "
           "an interpolated top.Table16)">
  ];
  let dependentDialects = ["::strata::top::TopDialect",
                           "::mlir::quant::QuantDialect"];
}

def TopFoldQdq : Pass<"top-fold-qdq", "::mlir::func::FuncOp"> {
  let summary = "Turn QuantizeLinear/DequantizeLinear around Conv and MatMul into integer ops";
  let description = [{
    The pattern ONNX Runtime's quantization tool writes (QDQ format), as
    imported: `top.Dequant` of an 8-bit per-tensor quantized activation and
    of constant int8 weights with zero point 0 (per tensor or per output
    channel) feeding a float `top.Conv` (NCHW) or rank-2 `top.MatMul`, the
    bias (if any) a constant (float, or a `top.Dequant` of int32). The op
    becomes the integer form of `top-quantize` (docs/quantization.md): the
    quantized input with `input_zp` (MatMul: the zero point folded into the
    int32 bias), the int8 weights, an int32 bias `round(b / (s_x * s_w[c]))`,
    int32 accumulation, and, when the result's only user is a `top.Quant`
    (through at most one `top.Relu`, which becomes `do_relu`), a
    `top.Requant` (MultiplierShift) to that Quant's type replacing it;
    otherwise the accumulator is typed `!quant.uniform<i32:f32:1, {s_x *
    s_w[c]}>` and dequantized. Pairs of `top.Cast` that reinterpret a
    quantized tensor as its storage and back are looked through. Runs first
    in `top-optimize`, before constant folding would turn the weights to
    float.
  }];
  let dependentDialects = ["::strata::top::TopDialect",
                           "::mlir::quant::QuantDialect"];
}

#endif // STRATA_TOP_PASSES
