//===- TopNNOps.td - convolution, matmul, pooling, norms ---*- tablegen -*-===//

#ifndef STRATA_TOP_NN_OPS
#define STRATA_TOP_NN_OPS

def Top_ConvOp : Top_Op<"Conv", [Pure,
    DeclareOpInterfaceMethods<Top_LayoutSensitiveOpInterface, ["getNumLayoutOperands"]>]> {
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
    - `activation`, `activation_params`: another epilogue activation applied
      after the bias instead of relu (not together with `do_relu`):
      `"sigmoid"`, `"silu"`, `"gelu"` (erf), `"gelu_tanh"`, `"hardswish"`
      (no params), `"hardsigmoid"` (`[alpha, beta]`), `"leaky_relu"`
      (`[alpha]`), `"clip"` (`[min, max]`, `min <= max`); semantics as the
      ops `top.Sigmoid`, `top.SiLU`, `top.Gelu`, `top.HardSwish`,
      `top.HardSigmoid`, `top.LeakyRelu`, `top.Clip`.
    - `input_zp`, `weight_zp`: integer path only. One value, or one per input
      channel (C values), subtracted from input / filter elements before the
      multiply. Integer inputs accumulate in int32 (TpuLang `conv_v2`).
    - `layout`: `"NCHW"` (default, the shapes above) or `"NHWC"` (channels
      last, TFLite / TOSA): input `N x D1..Dr x C`, output `N x Y1..Yr x O`,
      filter `O x K1..Kr x C/group` (OHWI). Any spatial rank; the NHWC form
      is the NCHW one with `order = [0, 2, .., r+1, 1]` applied to input,
      filter and output. The same attribute, with the same meaning for the
      data tensors, is on `Deconv` (filter `C x K1..Kr x O/group`),
      `MaxPool`, `AvgPool`, `GlobalAvgPool`, `BatchNorm`, `GroupNorm`,
      `DepthToSpace` and `SpaceToDepth`; `top-convert-layout` rewrites
      between the two forms.
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
    OptionalAttr<DenseI64ArrayAttr>:$weight_zp,
    OptionalAttr<Top_EpilogueActivationAttr>:$activation,
    OptionalAttr<DenseF64ArrayAttr>:$activation_params,
    Top_DefaultEnum<Top_LayoutAttr, "NCHW">:$layout
  );
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
  let builders = [
    // The builder without the epilogue activation (no `activation`).
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
      "::mlir::Value":$filter, "::mlir::Value":$bias,
      "::mlir::DenseI64ArrayAttr":$kernel_shape,
      "::mlir::DenseI64ArrayAttr":$strides, "::mlir::DenseI64ArrayAttr":$pads,
      "::mlir::DenseI64ArrayAttr":$dilations, "::mlir::IntegerAttr":$group,
      "::mlir::BoolAttr":$do_relu, "::mlir::FloatAttr":$relu_limit,
      "::mlir::DenseI64ArrayAttr":$input_zp,
      "::mlir::DenseI64ArrayAttr":$weight_zp), [{
      build($_builder, $_state, resultTypes, input, filter, bias, kernel_shape,
            strides, pads, dilations, group, do_relu, relu_limit, input_zp,
            weight_zp, EpilogueActivationAttr(), ::mlir::DenseF64ArrayAttr(),
            LayoutAttr());
    }]>
  ];
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
    `do_relu`/`relu_limit` and `activation`/`activation_params` as for
    `top.Conv`.
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$right,
    Top_TensorOrNone:$bias,
    DefaultValuedAttr<BoolAttr, "false">:$right_transpose,
    DefaultValuedAttr<BoolAttr, "false">:$do_relu,
    DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit,
    OptionalAttr<Top_EpilogueActivationAttr>:$activation,
    OptionalAttr<DenseF64ArrayAttr>:$activation_params
  );
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
  let builders = [
    // The builder without the epilogue activation (no `activation`).
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
      "::mlir::Value":$right, "::mlir::Value":$bias, "bool":$right_transpose,
      "bool":$do_relu, "::llvm::APFloat":$relu_limit), [{
      build($_builder, $_state, resultTypes, input, right, bias,
            right_transpose,
            do_relu, relu_limit, EpilogueActivationAttr(),
            ::mlir::DenseF64ArrayAttr());
    }]>
  ];
}

