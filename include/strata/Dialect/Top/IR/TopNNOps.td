//===- TopNNOps.td - convolution, matmul, pooling, norms ---*- tablegen -*-===//

#ifndef STRATA_TOP_NN_OPS
#define STRATA_TOP_NN_OPS

def Top_ConvOp : Top_Op<"Conv", [Pure]> {
  let summary = "N-d convolution (1-d, 2-d, 3-d), grouped, with fused relu";
  let description = [{
    `output[n, o, y...] = bias[o] + sum_{c, k...} input[n, g*C/G + c,
    y*stride + k*dilation - pad_begin] * filter[o, c, k...]` with zero padding.

    - `input`: `N x C x D1 x ... x Dr` (r = number of spatial dims, 1 to 3).
    - `filter`: `O x C/group x K1 x ... x Kr` (OIHW for 2-d).
    - `bias`: `O` elements (any shape with O elements, e.g. `[O]` or
      `[1, O, 1, 1]`), or `none`.
    - `kernel_shape`: r positive values equal to the filter's spatial dims.
    - `strides`, `dilations`: r positive values; default all 1.
    - `pads`: 2r non-negative values in ONNX order, all begins then all ends:
      for 2-d `[top, left, bottom, right]`. Default all 0. (TpuLang's
      `conv_v2` takes `[up, down, left, right]` and reorders.)
    - `group`: divides C and O; `group == C == O` is depthwise.
    - `do_relu`, `relu_limit`: apply relu after the bias; a non-negative
      `relu_limit` also clips from above (relu6 is `relu_limit = 6.0`).
    - `input_zp`, `weight_zp`: integer path only. One value, or one per input
      channel (C values), subtracted from input / filter elements before the
      multiply. Integer inputs accumulate in int32 (TpuLang `conv_v2`).
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$filter,
    Top_TensorOrNone:$bias,
    DenseI64ArrayAttr:$kernel_shape,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    DefaultValuedAttr<I64Attr, "1">:$group,
    DefaultValuedAttr<BoolAttr, "false">:$do_relu,
    DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit,
    OptionalAttr<DenseI64ArrayAttr>:$input_zp,
    OptionalAttr<DenseI64ArrayAttr>:$weight_zp
  );
  let results = (outs Top_Tensor:$output);
  let extraClassDeclaration = [{
    /// Strides, dilations and pads with defaults filled in.
    ::llvm::SmallVector<int64_t> getStridesOrDefault();
    ::llvm::SmallVector<int64_t> getDilationsOrDefault();
    ::llvm::SmallVector<int64_t> getPadsOrDefault();
  }];
}

def Top_MatMulOp : Top_Op<"MatMul", [Pure]> {
  let summary = "Batched matrix multiply (numpy matmul) with bias and relu";
  let description = [{
    `output = relu?(input @ right + bias)` with numpy `matmul` semantics:
    1-d operands are promoted (and the added dim dropped), leading batch dims
    broadcast. `right_transpose` swaps the last two dims of `right` first.
    `bias` has the last output dim's size (or is `none`) and broadcasts.
    `do_relu`/`relu_limit` as for `top.Conv`.
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$right,
    Top_TensorOrNone:$bias,
    DefaultValuedAttr<BoolAttr, "false">:$right_transpose,
    DefaultValuedAttr<BoolAttr, "false">:$do_relu,
    DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit
  );
  let results = (outs Top_Tensor:$output);
}

class Top_PoolOp<string mnemonic> : Top_Op<mnemonic, [Pure]> {
  let arguments = (ins
    Top_Tensor:$input,
    DenseI64ArrayAttr:$kernel_shape,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
    DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
    DefaultValuedAttr<BoolAttr, "false">:$do_relu,
    DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit
  );
  let results = (outs Top_Tensor:$output);
  let extraClassDeclaration = [{
    ::llvm::SmallVector<int64_t> getStridesOrDefault();
    ::llvm::SmallVector<int64_t> getDilationsOrDefault();
    ::llvm::SmallVector<int64_t> getPadsOrDefault();
  }];
}

def Top_MaxPoolOp : Top_PoolOp<"MaxPool"> {
  let summary = "N-d max pooling";
  let description = [{
    Max over each window of `input` (`N x C x D1..Dr`). Attributes as for
    `top.Conv` (pads: begins then ends); padded positions never win.
    `ceil_mode` rounds the output size up (a window must start inside the
    input or its begin padding). `count_include_pad` is ignored.
  }];
}

def Top_AvgPoolOp : Top_PoolOp<"AvgPool"> {
  let summary = "N-d average pooling";
  let description = [{
    Mean over each window. With `count_include_pad` the divisor counts the
    explicit padding (but never positions past it added by `ceil_mode`);
    without, only input elements are counted.
  }];
}

def Top_GlobalAvgPoolOp : Top_Op<"GlobalAvgPool", [Pure]> {
  let summary = "Mean over all spatial dims, kept as size 1";
  let description = [{
    `N x C x D1..Dr` → `N x C x 1..1`.
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
}

#endif // STRATA_TOP_NN_OPS
