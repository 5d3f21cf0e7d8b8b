// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of LSTM, GRU and RNN, one case per split.

func.func @lstm_hidden_size(%x: tensor<3x1x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'hidden_size' = 0 must be in [1, 2^32]}}
  %0:3 = top.LSTM(%x, %w, %r, %n, %n, %n, %n, %n) {hidden_size = 0 : i64} : (tensor<3x1x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @lstm_layout(%x: tensor<3x1x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'layout' = 2 must be 0 or 1}}
  %0:3 = top.LSTM(%x, %w, %r, %n, %n, %n, %n, %n) {hidden_size = 2 : i64, layout = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @gru_clip(%x: tensor<3x1x4xf32>, %w: tensor<1x6x4xf32>, %r: tensor<1x6x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'clip' = -1.000000e+00 must be positive}}
  %0:2 = top.GRU(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64, clip = -1.0 : f64} : (tensor<3x1x4xf32>, tensor<1x6x4xf32>, tensor<1x6x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_direction(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+2 {{failed to parse Top_RnnDirectionAttr parameter 'value'}}
  // expected-error @+1 {{unknown rnn_direction 'sideways', expected one of: forward, reverse, bidirectional}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64, direction = #top.rnn_direction<sideways>} : (tensor<3x1x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @lstm_activations_count(%x: tensor<3x1x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'activations' has 2 entries, expected 3 (3 per direction, 1 direction)}}
  %0:3 = top.LSTM(%x, %w, %r, %n, %n, %n, %n, %n) {hidden_size = 2 : i64, activations = [#top.rnn_activation<Sigmoid>, #top.rnn_activation<Tanh>]} : (tensor<3x1x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @gru_activations_count_bidir(%x: tensor<3x1x4xf32>, %w: tensor<2x6x4xf32>, %r: tensor<2x6x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'activations' has 2 entries, expected 4 (2 per direction, 2 directions)}}
  %0:2 = top.GRU(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64, direction = #top.rnn_direction<bidirectional>, activations = [#top.rnn_activation<Sigmoid>, #top.rnn_activation<Tanh>]} : (tensor<3x1x4xf32>, tensor<2x6x4xf32>, tensor<2x6x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_activation_name(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+2 {{failed to parse Top_RnnActivationAttr parameter 'value'}}
  // expected-error @+1 {{unknown rnn_activation 'Swish', expected one of: Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64, activations = [#top.rnn_activation<Swish>]} : (tensor<3x1x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_activation_alpha_count(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{attribute 'activation_alpha' has 2 entries, expected one per activation (1)}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64, activations = [#top.rnn_activation<LeakyRelu>], activation_alpha = array<f64: 0.1, 0.2>} : (tensor<3x1x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_affine_needs_params(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{activation 0 (Affine) needs explicit 'activation_alpha' and 'activation_beta'}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64, activations = [#top.rnn_activation<Affine>]} : (tensor<3x1x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_input_rank(%x: tensor<3x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'input' must have rank 3 ([seq, batch, input]), got shape [3, 4]}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64} : (tensor<3x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_input_int(%x: tensor<3x1x4xi32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'input' must have a float element type, got 'i32'}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64} : (tensor<3x1x4xi32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_weight_type(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf16>, %r: tensor<1x2x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'weight' element type 'f16' must match operand 'input' element type 'f32'}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x2x4xf16>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @lstm_weight_shape(%x: tensor<3x1x4xf32>, %w: tensor<1x6x4xf32>, %r: tensor<1x8x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'weight' must have shape [1, 8, 4], got [1, 6, 4]}}
  %0:3 = top.LSTM(%x, %w, %r, %n, %n, %n, %n, %n) {hidden_size = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x6x4xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @gru_recurrence_shape(%x: tensor<3x1x4xf32>, %w: tensor<1x6x4xf32>, %r: tensor<1x6x3xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'recurrence' must have shape [1, 6, 2], got [1, 6, 3]}}
  %0:2 = top.GRU(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x6x4xf32>, tensor<1x6x3xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @gru_bias_shape(%x: tensor<3x1x4xf32>, %w: tensor<1x6x4xf32>, %r: tensor<1x6x2xf32>, %b: tensor<1x6xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'bias' must have shape [1, 12], got [1, 6]}}
  %0:2 = top.GRU(%x, %w, %r, %b, %n, %n) {hidden_size = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x6x4xf32>, tensor<1x6x2xf32>, tensor<1x6xf32>, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_seq_lens_shape(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>, %sl: tensor<2xi32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'sequence_lens' must have shape [1], got [2]}}
  %0:2 = top.RNN(%x, %w, %r, %n, %sl, %n) {hidden_size = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, tensor<2xi32>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_seq_lens_type(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>, %sl: tensor<1xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'sequence_lens' must have an integer element type, got 'f32'}}
  %0:2 = top.RNN(%x, %w, %r, %n, %sl, %n) {hidden_size = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, tensor<1xf32>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @rnn_initial_h_layout1(%x: tensor<1x3x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>, %h: tensor<2x1x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'initial_h' must have shape [1, 1, 2], got [2, 1, 2]}}
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %h) {hidden_size = 2 : i64, layout = 1 : i64} : (tensor<1x3x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, tensor<2x1x2xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @lstm_initial_c_shape(%x: tensor<3x1x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x2xf32>, %c: tensor<1x1x3xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'initial_c' must have shape [1, 1, 2], got [1, 1, 3]}}
  %0:3 = top.LSTM(%x, %w, %r, %n, %n, %n, %c, %n) {hidden_size = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>, none, none, none, tensor<1x1x3xf32>, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @lstm_peepholes_shape(%x: tensor<3x1x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x2xf32>, %p: tensor<1x8xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{operand 'peepholes' must have shape [1, 6], got [1, 8]}}
  %0:3 = top.LSTM(%x, %w, %r, %n, %n, %n, %n, %p) {hidden_size = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>, none, none, none, none, tensor<1x8xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @lstm_result_shape(%x: tensor<3x1x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x2xf32>) {
  %n = top.None() : () -> none
  // expected-error @+1 {{result #1 has shape [1, 1, 3] but the operands and attributes give [1, 1, 2]}}
  %0:3 = top.LSTM(%x, %w, %r, %n, %n, %n, %n, %n) {hidden_size = 2 : i64} : (tensor<3x1x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<3x1x1x2xf32>, tensor<1x1x3xf32>, tensor<*xf32>)
  return
}
