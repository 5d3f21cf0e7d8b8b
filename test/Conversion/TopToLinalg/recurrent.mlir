// RUN: strata-opt %s -split-input-file --convert-top-to-linalg --verify-diagnostics | FileCheck %s

// LSTM, one direction, layout 0, no optional operands: W[0]^T and R[0]^T
// are transposed once; an scf.for over the 3 steps carries h, Y and c.
// Each step: X_t W^T and H R^T (linalg.matmul onto the zero biases), the
// gates i, o, f, c as column blocks, Ct in one generic, Ht in another; the
// new states are copied into the iteration arguments, Y_t inserted at row t.
// CHECK-LABEL: func.func @lstm_forward
// CHECK-SAME: (%[[X:.*]]: tensor<3x2x4xf32>, %[[W:.*]]: tensor<1x20x4xf32>, %[[R:.*]]: tensor<1x20x5xf32>)
// CHECK: %[[Y0:.*]] = tensor.empty() : tensor<3x1x2x5xf32>
// CHECK: %[[W0:.*]] = tensor.extract_slice %[[W]][0, 0, 0] [1, 20, 4] [1, 1, 1] : tensor<1x20x4xf32> to tensor<20x4xf32>
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W0]] : tensor<20x4xf32>) outs(%{{.*}} : tensor<4x20xf32>) permutation = [1, 0]
// CHECK: %[[RT:.*]] = linalg.transpose ins(%{{.*}} : tensor<20x5xf32>) outs(%{{.*}} : tensor<5x20xf32>) permutation = [1, 0]
// CHECK: %[[WB:.*]] = linalg.fill {{.*}} -> tensor<2x20xf32>
// CHECK: %[[RB:.*]] = linalg.fill {{.*}} -> tensor<2x20xf32>
// CHECK: %[[H0:.*]] = linalg.fill {{.*}} -> tensor<2x5xf32>
// CHECK: %[[C0:.*]] = linalg.fill {{.*}} -> tensor<2x5xf32>
// CHECK: %[[F:.*]]:3 = scf.for %[[T:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[Y:.*]] = %[[Y0]], %[[C:.*]] = %[[C0]])
// CHECK: %[[XT:.*]] = tensor.extract_slice %[[X]][%[[T]], 0, 0] [1, 2, 4] [1, 1, 1] : tensor<3x2x4xf32> to tensor<2x4xf32>
// CHECK: %[[GX:.*]] = linalg.matmul ins(%[[XT]], %[[WT]] : tensor<2x4xf32>, tensor<4x20xf32>) outs(%[[WB]] : tensor<2x20xf32>)
// CHECK: %[[REC:.*]] = linalg.matmul ins(%[[H]], %[[RT]] : tensor<2x5xf32>, tensor<5x20xf32>) outs(%[[RB]] : tensor<2x20xf32>)
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[GX]], %[[REC]]
// CHECK: %[[GI:.*]] = tensor.extract_slice %[[G]][0, 0] [2, 5]
// CHECK: %[[GO:.*]] = tensor.extract_slice %[[G]][0, 5] [2, 5]
// CHECK: %[[GF:.*]] = tensor.extract_slice %[[G]][0, 10] [2, 5]
// CHECK: %[[GC:.*]] = tensor.extract_slice %[[G]][0, 15] [2, 5]
// CHECK: %[[CN:.*]] = linalg.generic {{.*}} ins(%[[GI]], %[[GF]], %[[GC]], %[[C]] :
// CHECK: math.exp
// CHECK: math.tanh
// CHECK: %[[HN:.*]] = linalg.generic {{.*}} ins(%[[GO]], %[[CN]] :
// CHECK: math.exp
// CHECK: math.tanh
// CHECK: %[[HC:.*]] = linalg.copy ins(%[[HN]] : tensor<2x5xf32>) outs(%[[H]] : tensor<2x5xf32>)
// CHECK: %[[YN:.*]] = tensor.insert_slice %[[HN]] into %[[Y]][%[[T]], 0, 0, 0] [1, 1, 2, 5] [1, 1, 1, 1]
// CHECK: %[[CC:.*]] = linalg.copy ins(%[[CN]] : tensor<2x5xf32>) outs(%[[C]] : tensor<2x5xf32>)
// CHECK: scf.yield %[[HC]], %[[YN]], %[[CC]]
// CHECK: %[[YH:.*]] = tensor.insert_slice %[[F]]#0 into %{{.*}}[0, 0, 0] [1, 2, 5]
// CHECK: %[[YC:.*]] = tensor.insert_slice %[[F]]#2 into %{{.*}}[0, 0, 0] [1, 2, 5]
// CHECK: return %[[F]]#1, %[[YH]], %[[YC]]
func.func @lstm_forward(%x: tensor<3x2x4xf32>, %w: tensor<1x20x4xf32>, %r: tensor<1x20x5xf32>) -> (tensor<3x1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>) {
  %none = top.None() : () -> none
  %y:3 = top.LSTM(%x, %w, %r, %none, %none, %none, %none, %none) {hidden_size = 5 : i64} : (tensor<3x2x4xf32>, tensor<1x20x4xf32>, tensor<1x20x5xf32>, none, none, none, none, none) -> (tensor<3x1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>)
  return %y#0, %y#1, %y#2 : tensor<3x1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>
}

