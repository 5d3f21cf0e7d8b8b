// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of the shape and data-movement ops, one case per split.
func.func @permute_not_permutation(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{attribute 'order' [0, 0, 1] is not a permutation of 0..2}}
  %0 = top.Permute(%x) {order = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @permute_not_permutation_dynamic(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{attribute 'order' [1, 2] is not a permutation of 0..1}}
  %0 = top.Permute(%x) {order = array<i64: 1, 2>} : (tensor<?x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @permute_rank(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{attribute 'order' must have 3 values, got 2 [1, 0]}}
  %0 = top.Permute(%x) {order = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @permute_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has shape [2, 3] but the operands and attributes give [3, 2]}}
  %0 = top.Permute(%x) {order = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @permute_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = top.Permute(%x) {order = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xi32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0 = top.Concat() {axis = 0 : i64} : () -> tensor<*xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'axis' = 2 is out of range for rank 2}}
  %0 = top.Concat(%a, %a) {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_negative_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'axis' = -3 is out of range for rank 2}}
  %0 = top.Concat(%a) {axis = -3 : i64} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{input #1 has shape [3, 3] but input #0 has shape [2, 3]; only dim 1 (attribute 'axis') may differ}}
  %0 = top.Concat(%a, %b) {axis = -1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+1 {{input #1 has shape [2, 3, 1] but input #0 has shape [2, 3]; only dim 0 (attribute 'axis') may differ}}
  %0 = top.Concat(%a, %b) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_overflow(%a: tensor<0x6917529027641081856xi8>) {
  // expected-error @+1 {{concatenated dim 1 overflows int64}}
  %0 = top.Concat(%a, %a) {axis = 1 : i64} : (tensor<0x6917529027641081856xi8>, tensor<0x6917529027641081856xi8>) -> tensor<*xi8>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = top.Concat(%a, %b) {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf16>) -> tensor<*xf32>
  return
}

// -----

func.func @split_count(%x: tensor<2x6xf32>) {
  // expected-error @+1 {{attribute 'split' [1, 2, 3] has 3 sizes but the op has 2 results}}
  %0:2 = top.Split(%x) {axis = 1 : i64, split = array<i64: 1, 2, 3>} : (tensor<2x6xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @split_negative(%x: tensor<2x6xf32>) {
  // expected-error @+1 {{attribute 'split' value -1 at index 0 must be >= 0 (got [-1, 7])}}
  %0:2 = top.Split(%x) {axis = 1 : i64, split = array<i64: -1, 7>} : (tensor<2x6xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @split_sum(%x: tensor<2x6xf32>) {
  // expected-error @+1 {{attribute 'split' [2, 3] must sum to the size 6 of dim 1}}
  %0:2 = top.Split(%x) {axis = -1 : i64, split = array<i64: 2, 3>} : (tensor<2x6xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @split_sum_overflow(%x: tensor<2x6xf32>) {
  // expected-error @+1 {{attribute 'split' [9223372036854775807, 9223372036854775807, 4] must sum to the size 6 of dim 1}}
  %0:3 = top.Split(%x) {axis = 1 : i64, split = array<i64: 9223372036854775807, 9223372036854775807, 4>} : (tensor<2x6xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @split_axis(%x: tensor<2x6xf32>) {
  // expected-error @+1 {{attribute 'axis' = 2 is out of range for rank 2}}
  %0:2 = top.Split(%x) {axis = 2 : i64, split = array<i64: 1, 1>} : (tensor<2x6xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @slice_ends_length(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'ends' must have 2 values, got 1 [3]}}
  %0 = top.Slice(%x) {starts = array<i64: 0, 1>, ends = array<i64: 3>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @slice_axes_length(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'axes' must have 1 values, got 2 [0, 1]}}
  %0 = top.Slice(%x) {starts = array<i64: 0>, ends = array<i64: 3>, axes = array<i64: 0, 1>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @slice_steps_length(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'steps' must have 1 values, got 0 []}}
  %0 = top.Slice(%x) {starts = array<i64: 0>, ends = array<i64: 3>, steps = array<i64>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<?x5xf32>) {
  // expected-error @+1 {{attribute 'steps' value 0 at index 1 must be non-zero (got [1, 0])}}
  %0 = top.Slice(%x) {starts = array<i64: 0, 0>, ends = array<i64: 3, 3>, steps = array<i64: 1, 0>} : (tensor<?x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @slice_too_many_starts(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'starts' has 3 values but the input has rank 2}}
  %0 = top.Slice(%x) {starts = array<i64: 0, 0, 0>, ends = array<i64: 1, 1, 1>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @slice_axis_range(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'axes' = -3 is out of range for rank 2}}
  %0 = top.Slice(%x) {starts = array<i64: 0>, ends = array<i64: 1>, axes = array<i64: -3>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @slice_axes_repeat(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'axes' [1, -1] repeats dim 1}}
  %0 = top.Slice(%x) {starts = array<i64: 0, 0>, ends = array<i64: 1, 1>, axes = array<i64: 1, -1>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_mode(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{failed to parse Top_PadModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown pad_mode 'circular', expected one of: constant, reflect, edge, wrap}}
  %0 = top.Pad(%x) {pads = array<i64: 0, 0, 0, 0>, mode = #top.pad_mode<circular>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_length(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'pads' must have 4 values, got 2 [1, 1]}}
  %0 = top.Pad(%x) {pads = array<i64: 1, 1>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_wrap_empty(%x: tensor<0x5xf32>) {
  // expected-error @+1 {{attribute 'pads' [1, 0, 0, 0] pads the empty dim 0 in mode "wrap"}}
  %0 = top.Pad(%x) {pads = array<i64: 1, 0, 0, 0>, mode = #top.pad_mode<wrap>} : (tensor<0x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_reflect(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'pads' [0, 0, 0, 5] must be smaller than dim 1 (size 5) in mode "reflect"}}
  %0 = top.Pad(%x) {pads = array<i64: 0, 0, 0, 5>, mode = #top.pad_mode<reflect>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_edge_empty(%x: tensor<0x5xf32>) {
  // expected-error @+1 {{attribute 'pads' [1, 0, 0, 0] pads the empty dim 0 in mode "edge"}}
  %0 = top.Pad(%x) {pads = array<i64: 1, 0, 0, 0>, mode = #top.pad_mode<edge>} : (tensor<0x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_negative_size(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'pads' [-3, 0, -2, 0] gives dim 0 (size 4) a negative or overflowing size}}
  %0 = top.Pad(%x) {pads = array<i64: -3, 0, -2, 0>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_overflow(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'pads' [0, 9223372036854775807, 0, 0] gives dim 1 (size 5) a negative or overflowing size}}
  %0 = top.Pad(%x) {pads = array<i64: 0, 9223372036854775807, 0, 0>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_element_count(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{shape [4611686018427387908, 5] has a negative dim or overflows int64}}
  %0 = top.Pad(%x) {pads = array<i64: 4611686018427387904, 0, 0, 0>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{attribute 'axis' = 2 is out of range for rank 2}}
  %0 = top.Gather(%x, %i) {axis = 2 : i64} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<4x5xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be tensor of integer values, but got 'tensor<3xf32>'}}
  %0 = top.Gather(%x, %i) : (tensor<4x5xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_element_type(%x: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{failed to verify that all of {input, output} have same element type}}
  %0 = top.Gather(%x, %i) : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<*xi64>
  return
}

// -----

func.func @tile_negative(%x: tensor<?x5xf32>) {
  // expected-error @+1 {{attribute 'repeats' value -1 at index 1 must be >= 0 (got [1, -1])}}
  %0 = top.Tile(%x) {repeats = array<i64: 1, -1>} : (tensor<?x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @tile_length(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'repeats' must have 2 values, got 3 [1, 1, 1]}}
  %0 = top.Tile(%x) {repeats = array<i64: 1, 1, 1>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @tile_overflow(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'repeats' [4611686018427387904, 1] overflows a dim of [4, 5]}}
  %0 = top.Tile(%x) {repeats = array<i64: 4611686018427387904, 1>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @expand_negative(%x: tensor<4x1xf32>) {
  // expected-error @+1 {{attribute 'shape' value -1 at index 0 must be >= 0 (got [-1, 3])}}
  %0 = top.Expand(%x) {shape = array<i64: -1, 3>} : (tensor<4x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @expand_broadcast(%x: tensor<4x1xf32>) {
  // expected-error @+1 {{attribute 'shape' [3, 2] does not broadcast with the input shape [4, 1]}}
  %0 = top.Expand(%x) {shape = array<i64: 3, 2>} : (tensor<4x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reduce_mode(%x: tensor<?x5xf32>) {
  // expected-error @+2 {{failed to parse Top_ReduceModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown reduce_mode 'ReduceL2', expected one of: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd}}
  %0 = top.Reduce(%x) {mode = #top.reduce_mode<ReduceL2>} : (tensor<?x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'axes' = 2 is out of range for rank 2}}
  %0 = top.Reduce(%x) {axes = array<i64: 0, 2>, mode = #top.reduce_mode<ReduceSum>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reduce_repeat(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'axes' [0, -2] repeats dim 0}}
  %0 = top.Reduce(%x) {axes = array<i64: 0, -2>, mode = #top.reduce_mode<ReduceSum>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reduce_result(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{result #0 has shape [4] but the operands and attributes give [4, 1]}}
  %0 = top.Reduce(%x) {axes = array<i64: 1>, mode = #top.reduce_mode<ReduceMax>} : (tensor<4x5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @argmax_axis(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'axis' = -3 is out of range for rank 2}}
  %0 = top.ArgMax(%x) {axis = -3 : i64} : (tensor<4x5xf32>) -> tensor<*xi64>
  return
}

// -----

func.func @argmax_empty(%x: tensor<4x0xf32>) {
  // expected-error @+1 {{attribute 'axis' = -1 selects the empty dim 1; argmax needs at least one element}}
  %0 = top.ArgMax(%x) {axis = -1 : i64} : (tensor<4x0xf32>) -> tensor<*xi64>
  return
}

// -----

func.func @argmax_result_type(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{result #0 must be tensor of 64-bit signless integer values, but got 'tensor<*xi32>'}}
  %0 = top.ArgMax(%x) : (tensor<4x5xf32>) -> tensor<*xi32>
  return
}
