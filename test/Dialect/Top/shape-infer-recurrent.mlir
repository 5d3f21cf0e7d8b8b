// RUN: strata-opt %s --top-shape-infer --split-input-file | FileCheck %s
// Result shapes of LSTM, GRU and RNN for both layouts and all directions.

// CHECK-LABEL: func @lstm_layout0_bidirectional
func.func @lstm_layout0_bidirectional(%x: tensor<7x3x5xf32>, %w: tensor<2x24x5xf32>, %r: tensor<2x24x6xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.LSTM{{.*}} -> (tensor<7x2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>)
  %0:3 = top.LSTM(%x, %w, %r, %n, %n, %n, %n, %n) {hidden_size = 6 : i64, direction = #top.rnn_direction<bidirectional>} : (tensor<7x3x5xf32>, tensor<2x24x5xf32>, tensor<2x24x6xf32>, none, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1, %0#2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// CHECK-LABEL: func @gru_layout1
func.func @gru_layout1(%x: tensor<3x7x5xf32>, %w: tensor<1x18x5xf32>, %r: tensor<1x18x6xf32>, %h: tensor<3x1x6xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = top.None() : () -> none
  // CHECK: top.GRU{{.*}} -> (tensor<3x7x1x6xf32>, tensor<3x1x6xf32>)
  %0:2 = top.GRU(%x, %w, %r, %n, %n, %h) {hidden_size = 6 : i64, layout = 1 : i64} : (tensor<3x7x5xf32>, tensor<1x18x5xf32>, tensor<1x18x6xf32>, none, none, tensor<3x1x6xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// CHECK-LABEL: func @rnn_reverse
func.func @rnn_reverse(%x: tensor<4x1x2xf16>, %w: tensor<1x3x2xf16>, %r: tensor<1x3x3xf16>) -> (tensor<*xf16>, tensor<*xf16>) {
  %n = top.None() : () -> none
  // CHECK: top.RNN{{.*}} -> (tensor<4x1x1x3xf16>, tensor<1x1x3xf16>)
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 3 : i64, direction = #top.rnn_direction<reverse>} : (tensor<4x1x2xf16>, tensor<1x3x2xf16>, tensor<1x3x3xf16>, none, none, none) -> (tensor<*xf16>, tensor<*xf16>)
  return %0#0, %0#1 : tensor<*xf16>, tensor<*xf16>
}
