// A first block (3x3 stride-2 convolution of 3 channels + relu6, 3x3
// depthwise + relu6, 1x1 projection) whose stem output is at least 1 MiB
// becomes one conv2d_stem_block_f32 dispatch: params N, C, H, W, E, P, H1,
// W1, the stem's pads, the depthwise's stride and pads, OH, OW, three
// (has_bias, activation, p0, p1) epilogues (relu6 is clip 0..6: 1086324736
// = 6.0f), strip_rows 0 (from the output width at run time); bindings
// input, stem filter, b1 (absent: the output), depthwise filter, b2,
// projection filter, b3, output; no filter packed. The same block with a
// residual Add stays three kernels (the fused kernel takes no residual).
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT: kernel 'conv2d_1x1_narrow_f32': 1 dispatch(es)
// REPORT: kernel 'conv2d_depthwise_f32': 1 dispatch(es)
// REPORT: kernel 'conv2d_stem_block_f32': 1 dispatch(es)
// REPORT: kernel 'conv2d_stem_f32': 1 dispatch(es)
// REPORT-NOT: packed weights
// REPORT: inverted-residual blocks fused into one kernel: 1

// CHECK: 0: cpu kernel 'conv2d_stem_block_f32', {{.*}} params [1, 3, 192, 192, 32, 8, 96, 96, 1, 1, 1, 1, 1, 1, 1, 1, 1, 96, 96, 0, 2, 0, 1086324736, 1, 2, 0, 1086324736, 1, 0, 0, 0, 0]
// CHECK-NEXT: binding 0: buffer [[X:[0-9]+]] (input 'x'
// CHECK-NEXT: binding 1: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 2: buffer [[Y:[0-9]+]] (output 'y'
// CHECK-NEXT: binding 3: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 4: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 5: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 6: buffer {{[0-9]+}} (constant
// CHECK-NEXT: binding 7: buffer [[Y]] (output 'y'
// CHECK: 1: cpu kernel 'conv2d_stem_f32'
// CHECK: 2: cpu kernel 'conv2d_depthwise_f32'
// CHECK: 3: cpu kernel 'conv2d_1x1_narrow_f32', {{.*}} params [1, 32, 9216, 8, 0, 1, 0, 0, 0, 1]

func.func @main(%x_arg: tensor<1x3x192x192xf32> {top.name = "x"},
                %z_arg: tensor<1x3x192x192xf32> {top.name = "z"},
                %r_arg: tensor<1x8x96x96xf32> {top.name = "r"})
    -> (tensor<1x8x96x96xf32> {top.name = "y"}, tensor<1x8x96x96xf32> {top.name = "yr"}) {
  %x = top.Input(%x_arg) : (tensor<1x3x192x192xf32>) -> tensor<1x3x192x192xf32>
  %z = top.Input(%z_arg) : (tensor<1x3x192x192xf32>) -> tensor<1x3x192x192xf32>
  %r = top.Input(%r_arg) : (tensor<1x8x96x96xf32>) -> tensor<1x8x96x96xf32>
  %n = top.None() : () -> none
  %w1 = top.Weight() {name = "w1", value = dense<0.5> : tensor<32x3x3x3xf32>} : () -> tensor<32x3x3x3xf32>
  %dw = top.Weight() {name = "dw", value = dense<0.1> : tensor<32x1x3x3xf32>} : () -> tensor<32x1x3x3xf32>
  %b2 = top.Weight() {name = "b2", value = dense<0.2> : tensor<32xf32>} : () -> tensor<32xf32>
  %w3 = top.Weight() {name = "w3", value = dense<0.25> : tensor<8x32x1x1xf32>} : () -> tensor<8x32x1x1xf32>
  %b3 = top.Weight() {name = "b3", value = dense<0.3> : tensor<8xf32>} : () -> tensor<8xf32>
  %0 = top.Conv(%x, %w1, %n) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1,
      do_relu = true, relu_limit = 6.0 : f64}
      : (tensor<1x3x192x192xf32>, tensor<32x3x3x3xf32>, none) -> tensor<1x32x96x96xf32>
  %1 = top.Conv(%0, %dw, %b2) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 32,
      do_relu = true, relu_limit = 6.0 : f64}
      : (tensor<1x32x96x96xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x96x96xf32>
  %2 = top.Conv(%1, %w3, %b3) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x32x96x96xf32>, tensor<8x32x1x1xf32>, tensor<8xf32>) -> tensor<1x8x96x96xf32>
  %3 = top.Conv(%z, %w1, %n) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1,
      do_relu = true, relu_limit = 6.0 : f64}
      : (tensor<1x3x192x192xf32>, tensor<32x3x3x3xf32>, none) -> tensor<1x32x96x96xf32>
  %4 = top.Conv(%3, %dw, %b2) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
      pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 32,
      do_relu = true, relu_limit = 6.0 : f64}
      : (tensor<1x32x96x96xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x96x96xf32>
  %5 = top.Conv(%4, %w3, %b3) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x32x96x96xf32>, tensor<8x32x1x1xf32>, tensor<8xf32>) -> tensor<1x8x96x96xf32>
  %6 = top.Add(%5, %r) : (tensor<1x8x96x96xf32>, tensor<1x8x96x96xf32>) -> tensor<1x8x96x96xf32>
  return %2, %6 : tensor<1x8x96x96xf32>, tensor<1x8x96x96xf32>
}
