// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Verifier errors of the runtime `<name>_value` operands of the Top ops.

func.func @reduce_both(%x: tensor<2x3xf32>, %a: tensor<1xi64>) {
  // expected-error @+1 {{takes the axes from attribute 'axes' [0] or from operand 'axes_value', not both}}
  %0 = top.Reduce(%x, %a) {axes = array<i64: 0>, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reduce_too_many_axes(%x: tensor<2x3xf32>, %a: tensor<3xi64>) {
  // expected-error @+1 {{operand 'axes_value' holds 3 axes but the input has rank 2}}
  %0 = top.Reduce(%x, %a) {mode = #top.reduce_mode<ReduceSum>} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_both(%x: tensor<2x3xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{takes the shape from attribute 'shape' [6] or from operand 'shape_value', not both}}
  %0 = top.Reshape(%x, %s) {shape = array<i64: 6>} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @tile_wrong_length(%x: tensor<2x3xf32>, %r: tensor<3xi64>) {
  // expected-error @+1 {{operand 'repeats_value' has 3 entries but the input has rank 2}}
  %0 = top.Tile(%x, %r) {repeats = array<i64>} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @pad_wrong_length(%x: tensor<2x3xf32>, %p: tensor<3xi64>) {
  // expected-error @+1 {{operand 'pads_value' has 3 entries but the input has rank 2 (needs 4)}}
  %0 = top.Pad(%x, %p) {pads = array<i64>} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @topk_both(%x: tensor<2x3xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{takes k from attribute 'k' = 2 or from operand 'k_value', not both}}
  %0:2 = top.TopK(%x, %k) {k = 2 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  return
}

// -----

func.func @trilu_not_scalar(%x: tensor<2x3xf32>, %k: tensor<2xi64>) {
  // expected-error @+1 {{operand 'diagonal_value' must hold one integer, got 'tensor<2xi64>'}}
  %0 = top.Trilu(%x, %k) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @split_count(%x: tensor<2x3xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{operand 'split_value' has 3 sizes but the op has 2 results}}
  %0:2 = top.Split(%x, %s) {axis = 1 : i64, split = array<i64>} : (tensor<2x3xf32>, tensor<3xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @slice_bounds_shape(%x: tensor<2x3xf32>, %b: tensor<3x1xi64>) {
  // expected-error @+1 {{operand 'bounds_value' must have shape [4, n] (starts, ends, axes, steps), got 'tensor<3x1xi64>'}}
  %0 = top.Slice(%x, %b) {starts = array<i64>, ends = array<i64>} : (tensor<2x3xf32>, tensor<3x1xi64>) -> tensor<*xf32>
  return
}