class Top_PoolOp<string mnemonic>
    : Top_Op<mnemonic, [Pure, Top_LayoutSensitiveOpInterface]> {
  let arguments = (ins
    Top_Tensor:$input,
    DenseI64ArrayAttr:$kernel_shape,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
    DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
    DefaultValuedAttr<BoolAttr, "false">:$do_relu,
    DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit,
    Top_DefaultEnum<Top_LayoutAttr, "NCHW">:$layout
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

def Top_GlobalAvgPoolOp : Top_Op<"GlobalAvgPool", [Pure,
    Top_LayoutSensitiveOpInterface]> {
  let summary = "Mean over all spatial dims, kept as size 1";
  let description = [{
    `N x C x D1..Dr` → `N x C x 1..1`.
  }];
  let arguments = (ins Top_Tensor:$input,
    Top_DefaultEnum<Top_LayoutAttr, "NCHW">:$layout);
  let results = (outs Top_Tensor:$output);
}

def Top_DeconvOp : Top_Op<"Deconv", [Pure,
    DeclareOpInterfaceMethods<Top_LayoutSensitiveOpInterface, ["getNumLayoutOperands"]>]> {
  let summary = "N-d transposed convolution (ONNX ConvTranspose), grouped";
  let description = [{
    The gradient of `top.Conv` with respect to its input: every input element
    scatters `input[n, c, x...] * filter[c, o, k...]` to
    `output[n, g*O/G + o, x*stride + k*dilation - pad_begin]` (g the group of
    input channel c); positions outside the output are dropped.

    - `input`: `N x C x D1 x ... x Dr` (r = number of spatial dims, 1 to 3).
    - `filter`: `C x O/group x K1 x ... x Kr` (ONNX/PyTorch IOHW layout).
    - `bias`: `O` elements (any shape with O elements), or `none`.
    - `kernel_shape`: r positive values equal to the filter's spatial dims.
    - `strides`, `dilations`: r positive values; default all 1.
    - `pads`: 2r non-negative values, all begins then all ends; they remove
      elements from the borders of the full output. Default all 0.
    - `output_padding`: r non-negative values added to the end of each
      spatial dim, each smaller than the stride or the dilation of its dim.
      Default all 0.
    - `group`: divides C; the output has `O = filter.dim(1) * group`
      channels.
    - `do_relu`, `relu_limit`, `activation`, `activation_params`: as for
      `top.Conv`.

    Output spatial size: `(D - 1) * stride + (K - 1) * dilation + 1 +
    output_padding - pad_begin - pad_end`, which must not be negative (an
    empty spatial input dim gives an empty output dim).
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$filter,
    Top_TensorOrNone:$bias,
    DenseI64ArrayAttr:$kernel_shape,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    OptionalAttr<DenseI64ArrayAttr>:$output_padding,
    DefaultValuedAttr<I64Attr, "1">:$group,
    DefaultValuedAttr<BoolAttr, "false">:$do_relu,
    DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit,
    OptionalAttr<Top_EpilogueActivationAttr>:$activation,
    OptionalAttr<DenseF64ArrayAttr>:$activation_params,
    Top_DefaultEnum<Top_LayoutAttr, "NCHW">:$layout
  );
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
  let builders = [
    // The builder without the epilogue activation (no `activation`).
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
      "::mlir::Value":$filter, "::mlir::Value":$bias,
      "::mlir::DenseI64ArrayAttr":$kernel_shape,
      "::mlir::DenseI64ArrayAttr":$strides, "::mlir::DenseI64ArrayAttr":$pads,
      "::mlir::DenseI64ArrayAttr":$dilations,
      "::mlir::DenseI64ArrayAttr":$output_padding, "::mlir::IntegerAttr":$group,
      "::mlir::BoolAttr":$do_relu, "::mlir::FloatAttr":$relu_limit), [{
      build($_builder, $_state, resultTypes, input, filter, bias, kernel_shape,
            strides, pads, dilations, output_padding, group, do_relu,
            relu_limit, EpilogueActivationAttr(), ::mlir::DenseF64ArrayAttr(),
            LayoutAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// Attributes with defaults filled in.
    ::llvm::SmallVector<int64_t> getStridesOrDefault();
    ::llvm::SmallVector<int64_t> getDilationsOrDefault();
    ::llvm::SmallVector<int64_t> getPadsOrDefault();
    ::llvm::SmallVector<int64_t> getOutputPaddingOrDefault();
  }];
}

class Top_SoftmaxBase<string mnemonic> : Top_Op<mnemonic, [Pure]> {
  let arguments = (ins
    Top_Tensor:$input,
    DefaultValuedAttr<I64Attr, "-1">:$axis
  );
  let results = (outs Top_Tensor:$output);
}

def Top_SoftmaxOp : Top_SoftmaxBase<"Softmax"> {
  let summary = "Softmax along one axis";
  let description = [{
    Every slice `x` along dim `axis` (default -1; negative counts from the
    end; must be in `[-rank, rank)`) becomes
    `exp(x - max(x)) / sum(exp(x - max(x)))`. Subtracting the maximum keeps
    large inputs from overflowing; exponentials and sums are computed in f64
    and rounded once to the result type. The result has the input's shape.
  }];
}

def Top_LogSoftmaxOp : Top_SoftmaxBase<"LogSoftmax"> {
  let summary = "Log of softmax along one axis";
  let description = [{
    Every slice `x` along dim `axis` (default -1; negative counts from the
    end; must be in `[-rank, rank)`) becomes
    `x - max(x) - log(sum(exp(x - max(x))))`, computed in f64 (no overflow
    for large inputs, no `log(0)` for very negative ones) and rounded once
    to the result type. The result has the input's shape.
  }];
}

def Top_BatchNormOp : Top_Op<"BatchNorm", [Pure,
    Top_LayoutSensitiveOpInterface]> {
  let summary = "Batch normalization in inference mode";
  let description = [{
    `output = (input - mean[c]) / sqrt(variance[c] + epsilon) * scale[c] +
    bias[c]` with c the index along dim 1 (channels) of `input`
    (`N x C x ...`, rank >= 2). `mean`, `variance`, `scale` and `bias` have
    C elements each (any shape with C elements); `scale` (default 1) and
    `bias` (default 0) may be `none`. `epsilon` must be >= 0 (default 1e-5).
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$mean,
    Top_Tensor:$variance,
    Top_TensorOrNone:$scale,
    Top_TensorOrNone:$bias,
    DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
    Top_DefaultEnum<Top_LayoutAttr, "NCHW">:$layout
  );
  let results = (outs Top_Tensor:$output);
}

def Top_LayerNormOp : Top_Op<"LayerNorm", [Pure]> {
  let summary = "Layer normalization (ONNX LayerNormalization)";
  let description = [{
    Normalizes over dims `axis..rank-1` (the normalized shape): every slice
    `x` over those dims becomes `(x - mean(x)) / sqrt(var(x) + epsilon) *
    scale + bias`, with the biased variance. `axis` may be negative and must
    be in `[-rank, rank)` (default -1). `scale` and `bias` hold one value per
    element of the normalized shape (any shape with that many elements) or
    are `none` (1 and 0). `epsilon` must be >= 0 (default 1e-5).
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_TensorOrNone:$scale,
    Top_TensorOrNone:$bias,
    DefaultValuedAttr<I64Attr, "-1">:$axis,
    DefaultValuedAttr<F64Attr, "1e-5">:$epsilon
  );
  let results = (outs Top_Tensor:$output);
}

def Top_GroupNormOp : Top_Op<"GroupNorm", [Pure,
    Top_LayoutSensitiveOpInterface]> {
  let summary = "Group normalization";
  let description = [{
    `input` is `N x C x ...` (rank >= 2). The C channels are split into
    `num_groups` consecutive groups (`num_groups` >= 1 must divide C); each
    (n, group) slice is normalized with its own mean and biased variance,
    then multiplied by `scale[c]` and offset by `bias[c]` per channel (C
    elements each, or `none`). `epsilon` must be >= 0 (default 1e-5).
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_TensorOrNone:$scale,
    Top_TensorOrNone:$bias,
    I64Attr:$num_groups,
    DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
    Top_DefaultEnum<Top_LayoutAttr, "NCHW">:$layout
  );
  let results = (outs Top_Tensor:$output);
}

def Top_ResizeOp : Top_Op<"Resize", [Pure]> {
  let summary = "Nearest, N-linear or cubic resampling (ONNX Resize)";
  let description = [{
    Resamples every dim of `input` (any rank >= 1) to a new size. Give
    `sizes` (the output shape, one non-negative value per dim) or `scales`
    (one positive value per dim; output dim = `floor(dim * scale)`). If both
    are given, `sizes` wins and `scales` is ignored. With `sizes`, the scale
    of a dim used below is `out / in`; with `scales` it is the given value;
    `coordinate_scales` (one positive value per dim), if given, overrides
    both for the coordinate mapping only (ONNX `keep_aspect_ratio_policy`
    needs this: sizes rounded from one scale that drives the mapping).

    An output coordinate `x` maps to the input coordinate `x_orig` by
    `coordinate_transformation_mode`, where `len = in * scale` (real):
    - `"half_pixel"` (default): `(x + 0.5) / scale - 0.5`;
    - `"half_pixel_symmetric"`: half_pixel shifted by
      `in / 2 * (1 - out / len)`;
    - `"pytorch_half_pixel"`: as half_pixel, but `-0.5` when `len == 1`;
    - `"align_corners"`: `x * (in - 1) / (len - 1)`, `0` when `len == 1`;
    - `"asymmetric"`: `x / scale`;
    - `"tf_crop_and_resize"`: `start * (in - 1) + x * (end - start) *
      (in - 1) / (len - 1)` (`(end - start) * (in - 1) / 2 + start *
      (in - 1)` when `len == 1`) with `start = roi[d]`, `end = roi[rank +
      d]`; `roi` (2 * rank values) is required. A coordinate outside
      `[0, in - 1]` gives `extrapolation_value` (default 0).

    With `i = floor(x_orig)`, `r = x_orig - i` (and `i - 1`, `r = 1` when
    `x_orig` is an integer), each output is a weighted sum of input
    samples, indices clamped to `[0, in - 1]`:
    - `mode = "nearest"` (default): the sample `nearest_mode(x_orig)`, with
      `nearest_mode` one of `"round_prefer_floor"` (default),
      `"round_prefer_ceil"`, `"floor"`, `"ceil"`;
    - `"linear"`: `(1 - r) * in[i] + r * in[i + 1]`;
    - `"cubic"`: the Keys kernel with `a = cubic_coeff_a` (default -0.75)
      on `in[i - 1 .. i + 2]`.
    `exclude_outside = true` gives samples outside the input weight 0 and
    renormalizes the weights. `antialias = true` (linear and cubic only)
    stretches the kernel by `1 / scale` when downsampling (`scale < 1`)
    and normalizes it, i.e. low-pass filters before sampling.

    Resampling is separable: it is applied along each dim in turn (so
    bilinear on 2 resized dims, trilinear on 3). Integer inputs are
    interpolated in f64 and truncated. An input dim of size 0 can only be
    resized to 0.

    Scales or sizes only known at run time are the optional operand
    `target_value` (one value per dim; a float tensor holds scales, an
    integer tensor sizes, same rules) and the attributes `scales` and
    `sizes` are then absent; the result dims are `?`, fixed by the
    interpreter at run time.
  }];
  let arguments = (ins
    Top_Tensor:$input,
    Top_DefaultEnum<Top_InterpolationAttr, "Nearest">:$mode,
    Top_DefaultEnum<Top_CoordinateModeAttr, "HalfPixel">:$coordinate_transformation_mode,
    Top_DefaultEnum<Top_NearestModeAttr, "RoundPreferFloor">:$nearest_mode,
    OptionalAttr<DenseF64ArrayAttr>:$scales,
    OptionalAttr<DenseI64ArrayAttr>:$sizes,
    DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
    DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
    DefaultValuedAttr<BoolAttr, "false">:$antialias,
    OptionalAttr<DenseF64ArrayAttr>:$roi,
    DefaultValuedAttr<F64Attr, "0.0">:$extrapolation_value,
    OptionalAttr<DenseF64ArrayAttr>:$coordinate_scales,
    Optional<TensorOf<[AnyFloat, AnyInteger]>>:$target_value
  );
  let results = (outs Top_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
      "InterpolationAttr":$mode,
      "CoordinateModeAttr":$coordinate_transformation_mode,
      "NearestModeAttr":$nearest_mode, "::mlir::DenseF64ArrayAttr":$scales,
      "::mlir::DenseI64ArrayAttr":$sizes, "::mlir::FloatAttr":$cubic_coeff_a,
      "::mlir::BoolAttr":$exclude_outside, "::mlir::BoolAttr":$antialias,
      "::mlir::DenseF64ArrayAttr":$roi, "::mlir::FloatAttr":$extrapolation_value,
      "::mlir::DenseF64ArrayAttr":$coordinate_scales), [{
      build($_builder, $_state, resultTypes, input, mode,
            coordinate_transformation_mode, nearest_mode, scales, sizes,
            cubic_coeff_a, exclude_outside, antialias, roi, extrapolation_value,
            coordinate_scales, ::mlir::Value());
    }]>
  ];
  let hasFolder = 1;
}

def Top_DepthToSpaceOp : Top_Op<"DepthToSpace", [Pure, Top_ShapeOnly,
    Top_LayoutSensitiveOpInterface]> {
  let summary = "Moves channel blocks into spatial blocks (ONNX)";
  let description = [{
    `N x C x H x W` → `N x C/(b*b) x H*b x W*b` with `b = blocksize` (>= 1;
    `b*b` must divide C). `mode = "DCR"` (default) takes the block offset
    from the high part of the channel index
    (`c_in = (by * b + bx) * C/(b*b) + c`), `"CRD"` from the low part
    (`c_in = c * b*b + by * b + bx`). Blocksize 1 folds away.
  }];
  let arguments = (ins
    Top_Tensor:$input,
    I64Attr:$blocksize,
    Top_DefaultEnum<Top_DepthToSpaceModeAttr, "DCR">:$mode,
    Top_DefaultEnum<Top_LayoutAttr, "NCHW">:$layout
  );
  let results = (outs Top_Tensor:$output);
  let hasFolder = 1;
}

def Top_SpaceToDepthOp : Top_Op<"SpaceToDepth", [Pure, Top_ShapeOnly,
    Top_LayoutSensitiveOpInterface]> {
  let summary = "Moves spatial blocks into channels (ONNX)";
  let description = [{
    `N x C x H x W` → `N x C*b*b x H/b x W/b` with `b = blocksize` (>= 1,
    dividing H and W): the inverse of `top.DepthToSpace` in `"DCR"` mode,
    `output[n, (by * b + bx) * C + c, y, x] = input[n, c, y*b + by, x*b + bx]`.
    Blocksize 1 folds away.
  }];
  let arguments = (ins
    Top_Tensor:$input,
    I64Attr:$blocksize,
    Top_DefaultEnum<Top_LayoutAttr, "NCHW">:$layout
  );
  let results = (outs Top_Tensor:$output);
  let hasFolder = 1;
}

#endif // STRATA_TOP_NN_OPS
