// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier / shape-inference error of the index and selection ops.

func.func @trilu_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{input must have rank >= 2, got shape [4]}}
  %0 = top.Trilu(%x) : (tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @cumulative_mode(%x: tensor<4xf32>) {
  // expected-error @+2 {{failed to parse Top_CumulativeModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown cumulative_mode 'max', expected one of: sum, prod}}
  %0 = top.Cumulative(%x) {axis = 0 : i64, mode = #top.cumulative_mode<max>} : (tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @cumulative_axis(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{attribute 'axis' = 2 is out of range for rank 2}}
  %0 = top.Cumulative(%x) {axis = 2 : i64} : (tensor<4x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @cumulative_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand 'input' must have a float or integer element type, got 'i1'}}
  %0 = top.Cumulative(%x) {axis = 0 : i64} : (tensor<4xi1>) -> tensor<*xi1>
  return
}

// -----

func.func @scatter_elements_reduction(%d: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+2 {{failed to parse Top_ScatterReductionAttr parameter 'value'}}
  // expected-error @+1 {{unknown scatter_reduction 'sum', expected one of: none, add, mul, min, max}}
  %0 = top.ScatterElements(%d, %i, %u) {reduction = #top.scatter_reduction<sum>} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @scatter_elements_updates_shape(%d: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<3xf32>) {
  // expected-error @+1 {{'indices' shape [2] must equal 'updates' shape [3]}}
  %0 = top.ScatterElements(%d, %i, %u) : (tensor<4xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @scatter_elements_too_large(%d: tensor<4x2xf32>, %i: tensor<1x3xi64>, %u: tensor<1x3xf32>) {
  // expected-error @+1 {{'indices' shape [1, 3] must have the rank of 'data' shape [4, 2] and be no larger in the dims other than axis 0}}
  %0 = top.ScatterElements(%d, %i, %u) {axis = 0 : i64} : (tensor<4x2xf32>, tensor<1x3xi64>, tensor<1x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @scatter_elements_types(%d: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf16>) {
  // expected-error @+1 {{operand 'updates' element type 'f16' must match operand 'data' element type 'f32'}}
  %0 = top.ScatterElements(%d, %i, %u) : (tensor<4xf32>, tensor<2xi64>, tensor<2xf16>) -> tensor<*xf32>
  return
}

// -----

func.func @scatter_nd_k(%d: tensor<4x2xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{the last dim of 'indices' (3) must be in [1, 2] (the rank of 'data')}}
  %0 = top.ScatterND(%d, %i, %u) : (tensor<4x2xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @scatter_nd_updates(%d: tensor<4x2xf32>, %i: tensor<3x1xi64>, %u: tensor<3x3xf32>) {
  // expected-error @+1 {{'updates' shape [3, 3] must be [3, 2] (indices.shape[:-1] + data.shape[1:])}}
  %0 = top.ScatterND(%d, %i, %u) : (tensor<4x2xf32>, tensor<3x1xi64>, tensor<3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_nd_batch_dims(%d: tensor<4x2xf32>, %i: tensor<4x1xi64>) {
  // expected-error @+1 {{attribute 'batch_dims' = 2 must be in [0, 2) for 'data' shape [4, 2] and 'indices' shape [4, 1]}}
  %0 = top.GatherND(%d, %i) {batch_dims = 2 : i64} : (tensor<4x2xf32>, tensor<4x1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_nd_batch_mismatch(%d: tensor<4x2xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+1 {{batch dim 0 differs: 'data' shape [4, 2], 'indices' shape [3, 1]}}
  %0 = top.GatherND(%d, %i) {batch_dims = 1 : i64} : (tensor<4x2xf32>, tensor<3x1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_nd_k(%d: tensor<4x2xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+1 {{the last dim of 'indices' (2) must be in [1, 1] (rank of 'data' minus batch_dims)}}
  %0 = top.GatherND(%d, %i) {batch_dims = 1 : i64} : (tensor<4x2xf32>, tensor<4x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @topk_k(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{attribute 'k' = 5 must be in [0, 4] (the size of dim 1)}}
  %0:2 = top.TopK(%x) {k = 5 : i64} : (tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return
}

// -----

func.func @topk_axis(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{attribute 'axis' = -3 is out of range for rank 2}}
  %0:2 = top.TopK(%x) {k = 1 : i64, axis = -3 : i64} : (tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return
}

// -----

func.func @onehot_depth(%i: tensor<3xi64>, %v: tensor<2xf32>) {
  %none = top.None() : () -> none
  // expected-error @+1 {{attribute 'depth' = 0 must be >= 1}}
  %0 = top.OneHot(%i, %v, %none) {depth = 0 : i64} : (tensor<3xi64>, tensor<2xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @onehot_two_depths(%i: tensor<3xi64>, %v: tensor<2xf32>, %d: tensor<1xi64>) {
  // expected-error @+1 {{needs exactly one of attribute 'depth' and operand 'depth_value'}}
  %0 = top.OneHot(%i, %v, %d) {depth = 3 : i64} : (tensor<3xi64>, tensor<2xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @onehot_values(%i: tensor<3xi64>, %v: tensor<3xf32>) {
  %none = top.None() : () -> none
  // expected-error @+1 {{'values' must have 2 elements (off, on), got shape [3]}}
  %0 = top.OneHot(%i, %v, %none) {depth = 4 : i64} : (tensor<3xi64>, tensor<3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @onehot_axis(%i: tensor<3xi64>, %v: tensor<2xf32>) {
  %none = top.None() : () -> none
  // expected-error @+1 {{attribute 'axis' = 2 is out of range for rank 2}}
  %0 = top.OneHot(%i, %v, %none) {depth = 4 : i64, axis = 2 : i64} : (tensor<3xi64>, tensor<2xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @reverse_sequence_axes(%x: tensor<4x3xf32>, %l: tensor<3xi64>) {
  // expected-error @+1 {{attributes 'batch_axis' and 'time_axis' must differ, both are 1}}
  %0 = top.ReverseSequence(%x, %l) {batch_axis = 1 : i64, time_axis = 1 : i64} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reverse_sequence_time_axis(%x: tensor<4x3xf32>, %l: tensor<3xi64>) {
  // expected-error @+1 {{attribute 'time_axis' = 2 must be 0 or 1}}
  %0 = top.ReverseSequence(%x, %l) {time_axis = 2 : i64} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reverse_sequence_lens(%x: tensor<4x3xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{'sequence_lens' shape [4] must be [3] (the batch dim)}}
  %0 = top.ReverseSequence(%x, %l) : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @maxunpool_shape(%x: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xi64>) {
  // expected-error @+1 {{attribute 'output_shape' [1, 3, 4, 4] must keep the batch and channel dims of the input shape [1, 2, 2, 2]}}
  %0 = top.MaxUnpool(%x, %i) {output_shape = array<i64: 1, 3, 4, 4>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @maxunpool_indices(%x: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x1xi64>) {
  // expected-error @+1 {{'indices' shape [1, 2, 2, 1] must equal the input shape [1, 2, 2, 2]}}
  %0 = top.MaxUnpool(%x, %i) {output_shape = array<i64: 1, 2, 4, 4>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @maxpool_indices_storage(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{attribute 'storage_order' = 2 must be 0 or 1}}
  %0 = top.MaxPoolIndices(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, storage_order = 2 : i64} : (tensor<1x1x4x4xf32>) -> tensor<*xi64>
  return
}

// -----

func.func @maxpool_indices_kernel(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{attribute 'kernel_shape' value 0 at index 1 must be >= 1 (got [2, 0])}}
  %0 = top.MaxPoolIndices(%x) {kernel_shape = array<i64: 2, 0>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xf32>) -> tensor<*xi64>
  return
}

// -----

func.func @maxpool_indices_result(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{result #0 has shape [1, 1, 3, 3] but the operands and attributes give [1, 1, 2, 2]}}
  %0 = top.MaxPoolIndices(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xi64>
  return
}

// -----

func.func @unique_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'axis' = 2 is out of range for rank 2}}
  %0:4 = top.Unique(%x) {has_axis = true, axis = 2 : i64} : (tensor<2x3xf32>) -> (tensor<*xf32>, tensor<*xi64>, tensor<*xi64>, tensor<*xi64>)
  return
}

// -----

func.func @unique_inverse(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #2 has shape [5] but the operands and attributes give [6]}}
  %0:4 = top.Unique(%x) : (tensor<2x3xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>)
  return
}

// -----

func.func @nms_boxes(%b: tensor<1x6x5xf32>, %s: tensor<1x1x6xf32>) {
  %none = top.None() : () -> none
  // expected-error @+1 {{'boxes' shape [1, 6, 5] must be [batches, boxes, 4]}}
  %0 = top.NonMaxSuppression(%b, %s, %none, %none, %none) : (tensor<1x6x5xf32>, tensor<1x1x6xf32>, none, none, none) -> tensor<*xi64>
  return
}

// -----

func.func @nms_scores(%b: tensor<1x6x4xf32>, %s: tensor<1x1x5xf32>) {
  %none = top.None() : () -> none
  // expected-error @+1 {{'scores' shape [1, 1, 5] must be [1, classes, 6] for 'boxes' shape [1, 6, 4]}}
  %0 = top.NonMaxSuppression(%b, %s, %none, %none, %none) : (tensor<1x6x4xf32>, tensor<1x1x5xf32>, none, none, none) -> tensor<*xi64>
  return
}

// -----

func.func @nms_threshold(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>, %t: tensor<2xf32>) {
  %none = top.None() : () -> none
  // expected-error @+1 {{operand 'iou_threshold' must hold one value, has shape [2]}}
  %0 = top.NonMaxSuppression(%b, %s, %none, %t, %none) : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, none, tensor<2xf32>, none) -> tensor<*xi64>
  return
}

// -----

func.func @nms_center(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  %none = top.None() : () -> none
  // expected-error @+1 {{attribute 'center_point_box' = 2 must be 0 or 1}}
  %0 = top.NonMaxSuppression(%b, %s, %none, %none, %none) {center_point_box = 2 : i64} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, none, none, none) -> tensor<*xi64>
  return
}

// -----

func.func @range_not_scalar(%s: tensor<1xi64>, %l: tensor<i64>) {
  // expected-error @+1 {{operand 'start' has shape [1]; it must be a scalar (shape [])}}
  %0 = top.Range(%s, %l, %l) : (tensor<1xi64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return
}

// -----

func.func @range_bool(%b: tensor<i1>) {
  // expected-error @+1 {{operand 'start' must have}}
  %0 = top.Range(%b, %b, %b) : (tensor<i1>, tensor<i1>, tensor<i1>) -> tensor<?xi1>
  return
}

// -----

func.func @range_mixed_types(%s: tensor<i64>, %l: tensor<i32>) {
  // expected-error @+1 {{all of {start, limit, delta, output} have same element type}}
  %0 = top.Range(%s, %l, %s) : (tensor<i64>, tensor<i32>, tensor<i64>) -> tensor<?xi64>
  return
}
