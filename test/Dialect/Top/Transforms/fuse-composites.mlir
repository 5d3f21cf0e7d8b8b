// RUN: strata-opt %s --top-fuse-composites --split-input-file --verify-diagnostics | FileCheck %s
// RUN: strata-opt %s --top-fuse-composites --top-inline-functions --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=INLINE

// tf._implements as a string: the body becomes one top.Gather, and after
// inlining the call is the Gather.
// CHECK-LABEL: func.func private @emb
// CHECK-SAME: strata.fused
// CHECK-NEXT: %[[G:.*]] = top.Gather(%arg0, %arg1) : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[G]]
// INLINE-LABEL: func.func @main
// INLINE-NEXT: %[[G:.*]] = top.Gather(%arg0, %arg1)
// INLINE-NEXT: return %[[G]]
// INLINE-NOT: func.func private
func.func private @emb(%table: tensor<10x4xf32>, %ids: tensor<3xi64>) -> tensor<3x4xf32> attributes {tf._implements = "embedding_lookup"} {
  %n = top.None() : () -> none
  %v = top.Weight() {name = "onehot_values", value = dense<[0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %oh = top.OneHot(%ids, %v, %n) {depth = 10 : i64} : (tensor<3xi64>, tensor<2xf32>, none) -> tensor<3x10xf32>
  %r = top.MatMul(%oh, %table, %n) : (tensor<3x10xf32>, tensor<10x4xf32>, none) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
func.func @main(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  %r = call @emb(%t, %i) : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// An ONNX model-local function: dotted name matched by its last part,
// ignoring case and '_'; epsilon from strata.onnx_attributes. The body is a
// real layer norm, so test/equiv checks the fused op against it.
// CHECK-LABEL: func.func private @custom.LayerNorm
// CHECK: top.LayerNorm(%arg0, %arg1, %arg2) {epsilon = 0.0010000000474974513 : f64}
// CHECK-NOT: top.Sub
// INLINE-LABEL: func.func @main
// INLINE: top.LayerNorm
// INLINE-NOT: call
func.func private @"custom.LayerNorm"(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> attributes {strata.implements = "custom.LayerNorm", strata.onnx_attributes = {epsilon = 1.000000e-03 : f32}} {
  %m = top.Reduce(%x) {axes = array<i64: -1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = top.Sub(%x, %m) : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %d2 = top.Mul(%d, %d) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %v = top.Reduce(%d2) {axes = array<i64: -1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = top.Weight() {name = "eps", value = dense<1.0e-3> : tensor<f32>} : () -> tensor<f32>
  %ve = top.Add(%v, %eps) : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %sd = top.Sqrt(%ve) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = top.Div(%d, %sd) : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = top.Mul(%n, %s) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %z = top.Add(%y, %b) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %z : tensor<2x8xf32>
}
func.func @main(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %r = call @"custom.LayerNorm"(%x, %s, %b) : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// tf._implements as a dictionary: `name` plus converter attributes. A
// declaration gets a body.
// CHECK-LABEL: func.func private @rms
// CHECK: top.RMSNorm(%arg0, %arg1) {epsilon = 9.9999999747524271E-7 : f64}
func.func private @rms(%x: tensor<2x3x8xf32>, %s: tensor<8xf32>) -> tensor<2x3x8xf32> attributes {tf._implements = {name = "RMS-Norm", epsilon = 1.0e-6 : f32}}
// PyTorch spells it `eps`; axis from the attributes too.
// CHECK-LABEL: func.func private @rms_eps
// CHECK: top.RMSNorm(%arg0, %arg1) {axis = -2 : i64, epsilon = 1.000000e-02 : f64}
func.func private @rms_eps(%x: tensor<2x3x8xf32>, %s: tensor<3x8xf32>) -> tensor<2x3x8xf32> attributes {strata.implements = "rms_norm", strata.composite_attributes = {eps = 1.0e-2 : f64, axis = -2 : i64}}

// -----

// CHECK-LABEL: func.func private @gelu_erf
// CHECK: top.Gelu(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
func.func private @gelu_erf(%x: tensor<4xf32>) -> tensor<4xf32> attributes {strata.implements = "gelu"}
// CHECK-LABEL: func.func private @gelu_attr
// CHECK: top.Gelu(%arg0) {approximate = #top.gelu_approximation<tanh>}
func.func private @gelu_attr(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tf._implements = {name = "gelu", approximate = "tanh"}}
// CHECK-LABEL: func.func private @gelu_name
// CHECK: top.Gelu(%arg0) {approximate = #top.gelu_approximation<tanh>}
func.func private @gelu_name(%x: tensor<4xf32>) -> tensor<4xf32> attributes {strata.implements = "GeluTanh"}
// CHECK-LABEL: func.func private @silu
// CHECK: top.SiLU(%arg0) : (tensor<2x4xf16>) -> tensor<2x4xf16>
func.func private @silu(%x: tensor<2x4xf16>) -> tensor<2x4xf16> attributes {strata.implements = "silu"}

// -----

// CHECK-LABEL: func.func private @sdpa
// CHECK: %[[N:.*]] = top.None()
// CHECK: top.Attention(%arg0, %arg1, %arg2, %arg3, %[[N]], %[[N]], %[[N]]) {scale = 5.000000e-01 : f64}
// CHECK-SAME: -> (tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x3x5xf32>)
func.func private @sdpa(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>, %m: tensor<3x5xi1>) -> tensor<1x2x3x4xf32> attributes {strata.implements = "scaled_dot_product_attention", strata.composite_attributes = {scale = 0.5 : f64}}
// Rank 3 without head counts: one head.
// CHECK-LABEL: func.func private @sdpa3
// CHECK: top.Attention{{.*}}{is_causal = true, kv_num_heads = 1 : i64, q_num_heads = 1 : i64}
func.func private @sdpa3(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> attributes {tf._implements = {name = "scaled_dot_product_attention", is_causal = true}}

// -----

// Keras LSTM: kernel [I, 4H] in gate order i, f, c, o becomes W [1, 4H, I]
// in top.LSTM's order i, o, f, c; the bias gets a zero recurrent half.
// CHECK-LABEL: func.func private @lstm
// CHECK: %[[KS:.*]]:4 = top.Split(%arg1) {axis = 1 : i64, split = array<i64: 3, 3, 3, 3>}
// CHECK: %[[KC:.*]] = top.Concat(%[[KS]]#0, %[[KS]]#3, %[[KS]]#1, %[[KS]]#2) {axis = 1 : i64}
// CHECK: %[[KT:.*]] = top.Permute(%[[KC]]) {order = array<i64: 1, 0>} : (tensor<5x12xf32>) -> tensor<12x5xf32>
// CHECK: %[[W:.*]] = top.Reshape(%[[KT]]) {shape = array<i64: 1, 12, 5>}
// CHECK: top.Weight() {name = "lstm_zero_bias", value = dense_resource
// CHECK: %[[B:.*]] = top.Reshape({{.*}}) {shape = array<i64: 1, 24>}
// CHECK: %[[Y:[^,]*]], %{{.*}}, %{{.*}} = top.LSTM(%arg0, %[[W]], %{{.*}}, %[[B]], %{{.*}}) {activations = [#top.rnn_activation<Sigmoid>, #top.rnn_activation<Tanh>, #top.rnn_activation<Tanh>], hidden_size = 3 : i64, layout = 1 : i64}
// CHECK-SAME: -> (tensor<2x4x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>)
// CHECK: %[[O:.*]] = top.Reshape(%[[Y]]) {shape = array<i64: 2, 4, 3>}
// CHECK: return %[[O]]
func.func private @lstm(%x: tensor<2x4x5xf32>, %k: tensor<5x12xf32>, %r: tensor<3x12xf32>, %b: tensor<12xf32>) -> tensor<2x4x3xf32> attributes {strata.implements = "lstm"}

// Final states as well, initial states given, only the last output.
// CHECK-LABEL: func.func private @lstm_states
// CHECK: %{{.*}}, %[[YH:.*]], %[[YC:.*]] = top.LSTM
// CHECK: %[[H:.*]] = top.Reshape(%[[YH]]) {shape = array<i64: 2, 3>}
// CHECK: %[[C:.*]] = top.Reshape(%[[YC]]) {shape = array<i64: 2, 3>}
// CHECK: return %[[H]], %[[H]], %[[C]]
func.func private @lstm_states(%x: tensor<2x4x5xf32>, %k: tensor<5x12xf32>, %r: tensor<3x12xf32>, %b: tensor<12xf32>, %h: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) attributes {tf._implements = {name = "lstm", return_sequences = false}}

// CHECK-LABEL: func.func private @cell
// CHECK: top.Reshape(%arg0) {shape = array<i64: 2, 1, 5>}
// CHECK: top.LSTM
// CHECK-SAME: (tensor<2x1x5xf32>, tensor<1x12x5xf32>, tensor<1x12x3xf32>, none, none, tensor<2x1x3xf32>, tensor<2x1x3xf32>, none)
func.func private @cell(%x: tensor<2x5xf32>, %h: tensor<2x3xf32>, %c: tensor<2x3xf32>, %k: tensor<5x12xf32>, %r: tensor<3x12xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) attributes {strata.implements = "LSTMCell"}

// Keras GRU (reset_after: bias [2, 3H], linear_before_reset); gates z, r, h
// need no reordering.
// CHECK-LABEL: func.func private @gru
// CHECK-NOT: top.Split
// CHECK: top.Reshape(%arg3) {shape = array<i64: 1, 18>}
// CHECK: top.GRU{{.*}}{activations = [#top.rnn_activation<Sigmoid>, #top.rnn_activation<Tanh>], hidden_size = 3 : i64, layout = 1 : i64, linear_before_reset = true}
func.func private @gru(%x: tensor<2x4x5xf32>, %k: tensor<5x9xf32>, %r: tensor<3x9xf32>, %b: tensor<2x9xf32>) -> tensor<2x4x3xf32> attributes {strata.implements = "gru"}

// -----

// Not fused: the checks fail; the function is left intact with a warning.
// CHECK-LABEL: func.func private @bad_ln
// CHECK-NOT: strata.fused
// CHECK: top.Relu
// expected-warning @+1 {{composite 'bad_ln' (layer_norm): input 0 must be a ranked float tensor; left unfused}}
func.func private @bad_ln(%x: tensor<2x8xi32>) -> tensor<2x8xi32> attributes {strata.implements = "layer_norm"} {
  %y = top.Relu(%x) : (tensor<2x8xi32>) -> tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}
// expected-warning @+1 {{composite 'bad_ln_scale' (layer_norm): input 1 (scale) must have 8 elements (the normalized shape), has 4}}
func.func private @bad_ln_scale(%x: tensor<2x8xf32>, %s: tensor<4xf32>) -> tensor<2x8xf32> attributes {strata.implements = "layer_norm"}
// expected-warning @+1 {{composite 'bad_lstm' (lstm): input 2 (recurrent_kernel) must be [3, 12], is [4, 12]}}
func.func private @bad_lstm(%x: tensor<2x4x5xf32>, %k: tensor<5x12xf32>, %r: tensor<4x12xf32>) -> tensor<2x4x3xf32> attributes {strata.implements = "lstm"}
// expected-warning @+1 {{composite 'bad_gelu' (gelu): attribute 'approximate' = "fast" must be "none" or "tanh"}}
func.func private @bad_gelu(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tf._implements = {name = "gelu", approximate = "fast"}}
// The signature passes but the fused op's type is not the function's.
// expected-warning @+1 {{composite 'bad_result' (silu): fused result 0 has type tensor<4xf32>, the function returns tensor<2x2xf32>; left unfused}}
func.func private @bad_result(%x: tensor<4xf32>) -> tensor<2x2xf32> attributes {strata.implements = "silu"}
// expected-warning @+1 {{composite 'bad_sdpa' (scaled_dot_product_attention): input 1 must have the query's rank 4}}
func.func private @bad_sdpa(%q: tensor<1x2x3x4xf32>, %k: tensor<2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> attributes {strata.implements = "scaled_dot_product_attention"}
// Marks of the wrong form are not composites, with a warning.
// expected-warning @+1 {{composite 'bad_mark_int': attribute 'tf._implements' must be a string or a dictionary with a string 'name', got 5 : i64; left unfused}}
func.func private @bad_mark_int(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tf._implements = 5}
// expected-warning @+1 {{composite 'bad_mark_dict': attribute 'tf._implements' must be a string or a dictionary with a string 'name', got {name = 7 : i64}; left unfused}}
func.func private @bad_mark_dict(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tf._implements = {name = 7}}
// expected-warning @+1 {{composite 'bad_mark_strata': attribute 'strata.implements' must be a string, got ["silu"]; left unfused}}
func.func private @bad_mark_strata(%x: tensor<4xf32>) -> tensor<4xf32> attributes {strata.implements = ["silu"]}

// -----

// Unknown names and unmarked functions are left alone (and inlined as
// written).
// CHECK-LABEL: func.func private @custom.Twice
// CHECK-NOT: strata.fused
// CHECK: top.Add
// INLINE-LABEL: func.func @main
// INLINE: top.Add
// INLINE-NOT: call
func.func private @"custom.Twice"(%x: tensor<2xf32>) -> tensor<2xf32> attributes {strata.implements = "custom.Twice"} {
  %y = top.Add(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = call @"custom.Twice"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// An ONNX model-local function's name is only a hint: one named LayerNorm
// whose body negates its input is not a layer norm, so it stays as written
// (the fused op is checked against the body on seeded inputs).
// CHECK-LABEL: func.func private @custom.LayerNorm
// CHECK-NOT: strata.fused
// CHECK: top.Neg
// CHECK-NOT: top.LayerNorm
// INLINE-LABEL: func.func @main
// INLINE: top.Neg
// INLINE-NOT: top.LayerNorm
// expected-warning @+1 {{composite 'custom.LayerNorm' (custom.LayerNorm): the fused op computes something else than the body (seeded run 0: result 0 element 0 is}}
func.func private @"custom.LayerNorm"(%x: tensor<2x8xf32>) -> tensor<2x8xf32> attributes {strata.implements = "custom.LayerNorm", strata.onnx_domain = "custom", strata.onnx_name = "LayerNorm", strata.onnx_attributes = {}} {
  %y = top.Neg(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
func.func @main(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r = call @"custom.LayerNorm"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// An ONNX model-local function whose body is what its name says is fused:
// here SiLU as x * sigmoid(x).
// CHECK-LABEL: func.func private @custom.Silu
// CHECK-SAME: strata.fused
// CHECK: top.SiLU
// CHECK-NOT: top.Sigmoid
// INLINE-LABEL: func.func @main
// INLINE: top.SiLU
func.func private @"custom.Silu"(%x: tensor<2x8xf32>) -> tensor<2x8xf32> attributes {strata.implements = "custom.Silu", strata.onnx_domain = "custom", strata.onnx_name = "Silu", strata.onnx_attributes = {}} {
  %s = top.Sigmoid(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = top.Mul(%x, %s) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
func.func @main(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r = call @"custom.Silu"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// A converter attribute of the wrong kind is an error, not the default.
// expected-error @+1 {{composite 'ln_bad_eps' (layer_norm): attribute 'epsilon' must be a number, got "abc"}}
func.func private @ln_bad_eps(%x: tensor<2x8xf32>) -> tensor<2x8xf32> attributes {strata.implements = "layer_norm", strata.composite_attributes = {epsilon = "abc"}} {
  %y = top.Neg(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
