// A 1x1 convolution with at most 32 output channels and at least 16 input
// channels on a plane of at least 28x28 runs on conv2d_1x1_narrow_f32: the
// 1x1 params (N, C, HW, O), then filter_packed 0 (the plain filter, not
// packed at compile time) and the epilogue, a residual Add fused into it
// (has_residual 1; bindings input, filter, bias, output, residual). 33
// output channels, 8 input channels, or a plane under 28x28 stay on the
// GEMM kernel (filter packed: 1).
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT: kernel 'conv2d_1x1_gemm_f32': 3 dispatch(es)
// REPORT: kernel 'conv2d_1x1_narrow_f32': 1 dispatch(es)
// REPORT: residual adds fused into a kernel epilogue: 1

// CHECK: 0: cpu kernel 'conv2d_1x1_narrow_f32', {{.*}} params [1, 16, 840, 32, 0, 1, 0, 0, 0, 1]
// CHECK-NEXT: binding 0: buffer [[X:[0-9]+]] (input 'x'
// CHECK-NEXT: binding 1: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 2: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 3: buffer [[Y:[0-9]+]] (
// CHECK-NEXT: binding 4: buffer {{[0-9]+}} (input 'r'
// CHECK: 1: cpu kernel 'conv2d_1x1_gemm_f32', {{.*}} params [1, 16, 840, 33, 1,
// CHECK: 2: cpu kernel 'conv2d_1x1_gemm_f32', {{.*}} params [1, 16, 729, 32, 1,
// CHECK: 3: cpu kernel 'conv2d_1x1_gemm_f32', {{.*}} params [1, 8, 840, 32, 1,

func.func @main(%x_arg: tensor<1x16x28x30xf32> {top.name = "x"},
                %r_arg: tensor<1x32x28x30xf32> {top.name = "r"},
                %s_arg: tensor<1x16x27x27xf32> {top.name = "s"},
                %t_arg: tensor<1x8x28x30xf32> {top.name = "t"})
    -> (tensor<1x32x28x30xf32> {top.name = "y"}, tensor<1x33x28x30xf32> {top.name = "y33"},
        tensor<1x32x27x27xf32> {top.name = "ys"}, tensor<1x32x28x30xf32> {top.name = "yt"}) {
  %x = top.Input(%x_arg) : (tensor<1x16x28x30xf32>) -> tensor<1x16x28x30xf32>
  %r = top.Input(%r_arg) : (tensor<1x32x28x30xf32>) -> tensor<1x32x28x30xf32>
  %s = top.Input(%s_arg) : (tensor<1x16x27x27xf32>) -> tensor<1x16x27x27xf32>
  %t = top.Input(%t_arg) : (tensor<1x8x28x30xf32>) -> tensor<1x8x28x30xf32>
  %n = top.None() : () -> none
  %w = top.Weight() {name = "w", value = dense<0.5> : tensor<32x16x1x1xf32>} : () -> tensor<32x16x1x1xf32>
  %w33 = top.Weight() {name = "w33", value = dense<0.5> : tensor<33x16x1x1xf32>} : () -> tensor<33x16x1x1xf32>
  %w8 = top.Weight() {name = "w8", value = dense<0.5> : tensor<32x8x1x1xf32>} : () -> tensor<32x8x1x1xf32>
  %b = top.Weight() {name = "b", value = dense<0.2> : tensor<32xf32>} : () -> tensor<32xf32>
  %0 = top.Conv(%x, %w, %b) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x16x28x30xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>) -> tensor<1x32x28x30xf32>
  %1 = top.Add(%0, %r) : (tensor<1x32x28x30xf32>, tensor<1x32x28x30xf32>) -> tensor<1x32x28x30xf32>
  %2 = top.Conv(%x, %w33, %n) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x16x28x30xf32>, tensor<33x16x1x1xf32>, none) -> tensor<1x33x28x30xf32>
  %3 = top.Conv(%s, %w, %b) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x16x27x27xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>) -> tensor<1x32x27x27xf32>
  %4 = top.Conv(%t, %w8, %b) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x8x28x30xf32>, tensor<32x8x1x1xf32>, tensor<32xf32>) -> tensor<1x32x28x30xf32>
  return %1, %2, %3, %4 : tensor<1x32x28x30xf32>, tensor<1x33x28x30xf32>, tensor<1x32x27x27xf32>, tensor<1x32x28x30xf32>
}
