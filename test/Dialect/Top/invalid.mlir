// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of the Top dialect, one case per split.

func.func @conv_kernel_shape_size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'kernel_shape' must have 2 values, got 1 [3]}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'strides' value 0 at index 1 must be >= 1 (got [1, 0])}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_negative_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'pads' value -1 at index 2 must be >= 0}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, -1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_group(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'group' = 4 must be >= 1 and divide input channels (6) and output channels (4)}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, group = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_filter_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>, %n: none) {
  // expected-error @+1 {{filter has 2 input channels per group, expected 6 / group 1 = 6}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_kernel_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{attribute 'kernel_shape' [5, 5] does not match the filter's spatial dims [3, 3]}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 5, 5>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{bias must have 4 elements (one per output channel), got shape [3]}}
  %0 = top.Conv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{filter must have rank 3 like the input, got shape [4, 3, 3, 3]}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_input_rank(%x: tensor<8x8xf32>, %w: tensor<4x3xf32>, %n: none) {
  // expected-error @+1 {{input must have rank 3 to 5 (N, C, 1-3 spatial dims), got shape [8, 8]}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3>} : (tensor<8x8xf32>, tensor<4x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_zp_length(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %n: none) {
  // expected-error @+1 {{attribute 'input_zp' must have 1 or 3 (input channels) values, got 2}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, input_zp = array<i64: 1, 2>} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, none) -> tensor<*xi32>
  return
}

// -----

func.func @conv_kernel_too_big(%x: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{effective kernel size 3 exceeds padded input size 2 in spatial dim 0}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @conv_wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{result #0 has shape [1, 4, 8, 8] but the operands and attributes give [1, 4, 6, 6]}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @pool_pads(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{pads [2, 0, 0, 0] must be smaller than the effective kernel 2 in spatial dim 0}}
  %0 = top.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, pads = array<i64: 2, 0, 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pool_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'kernel_shape' value 0 at index 0 must be >= 1}}
  %0 = top.AvgPool(%x) {kernel_shape = array<i64: 0, 2>} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @gap_rank(%x: tensor<3x8xf32>) {
  // expected-error @+1 {{input must have rank >= 3 (N, C, spatial...), got shape [3, 8]}}
  %0 = top.GlobalAvgPool(%x) : (tensor<3x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @matmul_k(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>, %n: none) {
  // expected-error @+1 {{contracting dims differ: input shape [2, 3] has K = 3, right shape [4, 5] has K = 4}}
  %0 = top.MatMul(%a, %b, %n) : (tensor<2x3xf32>, tensor<4x5xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x5xf32>, %n: none) {
  // expected-error @+1 {{operand shapes [2] and [3] do not broadcast}}
  %0 = top.MatMul(%a, %b, %n) : (tensor<2x2x3xf32>, tensor<3x3x5xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @matmul_bias(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{bias must have 1 or 5 elements (the output's last dim), got shape [4]}}
  %0 = top.MatMul(%a, %b, %c) : (tensor<2x3xf32>, tensor<3x5xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operand shapes [2, 3] and [4] do not broadcast}}
  %0 = top.Add(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %0 = top.Reshape(%a) {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_two_minus_one(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'shape' [-1, -1] has more than one -1}}
  %0 = top.Reshape(%a) {shape = array<i64: -1, -1>} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_bad_dim(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'shape' [-2, 3] has invalid dim -2 at index 0}}
  %0 = top.Reshape(%a) {shape = array<i64: -2, 3>} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @weight_name() {
  // expected-error @+1 {{attribute 'name' must not be empty}}
  %0 = top.Weight() {name = ""} : () -> tensor<2xf32>
  return
}

// -----

// expected-error @+1 {{'top.weight_file' must be a string, got 3 : i64}}
module attributes {top.weight_file = 3} {
}

// -----

// expected-error @+1 {{unknown Top dialect attribute 'top.bogus'}}
module attributes {top.bogus = "x"} {
}
