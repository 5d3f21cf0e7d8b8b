// RUN: strata-opt %s --top-sink-transposes --split-input-file | FileCheck %s

// A Permute pair around a unary op cancels.
// CHECK-LABEL: func @unary_pair
// CHECK-NOT: top.Permute
// CHECK: %[[R:.*]] = top.Relu(%arg0) : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK: return %[[R]]
func.func @unary_pair(%arg0: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %1 = top.Relu(%0) : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %2 = top.Permute(%1) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  return %2 : tensor<1x4x4x8xf32>
}

// -----

// Two Permutes that compose to one merge; composing to identity vanishes.
// CHECK-LABEL: func @chain
// CHECK: top.Permute(%arg0) {order = array<i64: 0, 2, 3, 1>}
// CHECK-NOT: top.Permute
func.func @chain(%arg0: tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 1, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x4x3xf32>
  %1 = top.Permute(%0) {order = array<i64: 0, 3, 2, 1>} : (tensor<1x2x4x3xf32>) -> tensor<1x3x4x2xf32>
  return %1 : tensor<1x3x4x2xf32>
}

// -----

// A broadcast constant enters the frame through Reshape + Permute (here the
// Permute moves only size-1 dims, so both become one Reshape; constant
// folding removes it later); Concat and Reduce axes are mapped.
// CHECK-LABEL: func @binary_concat_reduce
// CHECK: %[[W:.*]] = top.Weight
// CHECK: %[[WP:.*]] = top.Reshape(%[[W]]) {shape = array<i64: 1, 1, 8, 1>} : (tensor<8xf32>) -> tensor<1x1x8x1xf32>
// CHECK: %[[A:.*]] = top.Add(%arg0, %[[WP]]) : (tensor<1x4x8x4xf32>, tensor<1x1x8x1xf32>) -> tensor<1x4x8x4xf32>
// CHECK: %[[C:.*]] = top.Concat(%[[A]], %arg0) {axis = 2 : i64} : (tensor<1x4x8x4xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x16x4xf32>
// CHECK: %[[R:.*]] = top.Reduce(%[[C]]) {axes = array<i64: 1, 3>
// CHECK-NOT: top.Permute
// CHECK: %[[O:.*]] = top.Reshape(%[[R]])
// CHECK: return %[[O]]
func.func @binary_concat_reduce(%arg0: tensor<1x4x8x4xf32>) -> tensor<1x1x1x16xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 1, 3, 2>} : (tensor<1x4x8x4xf32>) -> tensor<1x4x4x8xf32>
  %w = top.Weight() {name = "w", value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %1 = top.Add(%0, %w) : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %2 = top.Concat(%1, %0) {axis = -1 : i64} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x16xf32>
  %3 = top.Reduce(%2) {axes = array<i64: 1, 2>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<1x4x4x16xf32>) -> tensor<1x1x1x16xf32>
  %4 = top.Permute(%3) {order = array<i64: 0, 1, 3, 2>} : (tensor<1x1x1x16xf32>) -> tensor<1x1x16x1xf32>
  %5 = top.Reshape(%4) {shape = array<i64: 1, 1, 1, 16>} : (tensor<1x1x16x1xf32>) -> tensor<1x1x1x16xf32>
  return %5 : tensor<1x1x1x16xf32>
}

// -----

// Not fired: the Permute has a second user that needs it (the Conv), and
// the Relu's result leaves the function, so moving would add a Permute.
// CHECK-LABEL: func @two_users_disagree
// CHECK: %[[P:.*]] = top.Permute(%arg0)
// CHECK: top.Relu(%[[P]]) : (tensor<1x8x4x4xf32>)
// CHECK: top.Conv(%[[P]]
// CHECK-NOT: top.Permute
func.func @two_users_disagree(%arg0: tensor<1x4x4x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %1 = top.Relu(%0) : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x8x1x1xf32>
  %n = top.None() : () -> none
  %2 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  return %1, %2 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Not fired: the other Add operand is not a constant, so running the Add in
// the input's layout would need a run-time Permute of it.
// CHECK-LABEL: func @non_constant_operand
// CHECK: %[[P:.*]] = top.Permute(%arg0)
// CHECK: top.Add(%[[P]], %arg1) : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
// CHECK-NOT: top.Permute
func.func @non_constant_operand(%arg0: tensor<1x4x4x8xf32>, %arg1: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %1 = top.Add(%0, %arg1) : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %1 : tensor<1x8x4x4xf32>
}

// -----

// Residual: both Add operands come permuted the same way, so the whole
// region moves and the graph keeps one layout.
// CHECK-LABEL: func @residual
// CHECK-NOT: top.Permute
// CHECK: top.Add(%{{.*}}, %arg0) : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>)
// CHECK-NOT: top.Permute
func.func @residual(%arg0: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %1 = top.Sigmoid(%0) : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %2 = top.Add(%1, %0) : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %3 = top.Permute(%2) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  return %3 : tensor<1x4x4x8xf32>
}

// -----

// A Permute that only moves size-1 dims is a Reshape.
// CHECK-LABEL: func @unit_dims
// CHECK-NOT: top.Permute
// CHECK: top.Reshape(%arg0) {shape = array<i64: 1, 1, 1, 16>}
func.func @unit_dims(%arg0: tensor<1x16x1x1xf32>) -> tensor<1x1x1x16xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x16x1x1xf32>) -> tensor<1x1x1x16xf32>
  return %0 : tensor<1x1x1x16xf32>
}

