// RUN: strata-opt %s | strata-opt | FileCheck %s
// Enum attributes (TopEnums.td): a quoted name parses as the bare one, a
// value equal to the attribute's default is not printed, others are printed
// as `#top.<kind><<name>>`, and an array of them round-trips.

// CHECK-LABEL: func @enum_forms
func.func @enum_forms(%x: tensor<2x4xf32>, %f: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %n: none) -> (tensor<2x7xf32>, tensor<2x4xf32>, tensor<*xf32>) {
  // CHECK: top.Pad(%{{.*}}) {mode = #top.pad_mode<reflect>, pads = array<i64: 0, 1, 0, 2>}
  %0 = top.Pad(%x) {pads = array<i64: 0, 1, 0, 2>, mode = #top.pad_mode<"reflect">} : (tensor<2x4xf32>) -> tensor<2x7xf32>
  // CHECK: top.Gelu(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = top.Gelu(%x) {approximate = #top.gelu_approximation<none>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: top.Conv(%{{.*}}) {activation = #top.activation<leaky_relu>, activation_params = array<f64: 1.000000e-01>, kernel_shape = array<i64: 3, 3>, layout = #top.layout<NHWC>}
  %2 = top.Conv(%f, %w, %n) {kernel_shape = array<i64: 3, 3>, layout = #top.layout<NHWC>, activation = #top.activation<leaky_relu>, activation_params = array<f64: 0.1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return %0, %1, %2 : tensor<2x7xf32>, tensor<2x4xf32>, tensor<*xf32>
}

// CHECK-LABEL: func @enum_array
func.func @enum_array(%x: tensor<3x1x4xf32>, %w: tensor<1x2x4xf32>, %r: tensor<1x2x2xf32>, %n: none) -> tensor<*xf32> {
  // CHECK: activations = [#top.rnn_activation<Relu>], direction = #top.rnn_direction<reverse>
  %0:2 = top.RNN(%x, %w, %r, %n, %n, %n) {hidden_size = 2 : i64, direction = #top.rnn_direction<reverse>, activations = [#top.rnn_activation<Relu>]} : (tensor<3x1x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}