// -----

// Peepholes join the gate sums; input_forget computes ft = 1 - it.
// CHECK-LABEL: func.func @lstm_peepholes_coupled
// CHECK: scf.for
// CHECK: %[[PI:.*]] = tensor.extract_slice %[[P:.*]][0] [2] [1] : tensor<6xf32> to tensor<2xf32>
// CHECK: %[[PF:.*]] = tensor.extract_slice %[[P]][4] [2] [1] : tensor<6xf32> to tensor<2xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PI]], %[[PF]] :
// CHECK: arith.subf %{{.*}}, %{{.*}} : f32
// CHECK: %[[PO:.*]] = tensor.extract_slice %[[P]][2] [2] [1] : tensor<6xf32> to tensor<2xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[PO]] :
func.func @lstm_peepholes_coupled(%x: tensor<2x1x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>, %p: tensor<1x6xf32>) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>) {
  %none = top.None() : () -> none
  %y:3 = top.LSTM(%x, %w, %r, %none, %none, %none, %none, %p) {hidden_size = 2 : i64, input_forget = true} : (tensor<2x1x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, none, none, none, none, tensor<1x6xf32>) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>)
  return %y#0, %y#1, %y#2 : tensor<2x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
}

// -----

// RNN, bidirectional, layout 1, f16, unsigned sequence lengths, clip, two
// non-default activations: compute in f32 (extf), lengths clamped to
// [0, S] (minui), the reverse direction reads step S-1-t, clipped gate sums
// (maximumf/minimumf), masked states and Y, the results permuted from
// layout 0 and truncated to f16.
// CHECK-LABEL: func.func @rnn_bidirectional_layout1
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extui %{{.*}} : i32 to i64
// CHECK: arith.minui
// CHECK: %[[LENS:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
// CHECK: %[[Y0:.*]] = tensor.empty() : tensor<4x2x2x5xf32>
// CHECK: %[[F0:.*]]:2 = scf.for %[[T:[^ ]+]] =
// CHECK: tensor.extract_slice %{{.*}}[0, %[[T]], 0] [2, 1, 3] [1, 1, 1] : tensor<2x4x3xf32> to tensor<2x3xf32>
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: %[[TI:.*]] = arith.index_cast %[[T]] : index to i64
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[LENS]] :
// CHECK: arith.cmpi sgt, %{{.*}}, %[[TI]] : i64
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[T]], 0, 0, 0] [1, 1, 2, 5]
// CHECK: %[[F1:.*]]:2 = scf.for %[[T1:[^ ]+]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[F0]]#1)
// CHECK: %[[REV:.*]] = arith.subi %{{.*}}, %[[T1]] : index
// CHECK: tensor.extract_slice %{{.*}}[0, %[[REV]], 0] [2, 1, 3]
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[REV]], 1, 0, 0] [1, 1, 2, 5]
// CHECK: linalg.transpose ins(%[[F1]]#1 : tensor<4x2x2x5xf32>) outs(%{{.*}} : tensor<2x4x2x5xf32>) permutation = [2, 0, 1, 3]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x2x5xf32>) outs(%{{.*}} : tensor<2x2x5xf32>) permutation = [1, 0, 2]
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @rnn_bidirectional_layout1(%x: tensor<2x4x3xf16>, %w: tensor<2x5x3xf16>, %r: tensor<2x5x5xf16>, %b: tensor<2x10xf16>, %sl: tensor<2xui32>, %h0: tensor<2x2x5xf16>) -> (tensor<2x4x2x5xf16>, tensor<2x2x5xf16>) {
  %y:2 = top.RNN(%x, %w, %r, %b, %sl, %h0) {hidden_size = 5 : i64, direction = #top.rnn_direction<bidirectional>, layout = 1 : i64, clip = 2.0 : f64, activations = [#top.rnn_activation<Relu>, #top.rnn_activation<HardSigmoid>]} : (tensor<2x4x3xf16>, tensor<2x5x3xf16>, tensor<2x5x5xf16>, tensor<2x10xf16>, tensor<2xui32>, tensor<2x2x5xf16>) -> (tensor<2x4x2x5xf16>, tensor<2x2x5xf16>)
  return %y#0, %y#1 : tensor<2x4x2x5xf16>, tensor<2x2x5xf16>
}

// -----

// GRU without linear_before_reset: (rt (.) Ht-1) goes through a second
// matmul with the h block of R^T (columns 2H..3H) onto Rbh.
// CHECK-LABEL: func.func @gru
// CHECK: %[[RT:.*]] = linalg.transpose ins(%{{.*}} : tensor<6x2xf32>) outs(%{{.*}} : tensor<2x6xf32>)
// CHECK: %[[RHT:.*]] = tensor.extract_slice %[[RT]][0, 4] [2, 2] [1, 1] : tensor<2x6xf32> to tensor<2x2xf32>
// CHECK: %[[RBH:.*]] = tensor.extract_slice %{{.*}}[0, 10] [1, 2] [1, 1] : tensor<1x12xf32> to tensor<2xf32>
// CHECK: scf.for
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK: arith.mulf
// CHECK: linalg.matmul ins(%{{.*}}, %[[RHT]] : tensor<3x2xf32>, tensor<2x2xf32>)
func.func @gru(%x: tensor<2x3x4xf32>, %w: tensor<1x6x4xf32>, %r: tensor<1x6x2xf32>, %b: tensor<1x12xf32>) -> (tensor<2x1x3x2xf32>, tensor<1x3x2xf32>) {
  %none = top.None() : () -> none
  %y:2 = top.GRU(%x, %w, %r, %b, %none, %none) {hidden_size = 2 : i64} : (tensor<2x3x4xf32>, tensor<1x6x4xf32>, tensor<1x6x2xf32>, tensor<1x12xf32>, none, none) -> (tensor<2x1x3x2xf32>, tensor<1x3x2xf32>)
  return %y#0, %y#1 : tensor<2x1x3x2xf32>, tensor<1x3x2xf32>
}

// -----

// With linear_before_reset the reset gate multiplies the recurrence's h
// block: no third matmul.
// CHECK-LABEL: func.func @gru_linear_before_reset
// CHECK: scf.for
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK-NOT: linalg.matmul
// CHECK: scf.yield
func.func @gru_linear_before_reset(%x: tensor<2x3x4xf32>, %w: tensor<1x6x4xf32>, %r: tensor<1x6x2xf32>) -> (tensor<2x1x3x2xf32>, tensor<1x3x2xf32>) {
  %none = top.None() : () -> none
  %y:2 = top.GRU(%x, %w, %r, %none, %none, %none) {hidden_size = 2 : i64, linear_before_reset = true} : (tensor<2x3x4xf32>, tensor<1x6x4xf32>, tensor<1x6x2xf32>, none, none, none) -> (tensor<2x1x3x2xf32>, tensor<1x3x2xf32>)
  return %y#0, %y#1 : tensor<2x1x3x2xf32>, tensor<1x3x2xf32>
}

// -----

// A dynamic sequence length cannot be compiled.
func.func @rnn_dynamic(%x: tensor<?x2x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>) -> tensor<1x2x5xf32> {
  %none = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.RNN'}}
  %y:2 = top.RNN(%x, %w, %r, %none, %none, %none) {hidden_size = 5 : i64} : (tensor<?x2x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>, none, none, none) -> (tensor<?x1x2x5xf32>, tensor<1x2x5xf32>)
  return %y#1 : tensor<1x2x5xf32>
}

// -----

// Unranked results (shape inference not run) cannot be compiled.
func.func @lstm_unranked(%x: tensor<3x2x4xf32>, %w: tensor<1x20x4xf32>, %r: tensor<1x20x5xf32>) -> tensor<*xf32> {
  %none = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.LSTM'}}
  %y:3 = top.LSTM(%x, %w, %r, %none, %none, %none, %none, %none) {hidden_size = 5 : i64} : (tensor<3x2x4xf32>, tensor<1x20x4xf32>, tensor<1x20x5xf32>, none, none, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %y#1 : tensor<*xf32>
}
