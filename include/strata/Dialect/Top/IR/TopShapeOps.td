//===- TopShapeOps.td - reshape, permute, concat, ... ------*- tablegen -*-===//
//
// Shape and data-movement ops, and reductions. Shape-like parameters are
// attributes (DenseI64ArrayAttr), TPU-MLIR style. Axis attributes accept
// negative values counted from the back (`-1` is the last dim) unless stated
// otherwise. Data movement works for every element type.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_SHAPE_OPS
#define STRATA_TOP_SHAPE_OPS

/// An i64 attribute read as a signed value (axes may be negative).
def Top_AxisAttr : TypedSignlessIntegerAttrBase<I64, "int64_t",
    "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

/// A data-movement op: operands that carry data and the results share one
/// element type.
class Top_MoveOp<string mnemonic, list<Trait> traits = []>
    : Top_Op<mnemonic, !listconcat([Pure, Top_ShapeOnly,
                                    SameOperandsAndResultElementType],
                                   traits)>;

def Top_ReshapeOp : Top_Op<"Reshape", [Pure, Top_ShapeOnly,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Reinterprets a tensor with another shape";
  let description = [{
    `shape` gives the new dims; one entry may be -1 (inferred) and 0 copies
    the input's dim at that position (ONNX `allowzero = 0`). Element count
    must be preserved. The data (row-major order) is unchanged.

    When the shape is only known at run time it is the optional operand
    `shape_value` (a 1-D integer tensor of static length, same rules) and
    the attribute `shape` is empty; the result then has that many dims, all
    `?`, which the reference interpreter fixes at run time.

    Folds: a reshape to the input's own type is the input, and a reshape of
    a reshape reshapes the original input.

    ```mlir
    %1 = top.Reshape(%0) {shape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    %3 = top.Reshape(%0, %2) {shape = array<i64>} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$shape,
                   Optional<TensorOf<[AnyInteger]>>:$shape_value);
  let results = (outs Top_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::DenseI64ArrayAttr":$shape), [{
      build($_builder, $_state, resultTypes, input, shape, ::mlir::Value());
    }]>
  ];
  let hasFolder = 1;
}

def Top_PermuteOp : Top_MoveOp<"Permute"> {
  let summary = "Transposes the dims of a tensor";
  let description = [{
    Result dim `i` is input dim `order[i]` (`np.transpose(x, order)`).
    `order` must be a permutation of `0 .. rank-1` (no negative entries).

    Folds: the identity permutation is the input; a permute of a permute
    becomes one permute with the composed order.

    ```mlir
    %1 = top.Permute(%0) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$order);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Top_ConcatOp : Top_MoveOp<"Concat"> {
  let summary = "Joins tensors along an axis";
  let description = [{
    Concatenates one or more `inputs` along `axis` (`np.concatenate`). All
    inputs have the same rank and the same dims except along `axis`; the
    result's `axis` dim is the sum of theirs. Inputs may be empty along
    `axis`.

    ```mlir
    %2 = top.Concat(%0, %1) {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Top_Tensor>:$inputs, Top_AxisAttr:$axis);
  let results = (outs Top_Tensor:$output);
}

def Top_SplitOp : Top_Op<"Split", [Pure, Top_ShapeOnly]> {
  let summary = "Cuts a tensor into pieces along an axis";
  let description = [{
    Result `i` is the `split[i]` consecutive elements along `axis` that
    follow those of results `0 .. i-1` (ONNX Split). The sizes in `split` are
    >= 0 and sum to the input's `axis` dim; there is one result per size.
    The results have the input's element type.

    Sizes only known at run time are the optional operand `split_value` (a
    1-D integer tensor with one entry per result, same rules) with `split`
    empty; the results' `axis` dim is then `?`.

    ```mlir
    %0:2 = top.Split(%x) {axis = -1 : i64, split = array<i64: 1, 3>} : (tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x3xf32>)
    %1:2 = top.Split(%x, %s) {axis = -1 : i64, split = array<i64>} : (tensor<2x4xf32>, tensor<2xi64>) -> (tensor<2x?xf32>, tensor<2x?xf32>)
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_AxisAttr:$axis,
                   DenseI64ArrayAttr:$split,
                   Optional<TensorOf<[AnyInteger]>>:$split_value);
  let results = (outs Variadic<Top_Tensor>:$outputs);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::IntegerAttr":$axis, "::mlir::DenseI64ArrayAttr":$split), [{
      build($_builder, $_state, resultTypes, input, axis, split,
            ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Top_SliceOp : Top_Op<"Slice", [Pure, Top_ShapeOnly,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Takes a strided window of a tensor (ONNX Slice)";
  let description = [{
    For each `axes[i]`, keeps indices `starts[i], starts[i] + steps[i], ...`
    up to but excluding `ends[i]`; other dims are kept whole. ONNX
    semantics: negative starts/ends count from the back (`+ dim`), then they
    are clamped to `[0, dim]` for positive steps and to `[0, dim-1]` /
    `[-1, dim-1]` for negative steps, so `ends = INT64_MAX` (or `INT64_MIN`
    with a negative step) means "to the end". An empty range gives a zero
    dim.

    `axes` defaults to `0 .. len(starts)-1` and `steps` to all 1; `starts`,
    `ends`, `axes` and `steps` have the same length, `axes` has no
    duplicates and `steps` has no zero.

    When the window is only known at run time it is the optional operand
    `bounds_value`: an i64 tensor of shape `[4, n]` whose rows are the
    starts, ends, axes and steps (same rules); `starts` and `ends` are then
    empty and `axes`/`steps` absent, and the result dims are `?`.

    ```mlir
    %1 = top.Slice(%0) {starts = array<i64: -1>, ends = array<i64: -9223372036854775808>, axes = array<i64: 1>, steps = array<i64: -1>} : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %3 = top.Slice(%0, %2) {starts = array<i64>, ends = array<i64>} : (tensor<2x5xf32>, tensor<4x1xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$ends,
                   OptionalAttr<DenseI64ArrayAttr>:$axes,
                   OptionalAttr<DenseI64ArrayAttr>:$steps,
                   Optional<TensorOf<[I64]>>:$bounds_value);
  let results = (outs Top_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::DenseI64ArrayAttr":$starts,
                   "::mlir::DenseI64ArrayAttr":$ends,
                   "::mlir::DenseI64ArrayAttr":$axes,
                   "::mlir::DenseI64ArrayAttr":$steps), [{
      build($_builder, $_state, resultTypes, input, starts, ends, axes, steps,
            ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Top_PadOp : Top_Op<"Pad", [Pure, Top_ShapeOnly,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Pads (or crops) each dim of a tensor";
  let description = [{
    `pads` holds `2 * rank` values, all begins then all ends (ONNX):
    `[b_0, ..., b_(r-1), e_0, ..., e_(r-1)]`. Dim `i` grows to
    `b_i + dim_i + e_i`; a negative pad removes elements instead (ONNX), and
    the result dim must not become negative. `mode` fills the new elements:

    * `"constant"` (default): `value` (converted to the element type),
    * `"reflect"`: the input mirrored at its border without repeating the
      border element (`np.pad(mode="reflect")`); each pad must be smaller
      than its dim,
    * `"edge"`: the border element repeated; a padded dim must not be empty,
    * `"wrap"`: the input repeated periodically, the end continuing at the
      start (`np.pad(mode="wrap")`); a padded dim must not be empty.

    Pads only known at run time are the optional operand `pads_value` (a
    1-D integer tensor of length `2 * rank`, same rules) with `pads` empty;
    the result dims are then `?`, fixed by the interpreter at run time.

    ```mlir
    %1 = top.Pad(%0) {pads = array<i64: 0, 1, 0, 2>, mode = #top.pad_mode<reflect>} : (tensor<2x4xf32>) -> tensor<2x7xf32>
    %3 = top.Pad(%0, %2) {pads = array<i64>, mode = #top.pad_mode<edge>} : (tensor<2x4xf32>, tensor<4xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$pads,
                   Top_DefaultEnum<Top_PadModeAttr, "Constant">:$mode,
                   DefaultValuedAttr<F64Attr, "0.0">:$value,
                   Optional<TensorOf<[AnyInteger]>>:$pads_value);
  let results = (outs Top_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::DenseI64ArrayAttr":$pads, "PadModeAttr":$mode,
                   "::mlir::FloatAttr":$value), [{
      build($_builder, $_state, resultTypes, input, pads, mode, value,
            ::mlir::Value());
    }]>
  ];
}

def Top_GatherOp : Top_Op<"Gather", [Pure, Top_ShapeOnly,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Picks entries along an axis by index (ONNX Gather)";
  let description = [{
    `output[i_0, .., i_(a-1), j_0, .., j_(q-1), k_(a+1), ..] =
    input[i_0, .., i_(a-1), indices[j_0, .., j_(q-1)], k_(a+1), ..]` with
    `a = axis` (`np.take(input, indices, axis)`): the result shape is the
    input's with dim `axis` replaced by the indices' shape. Negative indices
    count from the back; an index outside `[-dim, dim)` is a runtime error
    of the reference interpreter.

    ```mlir
    %1 = top.Gather(%0, %idx) {axis = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, TensorOf<[AnyInteger]>:$indices,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$axis);
  let results = (outs Top_Tensor:$output);
}

def Top_TileOp : Top_Op<"Tile", [Pure, Top_ShapeOnly,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Repeats a tensor along each dim";
  let description = [{
    Dim `i` of the result is `dim_i * repeats[i]`, holding `repeats[i]`
    copies of the input along that dim (`np.tile` with `len(repeats) ==
    rank`). `repeats` has one entry >= 0 per dim.

    Repeats only known at run time are the optional operand `repeats_value`
    (a 1-D integer tensor of length rank, same rules) with `repeats` empty;
    the result dims are then `?` (0 stays 0).

    ```mlir
    %1 = top.Tile(%0) {repeats = array<i64: 2, 1>} : (tensor<3x4xf32>) -> tensor<6x4xf32>
    %3 = top.Tile(%0, %2) {repeats = array<i64>} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$repeats,
                   Optional<TensorOf<[AnyInteger]>>:$repeats_value);
  let results = (outs Top_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::DenseI64ArrayAttr":$repeats), [{
      build($_builder, $_state, resultTypes, input, repeats, ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Top_ExpandOp : Top_Op<"Expand", [Pure, Top_ShapeOnly,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Broadcasts a tensor to a shape (ONNX Expand)";
  let description = [{
    The result shape is the numpy broadcast of the input shape and `shape`
    (dims aligned from the right, each pair equal or one of them 1), so a 1
    in `shape` keeps the input's dim (ONNX Expand); entries of `shape` are
    >= 0.

    A shape only known at run time is the optional operand `shape_value` (a
    1-D integer tensor of static length, same rules) with `shape` empty;
    result dims that depend on its values are then `?`.

    Folds: an expand to the input's own static type is the input.

    ```mlir
    %1 = top.Expand(%0) {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
    %3 = top.Expand(%0, %2) {shape = array<i64>} : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x3x?xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$shape,
                   Optional<TensorOf<[AnyInteger]>>:$shape_value);
  let results = (outs Top_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::DenseI64ArrayAttr":$shape), [{
      build($_builder, $_state, resultTypes, input, shape, ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Top_SqueezeOp : Top_Op<"Squeeze", [Pure, Top_ShapeOnly,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Removes dims of size 1 chosen at run time (ONNX Squeeze)";
  let description = [{
    Removes the dims listed in `axes_value` (a 1-D integer tensor of static
    length; distinct dims, negative counted from the back), each of which
    must be 1 at run time. The result has that many dims fewer, all `?`
    until the interpreter fixes them. Squeezes with constant axes are a
    `top.Reshape`.

    ```mlir
    %2 = top.Squeeze(%0, %1) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, TensorOf<[AnyInteger]>:$axes_value);
  let results = (outs Top_Tensor:$output);
}

def Top_UnsqueezeOp : Top_Op<"Unsqueeze", [Pure, Top_ShapeOnly,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Inserts dims of size 1 chosen at run time (ONNX Unsqueeze)";
  let description = [{
    Inserts a dim of size 1 at each position of `axes_value` (a 1-D integer
    tensor of static length `n`; distinct positions in the result of rank
    `rank + n`, negative counted from its back). The result dims are `?`
    until the interpreter fixes them. Unsqueezes with constant axes are a
    `top.Reshape`.

    ```mlir
    %2 = top.Unsqueeze(%0, %1) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, TensorOf<[AnyInteger]>:$axes_value);
  let results = (outs Top_Tensor:$output);
}

def Top_ReduceOp : Top_Op<"Reduce", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Reduces a tensor over some axes";
  let description = [{
    Combines the elements over `axes` with `mode`:

    * `"ReduceSum"`, `"ReduceProd"`: sum / product (integers wrap around),
    * `"ReduceMean"`: the sum divided by the element count (integers
      truncate toward zero),
    * `"ReduceMax"`, `"ReduceMin"`: the largest / smallest element (NaN
      propagates).

    `axes` lists distinct dims (negative allowed); empty reduces over all
    dims. With `keepdims` the reduced dims stay as 1, otherwise they are
    removed. Floats accumulate in f64. Reducing zero elements gives 0 for
    sum and mean of integers, NaN for the mean of floats, 1 for product, and
    the lowest / highest value of the element type (-inf / +inf for floats)
    for max / min.

    When the axes are only known at run time they are the optional operand
    `axes_value` (a 1-D integer tensor of static length >= 1, same rules)
    and the attribute `axes` is empty. Dims that may be reduced are then `?`
    in the result (1 stays 1 with `keepdims`); the reference interpreter
    fixes them at run time.

    ```mlir
    %1 = top.Reduce(%0) {axes = array<i64: -1>, keepdims = false, mode = #top.reduce_mode<ReduceMean>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
    %3 = top.Reduce(%0, %2) {keepdims = true, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                   Top_ReduceModeAttr:$mode,
                   Optional<TensorOf<[AnyInteger]>>:$axes_value);
  let results = (outs Top_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::DenseI64ArrayAttr":$axes,
                   "::mlir::BoolAttr":$keepdims, "ReduceModeAttr":$mode), [{
      build($_builder, $_state, resultTypes, input, axes, keepdims, mode,
            ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Top_ArgMaxOp : Top_Op<"ArgMax", [Pure]> {
  let summary = "Index of the largest element along an axis";
  let description = [{
    The position of the largest element along `axis` (`np.argmax`); ties
    give the first position, or the last with `select_last_index`. A NaN
    counts as larger than any number. With `keepdims` the `axis` dim stays
    as 1, otherwise it is removed. The result is i64; `axis` must not be an
    empty dim.

    ```mlir
    %1 = top.ArgMax(%0) {axis = 1 : i64, keepdims = false} : (tensor<2x5xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Top_Tensor:$input,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$axis,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                   DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs TensorOf<[I64]>:$output);
}

#endif // STRATA_TOP_SHAPE_OPS
