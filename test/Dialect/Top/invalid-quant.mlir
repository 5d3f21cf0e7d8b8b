// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of top.Quant, top.Dequant, top.Requant and top.Table16.

func.func @quant_result_not_quantized(%x: tensor<4xf32>) {
  // expected-error @+1 {{'top.Quant' op result element type must be a !quant.uniform type, got 'i8'}}
  %0 = top.Quant(%x) : (tensor<4xf32>) -> tensor<4xi8>
  return
}

// -----

func.func @quant_sub_channel(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{must be a per-tensor or per-axis !quant.uniform type}}
  %0 = top.Quant(%x) : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:2}, {{2.0:10, 3.0:20}, {4.0:30, 5.0:40}}>>
  return
}

// -----

func.func @quant_storage_width(%x: tensor<4xf32>) {
  // expected-error @+1 {{result storage type 'i4' must be an 8, 16 or 32-bit integer}}
  %0 = top.Quant(%x) : (tensor<4xf32>) -> tensor<4x!quant.uniform<i4:f32, 0.1>>
  return
}

// -----

func.func @quant_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result quantized dimension 2 is out of range for rank 2}}
  %0 = top.Quant(%x) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:2, {0.1, 0.2}>>
  return
}

// -----

func.func @quant_axis_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result has 2 scales on quantized dimension 1 but that dim has size 3}}
  %0 = top.Quant(%x) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
  return
}

// -----

// The result is unranked: the per-axis type is checked against the input.
func.func @quant_axis_size_unranked_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result has 2 scales on quantized dimension 1 but that dim has size 3}}
  %0 = top.Quant(%x) : (tensor<2x3xf32>) -> tensor<*x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
  return
}

// -----

// A dynamic input: the op verifier checks the types without shape inference.
func.func @quant_axis_size_dynamic(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{result has 2 scales on quantized dimension 1 but that dim has size 3}}
  %0 = top.Quant(%x) : (tensor<?x3xf32>) -> tensor<?x3x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
  return
}

// -----

func.func @quant_expressed_type(%x: tensor<4xf16>) {
  // expected-error @+1 {{input element type 'f16' must be the result's expressed type 'f32'}}
  %0 = top.Quant(%x) : (tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @quant_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has shape [3, 2] but the operands and attributes give [2, 3]}}
  %0 = top.Quant(%x) : (tensor<2x3xf32>) -> tensor<3x2x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @dequant_input_not_quantized(%q: tensor<4xi8>) {
  // expected-error @+1 {{'top.Dequant' op input element type must be a !quant.uniform type, got 'i8'}}
  %0 = top.Dequant(%q) : (tensor<4xi8>) -> tensor<4xf32>
  return
}

// -----

func.func @dequant_expressed_type(%q: tensor<4x!quant.uniform<u8:f32, 0.1:128>>) {
  // expected-error @+1 {{result element type 'f64' must be the input's expressed type 'f32'}}
  %0 = top.Dequant(%q) : (tensor<4x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<4xf64>
  return
}

// -----

func.func @dequant_axis_size(%q: tensor<4x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) {
  // expected-error @+1 {{input has 2 scales on quantized dimension 0 but that dim has size 4}}
  %0 = top.Dequant(%q) : (tensor<4x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<4x2xf32>
  return
}

// -----

func.func @requant_float_input(%x: tensor<1x2xf32>) {
  // expected-error @+1 {{'top.Requant' op input element type must be a !quant.uniform type or an 8, 16 or 32-bit integer, got 'f32'}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x2xf32>) -> tensor<1x2xi8>
  return
}

// -----

func.func @requant_i64_result(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{result element type must be a !quant.uniform type or an 8, 16 or 32-bit integer, got 'i64'}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x2xi32>) -> tensor<1x2xi64>
  return
}

// -----

func.func @requant_result_axis(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{result quantized dimension 3 is out of range for rank 2}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x2xi32>) -> tensor<1x2x!quant.uniform<i8:f32:3, {0.1, 0.2}>>
  return
}

// -----

