// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Malformed enum attributes (TopEnums.td): an unknown name is a parse error
// naming the kind and the allowed names; a plain string, an enum of another
// kind or a wrong array element is a verifier error naming the attribute and
// the allowed names.

func.func @unknown_name(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{failed to parse Top_PadModeAttr parameter 'value'}}
  // expected-error @+1 {{unknown pad_mode 'circular', expected one of: constant, reflect, edge, wrap}}
  %0 = top.Pad(%x) {pads = array<i64: 0, 0, 0, 0>, mode = #top.pad_mode<circular>} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @plain_string(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{attribute 'mode' failed to satisfy constraint: pad_mode (one of constant, reflect, edge, wrap)}}
  %0 = top.Pad(%x) {pads = array<i64: 0, 0, 0, 0>, mode = "reflect"} : (tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @other_kind(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: none) {
  // expected-error @+1 {{attribute 'layout' failed to satisfy constraint: layout (one of NCHW, NHWC)}}
  %0 = top.Conv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, layout = #top.pad_mode<edge>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return
}

// -----

func.func @plain_string_activation(%x: tensor<2x4xf32>, %w: tensor<4x5xf32>, %b: none) {
  // expected-error @+1 {{attribute 'activation' failed to satisfy constraint: activation (one of sigmoid, silu, gelu, gelu_tanh, hardswish, hardsigmoid, leaky_relu, clip)}}
  %0 = top.MatMul(%x, %w, %b) {activation = "sigmoid"} : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  return
}

// -----

func.func @string_array(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>, %n: none) {
  // expected-error @+1 {{attribute 'activations' failed to satisfy constraint: array of rnn_activation}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64, activations = ["Tanh"]} : (tensor<3x1x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @unknown_rnn_activation(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>, %n: none) {
  // expected-error @+2 {{failed to parse Top_RnnActivationAttr parameter 'value'}}
  // expected-error @+1 {{unknown rnn_activation 'Swish', expected one of: Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64, activations = [#top.rnn_activation<Swish>]} : (tensor<3x1x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}