// -----

// A Reduce without keepdims whose kept dims (N, C) keep their order reads
// the other frame directly, with its axes mapped.
// CHECK-LABEL: func @reduce_exit
// CHECK-NOT: top.Permute
// CHECK: %[[R:.*]] = top.Relu(%arg0) : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK: top.Reduce(%[[R]]) {axes = array<i64: 2, 3>, keepdims = false
func.func @reduce_exit(%arg0: tensor<1x8x4x4xf32>) -> tensor<1x8xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  %1 = top.Relu(%0) : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %2 = top.Reduce(%1) {axes = array<i64: 1, 2>, keepdims = false, mode = #top.reduce_mode<ReduceMean>} : (tensor<1x4x4x8xf32>) -> tensor<1x8xf32>
  return %2 : tensor<1x8xf32>
}

// -----

// Pad amounts and the Softmax axis follow their dims into the other frame.
// CHECK-LABEL: func @pad_softmax
// CHECK-NOT: top.Permute
// CHECK: %[[P:.*]] = top.Pad(%arg0) {pads = array<i64: 0, 0, 1, 2, 0, 0, 3, 4>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x10xf32>
// CHECK: top.Softmax(%[[P]]) {axis = 1 : i64} : (tensor<1x8x8x10xf32>) -> tensor<1x8x8x10xf32>
// CHECK-NOT: top.Permute
func.func @pad_softmax(%arg0: tensor<1x8x4x4xf32>) -> tensor<1x8x8x10xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  %1 = top.Pad(%0) {pads = array<i64: 0, 1, 2, 0, 0, 3, 4, 0>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x10x8xf32>
  %2 = top.Softmax(%1) {axis = -1 : i64} : (tensor<1x8x10x8xf32>) -> tensor<1x8x10x8xf32>
  %3 = top.Permute(%2) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x8x10x8xf32>) -> tensor<1x8x8x10xf32>
  return %3 : tensor<1x8x8x10xf32>
}

// -----

