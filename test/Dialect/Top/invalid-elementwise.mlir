// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of the elementwise, activation, Where, Compare and
// Cast ops, one case per split.

func.func @sub_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) {
  // expected-error @+1 {{operand 'lhs' must have a float or integer element type, got 'i1'}}
  %0 = top.Sub(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @add_rhs_type(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{operand 'rhs' element type 'f16' must match operand 'lhs' element type 'f32'}}
  %0 = top.Add(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @mul_result_type(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{result element type 'i64' must match operand 'lhs' element type 'i32'}}
  %0 = top.Mul(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi64>
  return
}

// -----

func.func @div_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{operand shapes [2, 3] and [2] do not broadcast}}
  %0 = top.Div(%a, %b) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @max_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{result #0 has shape [3] but the operands and attributes give [2, 3]}}
  %0 = top.Max(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @min_unsupported(%a: tensor<4xi3>, %b: tensor<4xi3>) {
  // expected-error @+1 {{operand 'lhs' must have a float or integer element type, got 'i3'}}
  %0 = top.Min(%a, %b) : (tensor<4xi3>, tensor<4xi3>) -> tensor<4xi3>
  return
}

// -----

func.func @pow_int(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{operand 'lhs' must have a float element type, got 'i32'}}
  %0 = top.Pow(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @sigmoid_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i32'}}
  %0 = top.Sigmoid(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @exp_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{result element type 'f16' must match operand 'input' element type 'f32'}}
  %0 = top.Exp(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @tanh_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has shape [5] but the operands and attributes give [4]}}
  %0 = top.Tanh(%a) : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @abs_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{operand 'input' must have a float or integer element type, got 'i1'}}
  %0 = top.Abs(%a) : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @neg_result_type(%a: tensor<4xi8>) {
  // expected-error @+1 {{result element type 'i16' must match operand 'input' element type 'i8'}}
  %0 = top.Neg(%a) : (tensor<4xi8>) -> tensor<4xi16>
  return
}

// -----

func.func @relu_unsupported(%a: tensor<4xi3>) {
  // expected-error @+1 {{operand 'input' must have a float, integer or i1 element type, got 'i3'}}
  %0 = top.Relu(%a) : (tensor<4xi3>) -> tensor<4xi3>
  return
}

// -----

func.func @leaky_relu_int(%a: tensor<4xi8>) {
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i8'}}
  %0 = top.LeakyRelu(%a) {alpha = 0.1 : f64} : (tensor<4xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @clip_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i32'}}
  %0 = top.Clip(%a) {min = 0.0 : f64, max = 6.0 : f64} : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @clip_range(%a: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'min' = 6.000000e+00 must be <= attribute 'max' = 0.000000e+00}}
  %0 = top.Clip(%a) {min = 6.0 : f64, max = 0.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @clip_nan(%a: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'min' = nan must be <= attribute 'max' = 1.000000e+00}}
  %0 = top.Clip(%a) {min = 0x7FF8000000000000 : f64, max = 1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gelu_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i32'}}
  %0 = top.Gelu(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @gelu_approximate(%a: tensor<4xf32>) {
  // expected-error @+2 {{failed to parse Top_GeluApproximationAttr parameter 'value'}}
  // expected-error @+1 {{unknown gelu_approximation 'erf', expected one of: none, tanh}}
  %0 = top.Gelu(%a) {approximate = #top.gelu_approximation<erf>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @hard_sigmoid_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i32'}}
  %0 = top.HardSigmoid(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @scalar_affine_int(%a: tensor<4xi8>) {
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i8'}}
  %0 = top.ScalarAffine(%a) {scale = 2.0 : f64, offset = 1.0 : f64} : (tensor<4xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @prelu_int(%a: tensor<4xi32>, %s: tensor<4xi32>) {
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i32'}}
  %0 = top.PRelu(%a, %s) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @prelu_result_type(%a: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{result element type 'f64' must match operand 'input' element type 'f32'}}
  %0 = top.PRelu(%a, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @prelu_slope_type(%a: tensor<4xf32>, %s: tensor<4xf16>) {
  // expected-error @+1 {{operand 'slope' element type 'f16' must match operand 'input' element type 'f32'}}
  %0 = top.PRelu(%a, %s) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @prelu_slope_shape(%a: tensor<1x3x4x4xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{operand 'slope' shape [3] does not broadcast to operand 'input' shape [1, 3, 4, 4]}}
  %0 = top.PRelu(%a, %s) : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @prelu_slope_rank(%a: tensor<4xf32>, %s: tensor<1x4xf32>) {
  // expected-error @+1 {{operand 'slope' shape [1, 4] does not broadcast to operand 'input' shape [4]}}
  %0 = top.PRelu(%a, %s) : (tensor<4xf32>, tensor<1x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @where_cond_type(%c: tensor<4xi8>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand 'cond' must have an i1 element type, got 'i8'}}
  %0 = top.Where(%c, %a, %a) : (tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_x_unsupported(%c: tensor<4xi1>, %a: tensor<4xi3>) {
  // expected-error @+1 {{operand 'x' must have a float, integer or i1 element type, got 'i3'}}
  %0 = top.Where(%c, %a, %a) : (tensor<4xi1>, tensor<4xi3>, tensor<4xi3>) -> tensor<4xi3>
  return
}

// -----

func.func @where_y_type(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{operand 'y' element type 'i32' must match operand 'x' element type 'f32'}}
  %0 = top.Where(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_result_type(%c: tensor<4xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{result element type 'f64' must match operand 'x' element type 'f32'}}
  %0 = top.Where(%c, %a, %a) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @where_broadcast_cond(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand shapes [3] and [4] do not broadcast}}
  %0 = top.Where(%c, %a, %a) : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @where_broadcast_y(%c: tensor<2x1xi1>, %a: tensor<4xf32>, %b: tensor<3x1xf32>) {
  // expected-error @+1 {{operand shapes [2, 4] and [3, 1] do not broadcast}}
  %0 = top.Where(%c, %a, %b) : (tensor<2x1xi1>, tensor<4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @compare_mode(%a: tensor<4xf32>) {
  // expected-error @+2 {{failed to parse Top_CompareModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown compare_mode 'Greater_Equal', expected one of: Equal, Greater, GreaterOrEqual, Less, LessOrEqual, NotEqual}}
  %0 = top.Compare(%a, %a) {mode = #top.compare_mode<Greater_Equal>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{result must have an i1 element type, got 'f32'}}
  %0 = top.Compare(%a, %a) {mode = #top.compare_mode<Equal>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_rhs_type(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{operand 'rhs' element type 'i32' must match operand 'lhs' element type 'f32'}}
  %0 = top.Compare(%a, %b) {mode = #top.compare_mode<Equal>} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_lhs_unsupported(%a: tensor<4xi3>) {
  // expected-error @+1 {{operand 'lhs' must have a float, integer or i1 element type, got 'i3'}}
  %0 = top.Compare(%a, %a) {mode = #top.compare_mode<Equal>} : (tensor<4xi3>, tensor<4xi3>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_broadcast(%a: tensor<4xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{operand shapes [4] and [2] do not broadcast}}
  %0 = top.Compare(%a, %b) {mode = #top.compare_mode<Less>} : (tensor<4xf32>, tensor<2xf32>) -> tensor<*xi1>
  return
}

// -----

func.func @cast_input_unsupported(%a: tensor<4xi3>) {
  // expected-error @+1 {{operand 'input' must have a float, integer or i1 element type, got 'i3'}}
  %0 = top.Cast(%a) : (tensor<4xi3>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_result_unsupported(%a: tensor<4xf32>) {
  // expected-error @+1 {{result must have a float, integer or i1 element type, got 'f6E3M2FN'}}
  %0 = top.Cast(%a) : (tensor<4xf32>) -> tensor<4xf6E3M2FN>
  return
}

// -----

func.func @cast_round_mode(%a: tensor<4xf32>) {
  // expected-error @+2 {{failed to parse Top_RoundModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown round_mode 'zero', expected one of: up, down, nearest}}
  %0 = top.Cast(%a) {round_mode = #top.round_mode<zero>} : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  return
}

// -----

func.func @cast_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has shape [2, 2] but the operands and attributes give [4]}}
  %0 = top.Cast(%a) : (tensor<4xf32>) -> tensor<2x2xi32>
  return
}
