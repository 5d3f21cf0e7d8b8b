// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of top.BitCast.

func.func @bitcast_width(%x: tensor<4xf32>) {
  // expected-error @+1 {{'top.BitCast' op cannot reinterpret 'f32' (32 bits) as 'i64' (64 bits): the element widths must be equal}}
  %0 = top.BitCast(%x) : (tensor<4xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @bitcast_nibble_to_byte(%x: tensor<4xi4>) {
  // expected-error @+1 {{cannot reinterpret 'i4' (4 bits) as 'f8E4M3FN' (8 bits)}}
  %0 = top.BitCast(%x) : (tensor<4xi4>) -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @bitcast_input_unsupported(%x: tensor<4xi3>) {
  // expected-error @+1 {{operand element type 'i3' is not supported}}
  %0 = top.BitCast(%x) : (tensor<4xi3>) -> tensor<4xi8>
  return
}

// -----

func.func @bitcast_result_unsupported(%x: tensor<4xi8>) {
  // expected-error @+1 {{result element type 'f6E3M2FN' is not supported}}
  %0 = top.BitCast(%x) : (tensor<4xi8>) -> tensor<4xf6E3M2FN>
  return
}

// -----

func.func @bitcast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has shape [2, 2] but the operands and attributes give [4]}}
  %0 = top.BitCast(%x) : (tensor<4xf32>) -> tensor<2x2xi32>
  return
}
