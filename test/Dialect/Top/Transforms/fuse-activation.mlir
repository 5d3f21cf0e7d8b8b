// RUN: strata-opt %s --top-fuse-activation --split-input-file | FileCheck %s

// CHECK-LABEL: func @conv_relu
// CHECK: top.Conv{{.*}}do_relu = true
// CHECK-NOT: top.Relu
func.func @conv_relu(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = top.Input(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  %2 = top.Relu(%1) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %2 : tensor<1x8x8x8xf32>
}

// -----

// relu6 as clip(0, 6) fuses with a limit.
// CHECK-LABEL: func @matmul_relu6
// CHECK: top.MatMul{{.*}}do_relu = true, relu_limit = 6.0
// CHECK-NOT: top.Clip
func.func @matmul_relu6(%arg0: tensor<2x4xf32>) -> tensor<2x5xf32> {
  %0 = top.Input(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %n = top.None() : () -> none
  %1 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %2 = top.Clip(%1) {min = 0.0, max = 6.0} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}

// -----

// The conv result has a second user: fusing would change what it sees.
// CHECK-LABEL: func @multi_use
// CHECK: top.Conv
// CHECK-NOT: do_relu = true
// CHECK: top.Relu
func.func @multi_use(%arg0: tensor<1x3x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %0 = top.Input(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  %2 = top.Relu(%1) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %1, %2 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// -----

// A clip with a non-zero lower bound is not a relu: it is the "clip"
// epilogue.
// CHECK-LABEL: func @clip_not_relu
// CHECK: top.MatMul
// CHECK-NOT: do_relu = true
// CHECK-SAME: activation = #top.activation<clip>
// CHECK-NOT: top.Clip
func.func @clip_not_relu(%arg0: tensor<2x4xf32>) -> tensor<2x5xf32> {
  %0 = top.Input(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %n = top.None() : () -> none
  %1 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %2 = top.Clip(%1) {min = -1.0, max = 6.0} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}

// -----

// A producer that already applies relu keeps the separate clip.
// CHECK-LABEL: func @already_relu
// CHECK: top.Clip
func.func @already_relu(%arg0: tensor<2x4xf32>) -> tensor<2x5xf32> {
  %0 = top.Input(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %n = top.None() : () -> none
  %1 = top.MatMul(%0, %w, %n) {do_relu = true} : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %2 = top.Clip(%1) {min = 0.0, max = 6.0} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}

// -----

// Epilogue activations: SiLU, GELU (tanh), LeakyRelu, HardSigmoid, Sigmoid,
// HardSwish and a clip with a non-zero lower bound.
// CHECK-LABEL: func @epilogues
// CHECK: top.MatMul{{.*}}activation = #top.activation<silu>
// CHECK: top.MatMul{{.*}}activation = #top.activation<gelu_tanh>
// CHECK: top.Conv{{.*}}activation = #top.activation<leaky_relu>, activation_params = array<f64: 1.000000e-01>
// CHECK: top.Deconv{{.*}}activation = #top.activation<hardsigmoid>, activation_params = array<f64: 2.000000e-01, 5.000000e-01>
// CHECK: top.MatMul{{.*}}activation = #top.activation<sigmoid>
// CHECK: top.MatMul{{.*}}activation = #top.activation<hardswish>
// CHECK: top.MatMul{{.*}}activation = #top.activation<clip>, activation_params = array<f64: -1.000000e+00, 6.000000e+00>
// CHECK-NOT: top.SiLU
// CHECK-NOT: top.Gelu
// CHECK-NOT: top.LeakyRelu
// CHECK-NOT: top.HardSigmoid
// CHECK-NOT: top.Sigmoid
// CHECK-NOT: top.HardSwish
// CHECK-NOT: top.Clip
func.func @epilogues(%arg0: tensor<2x4xf32>, %arg1: tensor<1x3x8x8xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<1x8x8x8xf32>, tensor<1x8x10x10xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = top.Input(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %x = top.Input(%arg1) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %cw = top.Weight() {name = "cw"} : () -> tensor<8x3x3x3xf32>
  %dw = top.Weight() {name = "dw"} : () -> tensor<3x8x3x3xf32>
  %n = top.None() : () -> none
  %1 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %2 = top.SiLU(%1) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %3 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %4 = top.Gelu(%3) {approximate = #top.gelu_approximation<tanh>} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %5 = top.Conv(%x, %cw, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  %6 = top.LeakyRelu(%5) {alpha = 0.1} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %7 = top.Deconv(%x, %dw, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<3x8x3x3xf32>, none) -> tensor<1x8x10x10xf32>
  %8 = top.HardSigmoid(%7) : (tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %9 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %10 = top.Sigmoid(%9) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %11 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %12 = top.HardSwish(%11) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %13 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %14 = top.Clip(%13) {min = -1.0, max = 6.0} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %2, %4, %6, %8, %10, %12, %14 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<1x8x8x8xf32>, tensor<1x8x10x10xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// Not fused: a second activation on an op that has one, pooling (relu
// only), a producer with another user.
// CHECK-LABEL: func @epilogue_not_fused
// CHECK: top.MatMul{{.*}}do_relu = true
// CHECK: top.Sigmoid
// CHECK: top.MaxPool
// CHECK-NOT: activation
// CHECK: top.SiLU
// CHECK: top.MatMul
// CHECK-NOT: activation
// CHECK: top.Gelu
func.func @epilogue_not_fused(%arg0: tensor<2x4xf32>, %arg1: tensor<1x3x8x8xf32>) -> (tensor<2x5xf32>, tensor<1x3x4x4xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = top.Input(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %x = top.Input(%arg1) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x5xf32>
  %n = top.None() : () -> none
  %1 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %2 = top.Relu(%1) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %3 = top.Sigmoid(%2) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %4 = top.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %5 = top.SiLU(%4) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %6 = top.MatMul(%0, %w, %n) : (tensor<2x4xf32>, tensor<4x5xf32>, none) -> tensor<2x5xf32>
  %7 = top.Gelu(%6) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %3, %5, %6, %7 : tensor<2x5xf32>, tensor<1x3x4x4xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// A relu after a residual Add becomes the Add's do_relu; not when the Add
// has another user.
// CHECK-LABEL: func @add_relu
// CHECK: %[[A:.*]] = top.Add(%{{.*}}, %{{.*}}) {do_relu = true}
// CHECK: %[[B:.*]] = top.Add(%{{.*}}, %{{.*}}) :
// CHECK: %[[R:.*]] = top.Relu(%[[B]])
// CHECK: return %[[A]], %[[B]], %[[R]]
func.func @add_relu(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %x = top.Input(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %y = top.Input(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = top.Add(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = top.Relu(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = top.Add(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = top.Relu(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
