//===- TopSelectOps.td - triangles, scans, scatter, top-k --*- tablegen -*-===//
//
// Index and selection ops: ops that pick, place or order elements by
// position or by value (Trilu, cumulative scans, scatters, GatherND, TopK,
// OneHot, ReverseSequence, MaxUnpool). Index operands are integer tensors;
// negative indices count from the back of their dim (ONNX) and an index out
// of range is a runtime error of the reference interpreter that names the
// op, the index and the bound. Their C++ is in lib/Dialect/Top/IR/SelectOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_SELECT_OPS
#define STRATA_TOP_SELECT_OPS

def Top_TriluOp : Top_Op<"Trilu", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Keeps the upper or lower triangle of the last two dims";
  let description = [{
    For an input of rank >= 2 seen as a batch of `M x N` matrices (the last
    two dims), keeps element `(i, j)` when `j - i >= diagonal` (`upper`,
    `np.triu(x, diagonal)`) or `j - i <= diagonal` (lower, `np.tril`) and
    sets the others to zero. `diagonal = 0` is the main diagonal, positive
    values lie above it. Any element type.

    When the diagonal is only known at run time it is the optional operand
    `diagonal_value` (an integer tensor with one element) and the attribute
    `diagonal` keeps its default 0.

    ```mlir
    %1 = top.Trilu(%0) {upper = true, diagonal = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %3 = top.Trilu(%0, %2) {upper = false} : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input,
                   DefaultValuedAttr<BoolAttr, "true">:$upper,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$diagonal,
                   Optional<TensorOf<[AnyInteger]>>:$diagonal_value);
  let results = (outs Top_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::BoolAttr":$upper, "::mlir::IntegerAttr":$diagonal), [{
      build($_builder, $_state, resultTypes, input, upper, diagonal,
            ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Top_CumulativeOp : Top_Op<"Cumulative", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Running sum or product along an axis (ONNX CumSum/CumProd)";
  let description = [{
    Element `j` along `axis` is the sum (`mode = "sum"`) or product
    (`mode = "prod"`) of elements `0 .. j` (`np.cumsum` / `np.cumprod`).
    With `exclusive`, element `j` itself is left out (the first result is 0
    for a sum, 1 for a product); with `reverse`, the scan runs from the last
    element backward. Floats accumulate in their compute type (f32, or f64
    for f64); integers wrap around.

    When the axis is only known at run time it is the optional operand
    `axis_value` (an integer tensor with one element) and the attribute
    `axis` is 0.

    ```mlir
    %1 = top.Cumulative(%0) {axis = -1 : i64, mode = #top.cumulative_mode<prod>, exclusive = true, reverse = false} : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %3 = top.Cumulative(%0, %2) {axis = 0 : i64, mode = #top.cumulative_mode<sum>} : (tensor<2x5xf32>, tensor<i32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_AxisAttr:$axis,
                   Top_DefaultEnum<Top_CumulativeModeAttr, "Sum">:$mode,
                   DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse,
                   Optional<TensorOf<[AnyInteger]>>:$axis_value);
  let results = (outs Top_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::IntegerAttr":$axis, "CumulativeModeAttr":$mode,
                   "::mlir::BoolAttr":$exclusive, "::mlir::BoolAttr":$reverse), [{
      build($_builder, $_state, resultTypes, input, axis, mode, exclusive,
            reverse, ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Top_ScatterElementsOp : Top_Op<"ScatterElements", [Pure,
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Writes updates at per-element indices along an axis";
  let description = [{
    The result is `data` with, for every position `p` of `indices`,
    `output[p with p[axis] := indices[p]] = updates[p]` (ONNX
    ScatterElements). `indices` and `updates` have the same shape and the
    data's rank, and are no larger than `data` in the dims other than
    `axis`. `reduction` combines instead of overwriting: `"none"` (the last
    write in row-major order wins for duplicate indices), `"add"`, `"mul"`,
    `"min"`, `"max"`.

    ```mlir
    %1 = top.ScatterElements(%d, %i, %u) {axis = 1 : i64, reduction = #top.scatter_reduction<add>} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$data, TensorOf<[AnyInteger]>:$indices,
                   Top_Tensor:$updates,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$axis,
                   Top_DefaultEnum<Top_ScatterReductionAttr, "None">:$reduction);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_GatherElementsOp : Top_Op<"GatherElements", [Pure,
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Reads data at per-element indices along an axis";
  let description = [{
    `output[p] = data[p with p[axis] := indices[p]]` for every position `p`
    of `indices` (ONNX GatherElements, `np.take_along_axis`): the result has
    the shape of `indices`, which has the data's rank and is no larger than
    `data` in the dims other than `axis`. Indices are read at run time.

    ```mlir
    %1 = top.GatherElements(%d, %i) {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$data, TensorOf<[AnyInteger]>:$indices,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$axis);
  let results = (outs Top_Tensor:$output);
}

def Top_ScatterNDOp : Top_Op<"ScatterND", [Pure,
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Writes slices of updates at multi-dim indices (ONNX ScatterND)";
  let description = [{
    `indices` has shape `[i_0, .., i_(q-2), k]` with `1 <= k <= rank(data)`:
    each of its rows is an index into the first `k` dims of `data` and
    selects a slice of shape `data.shape[k:]`. `updates` has shape
    `indices.shape[:-1] + data.shape[k:]`; slice `p` of it is written at
    row `p` of `indices`. `reduction` is as for `top.ScatterElements`
    (`"none"`: later rows overwrite earlier ones).

    ```mlir
    %1 = top.ScatterND(%d, %i, %u) {reduction = #top.scatter_reduction<none>} : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$data, TensorOf<[AnyInteger]>:$indices,
                   Top_Tensor:$updates,
                   Top_DefaultEnum<Top_ScatterReductionAttr, "None">:$reduction);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_GatherNDOp : Top_Op<"GatherND", [Pure,
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Gathers slices at multi-dim indices (ONNX GatherND)";
  let description = [{
    The first `batch_dims` dims of `data` and `indices` are batch dims and
    must be equal. Each row of `indices` (its last dim, `k` entries with
    `1 <= k <= rank(data) - batch_dims`) indexes the `k` dims of `data`
    after the batch dims and selects a slice of the remaining dims. The
    result shape is `indices.shape[:-1] + data.shape[batch_dims + k:]`.

    ```mlir
    %1 = top.GatherND(%d, %i) {batch_dims = 1 : i64} : (tensor<2x2x2xi32>, tensor<2x1xi64>) -> tensor<2x2xi32>
    ```
  }];
  let arguments = (ins Top_Tensor:$data, TensorOf<[AnyInteger]>:$indices,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$batch_dims);
  let results = (outs Top_Tensor:$output);
}

def Top_TopKOp : Top_Op<"TopK", [Pure,
    AllElementTypesMatch<["input", "values"]>]> {
  let summary = "The k largest (or smallest) elements along an axis";
  let description = [{
    `values` holds the `k` largest elements along `axis` (the smallest
    with `largest = false`) and `indices` their positions (i64); the other
    dims are kept. With `sorted` they are ordered from the largest (or
    smallest) down; equal values keep the lower index first, also when not
    `sorted` (then the elements are in index order). NaN counts as larger
    than any number. `k` is in `[0, dim]`.

    When `k` is only known at run time it is the optional operand `k_value`
    (an integer tensor with one element), the attribute `k` is 0 and the
    results' `axis` dim is `?` (fixed by the interpreter at run time).

    ```mlir
    %v, %i = top.TopK(%0) {k = 3 : i64, axis = -1 : i64, largest = true, sorted = true} : (tensor<3x4xf32>) -> (tensor<3x3xf32>, tensor<3x3xi64>)
    %w, %j = top.TopK(%0, %k) {k = 0 : i64, axis = -1 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_AxisAttr:$k,
                   DefaultValuedAttr<Top_AxisAttr, "-1">:$axis,
                   DefaultValuedAttr<BoolAttr, "true">:$largest,
                   DefaultValuedAttr<BoolAttr, "true">:$sorted,
                   Optional<TensorOf<[AnyInteger]>>:$k_value);
  let results = (outs Top_Tensor:$values, TensorOf<[I64]>:$indices);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
                   "::mlir::IntegerAttr":$k, "::mlir::IntegerAttr":$axis,
                   "::mlir::BoolAttr":$largest, "::mlir::BoolAttr":$sorted), [{
      build($_builder, $_state, resultTypes, input, k, axis, largest, sorted,
            ::mlir::Value());
    }]>
  ];
}

def Top_OneHotOp : Top_Op<"OneHot", [Pure,
    AllElementTypesMatch<["values", "output"]>]> {
  let summary = "One-hot encoding of indices (ONNX OneHot)";
  let description = [{
    Inserts a new dim of size `depth` at `axis` (in `[-r-1, r]` for indices
    of rank `r`; negative counts from the back of the result). Along it the
    result is `values[1]` (on) at the position given by the index and
    `values[0]` (off) elsewhere. `values` has two elements. Indices are
    integers or floats (truncated); negative indices count from the back
    (`+ depth`), and an index outside `[-depth, depth)` gives an all-off
    row, as in ONNX.

    The depth is either the attribute `depth` (then `depth_value` is
    `none`) or, when it is only known at run time, the one value of
    `depth_value` (truncated to an integer, must be >= 1); the new dim is
    then `?` and is fixed by the interpreter at run time (see NonZero).

    ```mlir
    %1 = top.OneHot(%i, %v, %none) {depth = 10 : i64, axis = -1 : i64} : (tensor<3xi64>, tensor<2xf32>, none) -> tensor<3x10xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$indices, Top_Tensor:$values,
                   Top_TensorOrNone:$depth_value,
                   OptionalAttr<Top_AxisAttr>:$depth,
                   DefaultValuedAttr<Top_AxisAttr, "-1">:$axis);
  let results = (outs Top_Tensor:$output);
}

def Top_ReverseSequenceOp : Top_Op<"ReverseSequence", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Reverses the first sequence_lens[b] steps of each batch entry";
  let description = [{
    For batch entry `b` (along `batch_axis`), the first `sequence_lens[b]`
    elements along `time_axis` are reversed and the rest are copied (ONNX
    ReverseSequence). `batch_axis` and `time_axis` are 0 or 1 and differ;
    `sequence_lens` has one integer per batch entry in `[0, time dim]`.

    ```mlir
    %1 = top.ReverseSequence(%x, %lens) {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, TensorOf<[AnyInteger]>:$sequence_lens,
                   DefaultValuedAttr<Top_AxisAttr, "1">:$batch_axis,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$time_axis);
  let results = (outs Top_Tensor:$output);
}

def Top_MaxUnpoolOp : Top_Op<"MaxUnpool", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Places pooled values back at their argmax positions";
  let description = [{
    The result, of shape `output_shape` (same rank as the input, same batch
    and channel dims), is zero except that element `input[p]` is written at
    flat (row-major) position `indices[p]` of the whole result (the
    `Indices` output of ONNX MaxPool). `indices` has the input's shape;
    an index outside the result is a runtime error.

    ```mlir
    %1 = top.MaxUnpool(%x, %i) {output_shape = array<i64: 1, 1, 4, 4>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, TensorOf<[AnyInteger]>:$indices,
                   DenseI64ArrayAttr:$output_shape);
  let results = (outs Top_Tensor:$output);
}

def Top_MaxPoolIndicesOp : Top_Op<"MaxPoolIndices", [Pure]> {
  let summary = "Positions of the maxima of a 2-D max pooling";
  let description = [{
    For an `N x C x H x W` input and the window of `top.MaxPool` (
    `kernel_shape`, `strides`, `pads` as `[top, left, bottom, right]`,
    `dilations`, floor or `ceil_mode` output size), the i64 flat index of
    the largest element of every window (the first one for ties; padding
    never wins): `((n * C + c) * H + h) * W + w`, or with
    `storage_order = 1` (column major) `((n * C + c) * W + w) * H + h`
    (ONNX MaxPool's `Indices` output).

    ```mlir
    %1 = top.MaxPoolIndices(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$storage_order);
  let results = (outs TensorOf<[I64]>:$output);
}

//===----------------------------------------------------------------------===//
// Ops whose result shape depends on input values. Shape inference gives `?`
// for those dims; the reference interpreter computes them at run time and
// refines the value's type, so the ops that consume it see static shapes
// (see lib/Interpreter). With constant inputs the op folds at import.
//===----------------------------------------------------------------------===//

def Top_NonZeroOp : Top_Op<"NonZero", [Pure]> {
  let summary = "Coordinates of the non-zero elements (ONNX NonZero)";
  let description = [{
    The i64 result has shape `[rank, count]`: column `j` holds the
    coordinates of the `j`-th non-zero element in row-major order
    (`np.array(np.nonzero(x))`). `count` is known only at run time (`?`).

    ```mlir
    %1 = top.NonZero(%0) : (tensor<2x3xi1>) -> tensor<2x?xi64>
    ```
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs TensorOf<[I64]>:$output);
}

def Top_UniqueOp : Top_Op<"Unique", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Distinct slices of a tensor (ONNX Unique)";
  let description = [{
    Without `axis` (`has_axis = false`) the input is flattened and its
    distinct elements are found; with it, its distinct slices along `axis`.
    `output` holds them sorted ascending (`sorted`, lexicographic for
    slices) or in order of first occurrence; `indices` the position of each
    one's first occurrence, `inverse_indices` for each input position the
    index of its value in `output`, and `counts` how often each occurs
    (all i64). NaNs compare equal to each other and sort last. The number
    of distinct values is known only at run time (`?`).

    ```mlir
    %y, %i, %inv, %n = top.Unique(%x) {sorted = true, has_axis = false} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
    ```
  }];
  let arguments = (ins Top_Tensor:$input,
                   DefaultValuedAttr<BoolAttr, "true">:$sorted,
                   DefaultValuedAttr<BoolAttr, "false">:$has_axis,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$axis);
  let results = (outs Top_Tensor:$output, TensorOf<[I64]>:$indices,
                 TensorOf<[I64]>:$inverse_indices, TensorOf<[I64]>:$counts);
}

def Top_NonMaxSuppressionOp : Top_Op<"NonMaxSuppression", [Pure]> {
  let summary = "Greedy non-maximum suppression of boxes (ONNX)";
  let description = [{
    `boxes` is `[B, N, 4]`, `scores` `[B, C, N]`. For every batch `b` and
    class `c`, boxes whose score is above `score_threshold` (all boxes
    when it is `none`) are visited by decreasing score (ties: lower index
    first); a box is selected unless its IoU with an already selected box
    of the same class exceeds `iou_threshold` (default 0), until
    `max_output_boxes_per_class` (default 0, negative counts as 0) are
    selected. Boxes are `[y1, x1, y2, x2]` with any two opposite corners
    (`center_point_box = 0`) or `[x_center, y_center, width, height]`
    (`= 1`). The three optional operands hold one value each. The result is
    `[count, 3]` i64 rows `(b, c, box index)`; `count` is known only at run
    time (`?`).

    ```mlir
    %1 = top.NonMaxSuppression(%boxes, %scores, %max, %iou, %none) : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, none) -> tensor<?x3xi64>
    ```
  }];
  let arguments = (ins Top_Tensor:$boxes, Top_Tensor:$scores,
                   Top_TensorOrNone:$max_output_boxes_per_class,
                   Top_TensorOrNone:$iou_threshold,
                   Top_TensorOrNone:$score_threshold,
                   DefaultValuedAttr<Top_AxisAttr, "0">:$center_point_box);
  let results = (outs TensorOf<[I64]>:$output);
}

def Top_RangeOp : Top_Op<"Range", [Pure,
    AllElementTypesMatch<["start", "limit", "delta", "output"]>]> {
  let summary = "Evenly spaced values from run-time bounds (ONNX Range)";
  let description = [{
    `output[i] = start + i * delta` for `i < max(ceil((limit - start) /
    delta), 0)`, accumulated as ONNX's function body does (each element is
    the previous one plus `delta`). `start`, `limit` and `delta` are scalars
    (shape `[]`) of one integer or float element type; the element count is
    computed exactly in integers, in f64 for floats. A `delta` of 0 is an
    error, as is a count over the element limit. The count is known only at
    run time (`?`) unless the three operands are constants; the importer
    folds those, so this op carries Range with run-time bounds.

    ```mlir
    %3 = top.Range(%0, %1, %2) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
    ```
  }];
  let arguments = (ins Top_Tensor:$start, Top_Tensor:$limit,
                   Top_Tensor:$delta);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

#endif // STRATA_TOP_SELECT_OPS