func.func @requant_mode(%x: tensor<1x2xi32>) {
  // expected-error @+2 {{failed to parse Top_RequantModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown requant_mode 'QDM', expected one of: MultiplierShift, TFLite, Float, TosaSingleRound, TosaDoubleRound}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1>, rshift = array<i64: 0>, quant_mode = #top.requant_mode<QDM>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
  return
}

// -----

func.func @requant_float_mode_plain_input(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{quant_mode "Float" needs !quant.uniform input and result types, got 'i32' and '!quant.uniform<i8:f32, 1.000000e-01>'}}
  %0 = top.Requant(%x) {quant_mode = #top.requant_mode<Float>} : (tensor<1x2xi32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @requant_float_mode_multiplier(%x: tensor<1x2x!quant.uniform<i32:f32, 0.01>>) {
  // expected-error @+1 {{attribute 'multiplier' is not used by quant_mode "Float"}}
  %0 = top.Requant(%x) {quant_mode = #top.requant_mode<Float>, multiplier = array<i64: 3>} : (tensor<1x2x!quant.uniform<i32:f32, 0.01>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @requant_float_mode_rshift(%x: tensor<1x2x!quant.uniform<i32:f32, 0.01>>) {
  // expected-error @+1 {{attribute 'rshift' is not used by quant_mode "Float"}}
  %0 = top.Requant(%x) {quant_mode = #top.requant_mode<Float>, rshift = array<i64: 3>} : (tensor<1x2x!quant.uniform<i32:f32, 0.01>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @requant_missing_rshift(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{quant_mode "MultiplierShift" requires attribute 'rshift'}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
  return
}

// -----

func.func @requant_missing_multiplier(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{quant_mode "TFLite" requires attribute 'multiplier'}}
  %0 = top.Requant(%x) {rshift = array<i64: 1>, quant_mode = #top.requant_mode<TFLite>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
  return
}

// -----

func.func @requant_multiplier_length(%x: tensor<1x4x2x2xi32>) {
  // expected-error @+1 {{attribute 'multiplier' must have 1 or 4 (input dim 1) values, got 3 [1, 2, 3]}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1, 2, 3>, rshift = array<i64: 0>} : (tensor<1x4x2x2xi32>) -> tensor<1x4x2x2xi8>
  return
}

// -----

func.func @requant_rshift_length(%x: tensor<1x4x2x2xi32>) {
  // expected-error @+1 {{attribute 'rshift' must have 1 or 4 (input dim 1) values, got 2 [1, 2]}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1>, rshift = array<i64: 1, 2>} : (tensor<1x4x2x2xi32>) -> tensor<1x4x2x2xi8>
  return
}

// -----

func.func @requant_empty_multiplier(%x: tensor<1x4xi32>) {
  // expected-error @+1 {{attribute 'multiplier' must have 1 value or one per channel, got none}}
  %0 = top.Requant(%x) {multiplier = array<i64>, rshift = array<i64: 0>} : (tensor<1x4xi32>) -> tensor<1x4xi8>
  return
}

// -----

func.func @requant_per_channel_rank1(%x: tensor<4xi32>) {
  // expected-error @+1 {{attribute 'multiplier' has 4 values but per-channel values need an input of rank >= 2 (channel is dim 1), got rank 1}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1, 2, 3, 4>, rshift = array<i64: 0>} : (tensor<4xi32>) -> tensor<4xi8>
  return
}

// -----

// Dim 1 is dynamic, so only the two lengths can be compared.
func.func @requant_length_mismatch(%x: tensor<1x?xi32>) {
  // expected-error @+1 {{attributes 'multiplier' and 'rshift' have different lengths 2 and 3}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1, 2>, rshift = array<i64: 0, 1, 2>} : (tensor<1x?xi32>) -> tensor<1x?xi8>
  return
}

// -----

func.func @requant_tflite_negative_multiplier(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{attribute 'multiplier' value -5 at index 1 must be in [0, 2147483647] for quant_mode "TFLite"}}
  %0 = top.Requant(%x) {multiplier = array<i64: 5, -5>, rshift = array<i64: 0>, quant_mode = #top.requant_mode<TFLite>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
  return
}

// -----

func.func @requant_multiplier_range(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{attribute 'multiplier' value 4294967296 at index 0 must be in [-2147483648, 2147483647] for quant_mode "MultiplierShift"}}
  %0 = top.Requant(%x) {multiplier = array<i64: 4294967296>, rshift = array<i64: 0>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
  return
}

// -----

func.func @requant_rshift_too_large(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{attribute 'rshift' value 64 at index 1 must be in [0, 63]}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1>, rshift = array<i64: 3, 64>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
  return
}

// -----

func.func @requant_rshift_negative(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{attribute 'rshift' value -1 at index 0 must be in [0, 63]}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1>, rshift = array<i64: -1>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
  return
}

// -----

func.func @requant_axis_out_of_range(%x: tensor<1x2x3xi32>) {
  // expected-error @+1 {{attribute 'axis' 3 is out of range for an input of rank 3}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1, 2, 3>, rshift = array<i64: 4>, axis = 3 : i64} : (tensor<1x2x3xi32>) -> tensor<1x2x3xi8>
  return
}

// -----

func.func @requant_axis_channel_count(%x: tensor<1x2x3xi32>) {
  // expected-error @+1 {{attribute 'multiplier' must have 1 or 3 (input dim 2) values, got 2 [1, 2]}}
  %0 = top.Requant(%x) {multiplier = array<i64: 1, 2>, rshift = array<i64: 4>, axis = 2 : i64, quant_mode = #top.requant_mode<TosaSingleRound>} : (tensor<1x2x3xi32>) -> tensor<1x2x3xi8>
  return
}

// -----

func.func @requant_tosa_negative_multiplier(%x: tensor<1x2xi32>) {
  // expected-error @+1 {{attribute 'multiplier' value -3 at index 0 must be in [0, 2147483647] for quant_mode "TosaDoubleRound"}}
  %0 = top.Requant(%x) {multiplier = array<i64: -3>, rshift = array<i64: 4>, quant_mode = #top.requant_mode<TosaDoubleRound>} : (tensor<1x2xi32>) -> tensor<1x2xi8>
  return
}

// -----

func.func @requant_float_mode_axis(%x: tensor<1x2x!quant.uniform<i32:f32, 0.01>>) {
  // expected-error @+1 {{attribute 'axis' is not used by quant_mode "Float"}}
  %0 = top.Requant(%x) {quant_mode = #top.requant_mode<Float>, axis = 1 : i64} : (tensor<1x2x!quant.uniform<i32:f32, 0.01>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @table16_short_table(%x: tensor<4x!quant.uniform<i16:f32, 0.01>>) {
  // expected-error @+1 {{'top.Table16' op table has 512 entries, must have 513}}
  %0 = top.Table16(%x) {table = array<i16: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x!quant.uniform<i16:f32, 0.01>>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @table16_int8_input(%x: tensor<4x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{'top.Table16' op input storage must be a signed 16-bit integer}}
  %0 = top.Table16(%x) {table = array<i16: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x!quant.uniform<i8:f32, 0.01>>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @table16_int16_result(%x: tensor<4xi16>) {
  // expected-error @+1 {{'top.Table16' op result storage must be a signed 8-bit integer}}
  %0 = top.Table16(%x) {table = array<i16: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xi16>) -> tensor<4xi16>
  return
}

// -----

func.func @table16_per_axis(%x: tensor<1x2x!quant.uniform<i16:f32:1, {0.01, 0.02}>>) {
  // expected-error @+1 {{'top.Table16' op input must be per-tensor}}
  %0 = top.Table16(%x) {table = array<i16: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x2x!quant.uniform<i16:f32:1, {0.01, 0.02}>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

func.func @table16_shape(%x: tensor<4xi16>) {
  // expected-error @+1 {{'top.Table16' op result shape must be the input's}}
  %0 = top.Table16(%x) {table = array<i16: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xi16>) -> tensor<5xi8>
  return
}
