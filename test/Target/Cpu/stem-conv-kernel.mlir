// A 3x3 stride-2 convolution of 3 input channels (a network's stem) runs on
// the direct conv2d_stem_f32 kernel: the general convolution's params, then
// filter_packed 0 (the plain OIHW filter, not packed at compile time), the
// epilogue (has_bias 1, clip 0..6: 1086324736 = 6.0f, has_residual 0);
// bindings input, filter, bias, output, output. The same convolution with 5
// input channels, stride 1, or a residual Add after it stays im2col (the
// Add a separate kernel for the stem: it takes no residual).
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT: kernel 'conv2d_im2col_gemm_f32': 2 dispatch(es)
// REPORT: kernel 'conv2d_stem_f32': 2 dispatch(es)

// CHECK: 0: cpu kernel 'conv2d_stem_f32', {{.*}} params [1, 3, 32, 30, 16, 15, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 1, 2, 0, 1086324736, 0]
// CHECK-NEXT: binding 0: buffer [[X:[0-9]+]] (input 'x'
// CHECK-NEXT: binding 1: buffer [[W:[0-9]+]] (constant
// CHECK-NEXT: binding 2: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 3: buffer [[Y:[0-9]+]] (
// CHECK-NEXT: binding 4: buffer [[Y]] (
// CHECK: 1: cpu kernel 'conv2d_im2col_gemm_f32', {{.*}} params [1, 5, 32, 30, 16, 15, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1,
// CHECK: 2: cpu kernel 'conv2d_im2col_gemm_f32', {{.*}} params [1, 3, 32, 30, 32, 30, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
// CHECK: 3: cpu kernel 'conv2d_stem_f32', {{.*}} params [1, 3, 32, 30, 16, 15, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
// CHECK: 4: cpu kernel 'add_bcast_f32'

func.func @main(%x_arg: tensor<1x3x32x30xf32> {top.name = "x"},
                %x5_arg: tensor<1x5x32x30xf32> {top.name = "x5"},
                %r_arg: tensor<1x8x16x15xf32> {top.name = "r"})
    -> (tensor<1x8x16x15xf32> {top.name = "y"}, tensor<1x8x16x15xf32> {top.name = "y5"},
        tensor<1x8x32x30xf32> {top.name = "y1"}, tensor<1x8x16x15xf32> {top.name = "yr"}) {
  %x = top.Input(%x_arg) : (tensor<1x3x32x30xf32>) -> tensor<1x3x32x30xf32>
  %x5 = top.Input(%x5_arg) : (tensor<1x5x32x30xf32>) -> tensor<1x5x32x30xf32>
  %r = top.Input(%r_arg) : (tensor<1x8x16x15xf32>) -> tensor<1x8x16x15xf32>
  %n = top.None() : () -> none
  %w = top.Weight() {name = "w", value = dense<0.5> : tensor<8x3x3x3xf32>} : () -> tensor<8x3x3x3xf32>
  %w5 = top.Weight() {name = "w5", value = dense<0.5> : tensor<8x5x3x3xf32>} : () -> tensor<8x5x3x3xf32>
  %b = top.Weight() {name = "b", value = dense<0.2> : tensor<8xf32>} : () -> tensor<8xf32>
  %0 = top.Conv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1,
      do_relu = true, relu_limit = 6.0 : f64}
      : (tensor<1x3x32x30xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x15xf32>
  %1 = top.Conv(%x5, %w5, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x5x32x30xf32>, tensor<8x5x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x15xf32>
  %2 = top.Conv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x3x32x30xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x32x30xf32>
  %3 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x3x32x30xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x16x15xf32>
  %4 = top.Add(%3, %r) : (tensor<1x8x16x15xf32>, tensor<1x8x16x15xf32>) -> tensor<1x8x16x15xf32>
  return %0, %1, %2, %4 : tensor<1x8x16x15xf32>, tensor<1x8x16x15xf32>, tensor<1x8x32x30xf32>, tensor<1x8x16x15xf32>
}