// Not fired: a Reduce without keepdims whose kept dims would change order
// (H and C of NHWC are C, H in NCHW) cannot absorb the frame, so moving
// the Relu would only move the Permute.
// CHECK-LABEL: func @reduce_keeps_order_only
// CHECK: %[[P:.*]] = top.Permute(%arg0)
// CHECK: %[[R:.*]] = top.Relu(%[[P]]) : (tensor<1x4x4x8xf32>)
// CHECK: top.Reduce(%[[R]]) {axes = array<i64: 0, 2>, keepdims = false
func.func @reduce_keeps_order_only(%arg0: tensor<1x8x4x4xf32>) -> tensor<4x8xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  %1 = top.Relu(%0) : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %2 = top.Reduce(%1) {axes = array<i64: 0, 2>, keepdims = false, mode = #top.reduce_mode<ReduceMean>} : (tensor<1x4x4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A region entering a frame shares a Permute of its input that already
// exists instead of adding one.
// CHECK-LABEL: func @shared_permute
// CHECK: %[[P:.*]] = top.Permute(%arg0) {order = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: top.Permute
// CHECK: %[[R:.*]] = top.Relu(%[[P]]) : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK: return %[[P]], %[[R]]
func.func @shared_permute(%arg0: tensor<1x4x4x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %0 = top.Relu(%arg0) : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %1 = top.Permute(%0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %2 = top.Permute(%arg0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  return %2, %1 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Resize resamples each dim on its own: its per-dim scales and roi follow
// their dims.
// CHECK-LABEL: func @resize
// CHECK-NOT: top.Permute
// CHECK: top.Resize(%arg0) {coordinate_transformation_mode = #top.coordinate_mode<tf_crop_and_resize>, roi = array<f64: 0.000000e+00, 0.000000e+00, 1.000000e-01, 2.000000e-01, 1.000000e+00, 1.000000e+00, 9.000000e-01, 8.000000e-01>, scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x12xf32>
// CHECK-NOT: top.Permute
func.func @resize(%arg0: tensor<1x8x4x4xf32>) -> tensor<1x8x8x12xf32> {
  %0 = top.Permute(%arg0) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  %1 = top.Resize(%0) {scales = array<f64: 1.0, 2.0, 3.0, 1.0>, coordinate_transformation_mode = #top.coordinate_mode<tf_crop_and_resize>, roi = array<f64: 0.0, 0.1, 0.2, 0.0, 1.0, 0.9, 0.8, 1.0>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x12x8xf32>
  %2 = top.Permute(%1) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x8x12x8xf32>) -> tensor<1x8x8x12xf32>
  return %2 : tensor<1x8x8x12xf32>
}

// -----

// A tie (one Permute before and after) is broken towards the graph input:
// the Pad then sits next to the Conv it can fold into.
// CHECK-LABEL: func @tie_to_input
// CHECK: %[[P:.*]] = top.Permute(%{{.*}}) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %[[D:.*]] = top.Pad(%[[P]]) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32>
// CHECK: top.Conv(%[[D]]
// CHECK-NOT: top.Permute
func.func @tie_to_input(%arg0: tensor<1x4x4x3xf32>) -> tensor<1x8x4x4xf32> {
  %x = top.Input(%arg0) : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %0 = top.Pad(%x) {pads = array<i64: 0, 1, 1, 0, 0, 1, 1, 0>} : (tensor<1x4x4x3xf32>) -> tensor<1x6x6x3xf32>
  %1 = top.Permute(%0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x6x6x3xf32>) -> tensor<1x3x6x6xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
  %n = top.None() : () -> none
  %2 = top.Conv(%1, %w, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x4x4xf32>
  return %2 : tensor<1x8x4x4xf32>
}

// -----

// Not fired: the same tie, but the Permute would land on a value that is
// not a graph input (the Reshape's result), so nothing is gained.
// CHECK-LABEL: func @tie_elsewhere
// CHECK: top.Pad(%{{.*}}) {pads = array<i64: 0, 1, 1, 0, 0, 1, 1, 0>} : (tensor<1x4x4x3xf32>)
// CHECK: top.Permute
func.func @tie_elsewhere(%arg0: tensor<1x48xf32>) -> tensor<1x8x4x4xf32> {
  %x = top.Input(%arg0) : (tensor<1x48xf32>) -> tensor<1x48xf32>
  %r = top.Reshape(%x) {shape = array<i64: 1, 4, 4, 3>} : (tensor<1x48xf32>) -> tensor<1x4x4x3xf32>
  %0 = top.Pad(%r) {pads = array<i64: 0, 1, 1, 0, 0, 1, 1, 0>} : (tensor<1x4x4x3xf32>) -> tensor<1x6x6x3xf32>
  %1 = top.Permute(%0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x6x6x3xf32>) -> tensor<1x3x6x6xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
  %n = top.None() : () -> none
  %2 = top.Conv(%1, %w, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x4x4xf32>
  return %2 : tensor<1x8x4x4xf32>
}

// -----

// A per-channel Requant is elementwise but for its channel dim: the pair
// around it cancels and its axis follows the channels (NHWC dim 3 is NCHW
// dim 1 here).
// CHECK-LABEL: func @requant_axis
// CHECK-NOT: top.Permute
// CHECK: top.Requant(%{{.*}}) {axis = 1 : i64, multiplier = array<i64: 1073741824, 1518500250, 3>, quant_mode = #top.requant_mode<TosaSingleRound>, rshift = array<i64: 33>} : (tensor<1x3x4x5xi32>) -> tensor<1x3x4x5xi8>
// CHECK-NOT: top.Permute
func.func @requant_axis(%x: tensor<1x3x4x5xi32>) -> tensor<1x3x4x5xi8> {
  %0 = top.Permute(%x) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xi32>) -> tensor<1x4x5x3xi32>
  %1 = top.Requant(%0) {multiplier = array<i64: 1073741824, 1518500250, 3>, rshift = array<i64: 33>, axis = 3 : i64, quant_mode = #top.requant_mode<TosaSingleRound>} : (tensor<1x4x5x3xi32>) -> tensor<1x4x5x3xi8>
  %2 = top.Permute(%1) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x3xi8>) -> tensor<1x3x4x5xi8>
  return %2 : tensor<1x3x4x5xi8>
}
