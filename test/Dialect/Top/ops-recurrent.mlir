// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of LSTM, GRU and RNN: defaults elided, every attribute printed.

// CHECK-LABEL: func @lstm
func.func @lstm(%x: tensor<5x2x3xf32>, %w: tensor<2x16x3xf32>, %r: tensor<2x16x4xf32>, %b: tensor<2x32xf32>, %sl: tensor<2xi32>, %h: tensor<2x2x4xf32>, %p: tensor<2x12xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.LSTM(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {activation_alpha = array<f64: 2.000000e-01, 1.000000e+00, 1.000000e+00, 2.000000e-01, 1.000000e+00, 1.000000e+00>, activation_beta = array<f64: 5.000000e-01, 0.000000e+00, 0.000000e+00, 5.000000e-01, 0.000000e+00, 0.000000e+00>, activations = [#top.rnn_activation<HardSigmoid>, #top.rnn_activation<Tanh>, #top.rnn_activation<Tanh>, #top.rnn_activation<HardSigmoid>, #top.rnn_activation<Tanh>, #top.rnn_activation<Tanh>], clip = 3.000000e+00 : f64, direction = #top.rnn_direction<bidirectional>, hidden_size = 4 : i64, input_forget = true} : (tensor<5x2x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>, tensor<2x32xf32>, tensor<2xi32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x12xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
  %0:3 = top.LSTM(%x, %w, %r, %b, %sl, %h, %h, %p) {hidden_size = 4 : i64, direction = #top.rnn_direction<bidirectional>, activations = [#top.rnn_activation<HardSigmoid>, #top.rnn_activation<Tanh>, #top.rnn_activation<Tanh>, #top.rnn_activation<HardSigmoid>, #top.rnn_activation<Tanh>, #top.rnn_activation<Tanh>], activation_alpha = array<f64: 0.2, 1.0, 1.0, 0.2, 1.0, 1.0>, activation_beta = array<f64: 0.5, 0.0, 0.0, 0.5, 0.0, 0.0>, clip = 3.0 : f64, input_forget = true, layout = 0 : i64} : (tensor<5x2x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>, tensor<2x32xf32>, tensor<2xi32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x12xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
  return %0#0, %0#1, %0#2 : tensor<5x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>
}

// CHECK-LABEL: func @lstm_defaults
func.func @lstm_defaults(%x: tensor<2x5x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>) -> tensor<2x5x1x2xf32> {
  %n = top.None() : () -> none
  // CHECK: top.LSTM(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {hidden_size = 2 : i64, layout = 1 : i64} : (tensor<2x5x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<2x5x1x2xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32>)
  %0:3 = top.LSTM(%x, %w, %r, %n, %n, %n, %n, %n) {hidden_size = 2 : i64, layout = 1 : i64} : (tensor<2x5x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<2x5x1x2xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32>)
  return %0#0 : tensor<2x5x1x2xf32>
}

// CHECK-LABEL: func @gru
func.func @gru(%x: tensor<5x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>, %b: tensor<1x24xf32>, %h: tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.GRU(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {direction = #top.rnn_direction<reverse>, hidden_size = 4 : i64, linear_before_reset = true} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>, none, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  %0:2 = top.GRU(%x, %w, %r, %b, %n, %h) {hidden_size = 4 : i64, direction = #top.rnn_direction<reverse>, linear_before_reset = true} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>, none, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return %0#0, %0#1 : tensor<5x1x2x4xf32>, tensor<1x2x4xf32>
}

// CHECK-LABEL: func @rnn
func.func @rnn(%x: tensor<5x2x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>) -> tensor<1x2x4xf32> {
  %n = top.None() : () -> none
  // CHECK: top.RNN(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {activations = [#top.rnn_activation<Relu>], hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 4 : i64, activations = [#top.rnn_activation<Relu>]} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return %0#1 : tensor<1x2x4xf32>
}
