// An inverted-residual block (1x1 conv + relu6, 3x3 depthwise + relu6, 1x1
// conv, residual Add) whose expanded tensor is at least 1 MiB becomes one
// conv2d_inverted_residual_f32 dispatch: params N, C, H, W, E, P, stride,
// pads, OH, OW, three (has_bias, activation, p0, p1) epilogues (relu6 is
// clip 0..6: 1086324736 = 6.0f), has_residual, strip_rows 0 (from the
// cache at run time); bindings input, packed w1, b1 (absent: the output),
// depthwise filter, b2, packed w3, b3, output, residual (the input here:
// not written in place). The same block with a depthwise filter that is not
// a constant stays three kernels: its 4-channel projection on the narrow
// 1x1 kernel (plain filter, filter_packed 0), which the fused block's
// projection would take too on its own.
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT: kernel 'conv2d_1x1_gemm_f32': 1 dispatch(es)
// REPORT: kernel 'conv2d_1x1_narrow_f32': 1 dispatch(es)
// REPORT: kernel 'conv2d_depthwise_f32': 1 dispatch(es)
// REPORT: kernel 'conv2d_inverted_residual_f32': 1 dispatch(es)
// REPORT: inverted-residual blocks fused into one kernel: 1

// CHECK: 0: cpu kernel 'conv2d_inverted_residual_f32', {{.*}} params [1, 4, 64, 64, 64, 4, 1, 1, 1, 1, 1, 64, 64, 0, 2, 0, 1086324736, 1, 2, 0, 1086324736, 1, 0, 0, 0, 1, 0]
// CHECK-NEXT: binding 0: buffer [[X:[0-9]+]] (input 'x'
// CHECK-NEXT: binding 1: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 2: buffer [[Y:[0-9]+]] (arena
// CHECK-NEXT: binding 3: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 4: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 5: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 6: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 7: buffer [[Y]] (arena
// CHECK-NEXT: binding 8: buffer [[X]] (input 'x'
// CHECK: 1: cpu kernel 'conv2d_1x1_gemm_f32'
// CHECK: 2: cpu kernel 'conv2d_depthwise_f32'
// CHECK: 3: cpu kernel 'conv2d_1x1_narrow_f32', {{.*}} params [1, 64, 4096, 4, 0, 1, 0, 0, 0, 0]

func.func @main(%x_arg: tensor<1x4x64x64xf32> {top.name = "x"},
                %d_arg: tensor<64x1x3x3xf32> {top.name = "d"})
    -> (tensor<1x4x64x64xf32> {top.name = "y"}) {
  %x = top.Input(%x_arg) : (tensor<1x4x64x64xf32>) -> tensor<1x4x64x64xf32>
  %d = top.Input(%d_arg) : (tensor<64x1x3x3xf32>) -> tensor<64x1x3x3xf32>
  %n = top.None() : () -> none
  %w1 = top.Weight() {name = "w1", value = dense<0.5> : tensor<64x4x1x1xf32>} : () -> tensor<64x4x1x1xf32>
  %dw = top.Weight() {name = "dw", value = dense<0.1> : tensor<64x1x3x3xf32>} : () -> tensor<64x1x3x3xf32>
  %b2 = top.Weight() {name = "b2", value = dense<0.2> : tensor<64xf32>} : () -> tensor<64xf32>
  %w3 = top.Weight() {name = "w3", value = dense<0.25> : tensor<4x64x1x1xf32>} : () -> tensor<4x64x1x1xf32>
  %b3 = top.Weight() {name = "b3", value = dense<0.3> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = top.Conv(%x, %w1, %n) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1,
      do_relu = true, relu_limit = 6.0 : f64}
      : (tensor<1x4x64x64xf32>, tensor<64x4x1x1xf32>, none) -> tensor<1x64x64x64xf32>
  %1 = top.Conv(%0, %dw, %b2) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 64,
      do_relu = true, relu_limit = 6.0 : f64}
      : (tensor<1x64x64x64xf32>, tensor<64x1x3x3xf32>, tensor<64xf32>) -> tensor<1x64x64x64xf32>
  %2 = top.Conv(%1, %w3, %b3) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x64x64x64xf32>, tensor<4x64x1x1xf32>, tensor<4xf32>) -> tensor<1x4x64x64xf32>
  %3 = top.Add(%2, %x) : (tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>) -> tensor<1x4x64x64xf32>
  %4 = top.Conv(%3, %w1, %n) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1,
      do_relu = true, relu_limit = 6.0 : f64}
      : (tensor<1x4x64x64xf32>, tensor<64x4x1x1xf32>, none) -> tensor<1x64x64x64xf32>
  %5 = top.Conv(%4, %d, %b2) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 64,
      do_relu = true, relu_limit = 6.0 : f64}
      : (tensor<1x64x64x64xf32>, tensor<64x1x3x3xf32>, tensor<64xf32>) -> tensor<1x64x64x64xf32>
  %6 = top.Conv(%5, %w3, %b3) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x64x64x64xf32>, tensor<4x64x1x1xf32>, tensor<4xf32>) -> tensor<1x4x64x64xf32>
  return %6 : tensor<1x4x64x64xf32>
}
