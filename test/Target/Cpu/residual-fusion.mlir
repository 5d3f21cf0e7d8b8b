// A Conv (or MatMul) whose result only an Add reads becomes one kernel
// dispatch with the Add's other operand as the residual (binding 4,
// has_residual = 1, the Add's relu as the epilogue activation), written in
// place of the residual when no other binding reads it.
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT: kernel 'conv2d_1x1_gemm_f32': 5 dispatch(es)
// REPORT: kernel 'matmul_gemm_f32': 1 dispatch(es)
// REPORT: residual adds fused into a kernel epilogue: 3

// CHECK: dispatches (7):
// %0: no residual (has_residual 0; the output bound in its place).
// CHECK: 0: cpu kernel 'conv2d_1x1_gemm_f32', {{.*}} params [1, 4, 36, 8, 1, 0, 0, 0, 0, 0]
// CHECK-NEXT: binding 0: buffer {{[0-9]+}} (input 'x'
// CHECK-NEXT: binding 1: buffer
// CHECK-NEXT: binding 2: buffer [[Y0:[0-9]+]] (arena
// CHECK-NEXT: binding 3: buffer [[Y0]] (arena
// CHECK-NEXT: binding 4: buffer [[Y0]] (arena
// CHECK: 1: cpu kernel 'conv2d_1x1_gemm_f32', {{.*}} params [1, 8, 36, 8, 1, 0, 0, 0, 0, 0]
// CHECK-NEXT: binding 0: buffer [[Y0]] (arena
// CHECK-NEXT: binding 1: buffer
// CHECK-NEXT: binding 2: buffer [[Y1:[0-9]+]] (arena
// %3 = relu(conv(%1) + %0): has_residual 1, relu, written over %0.
// CHECK: 2: cpu kernel 'conv2d_1x1_gemm_f32', {{.*}} params [1, 8, 36, 8, 1, 0, 1, 0, 0, 1]
// CHECK-NEXT: binding 0: buffer [[Y1]] (arena
// CHECK-NEXT: binding 1: buffer
// CHECK-NEXT: binding 2: buffer [[Y0]] (arena
// CHECK-NEXT: binding 3: buffer [[Y0]] (arena
// CHECK-NEXT: binding 4: buffer [[Y0]] (arena
// %5 = conv(%3) + %3: the residual is also the input: not in place.
// CHECK: 3: cpu kernel 'conv2d_1x1_gemm_f32', {{.*}} params [1, 8, 36, 8, 1, 0, 0, 0, 0, 1]
// CHECK-NEXT: binding 0: buffer [[Y0]] (arena
// CHECK-NEXT: binding 1: buffer
// CHECK-NEXT: binding 2: buffer [[Y5:[0-9]+]] (arena
// CHECK-NEXT: binding 3: buffer [[Y5]] (arena
// CHECK-NEXT: binding 4: buffer [[Y0]] (arena
// %6 has a relu before the Add: the Add stays its own (binary) kernel.
// CHECK: 4: cpu kernel 'conv2d_1x1_gemm_f32', {{.*}} params [1, 8, 36, 8, 1, 0, 1, 0, 0, 0]
// CHECK: 5: cpu kernel 'add_bcast_f32'
// MatMul + Add of an input (not in place: inputs are not arena).
// CHECK: 6: cpu kernel 'matmul_gemm_f32', {{.*}} params [1, 6, 5, 7, 0, 0, 0, 1, 0, 0, 0, 0, 1]
// CHECK-NEXT: binding 0: buffer {{[0-9]+}} (input 'a'
// CHECK-NEXT: binding 1: buffer
// CHECK-NEXT: binding 2: buffer [[C:[0-9]+]] (output 'c'
// CHECK-NEXT: binding 3: buffer [[C]] (output 'c'
// CHECK-NEXT: binding 4: buffer {{[0-9]+}} (input 'r'

func.func @main(%x_arg: tensor<1x4x6x6xf32> {top.name = "x"},
                %a_arg: tensor<6x7xf32> {top.name = "a"},
                %r_arg: tensor<6x5xf32> {top.name = "r"})
    -> (tensor<1x8x6x6xf32> {top.name = "y"}, tensor<6x5xf32> {top.name = "c"}) {
  %x = top.Input(%x_arg) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %a = top.Input(%a_arg) : (tensor<6x7xf32>) -> tensor<6x7xf32>
  %r = top.Input(%r_arg) : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %n = top.None() : () -> none
  %w0 = top.Weight() {name = "w0", value = dense<0.5> : tensor<8x4x1x1xf32>} : () -> tensor<8x4x1x1xf32>
  %w1 = top.Weight() {name = "w1", value = dense<0.25> : tensor<8x8x1x1xf32>} : () -> tensor<8x8x1x1xf32>
  %wm = top.Weight() {name = "wm", value = dense<1.0> : tensor<7x5xf32>} : () -> tensor<7x5xf32>
  %0 = top.Conv(%x, %w0, %n) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>, none) -> tensor<1x8x6x6xf32>
  %1 = top.Conv(%0, %w1, %n) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x6x6xf32>
  %2 = top.Conv(%1, %w1, %n) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x6x6xf32>
  %3 = top.Add(%2, %0) {do_relu = true} : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %4 = top.Conv(%3, %w1, %n) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1}
      : (tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x6x6xf32>
  %5 = top.Add(%3, %4) : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %6 = top.Conv(%5, %w1, %n) {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1, do_relu = true}
      : (tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x6x6xf32>
  %7 = top.Add(%5, %6) : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %8 = top.MatMul(%a, %wm, %n) : (tensor<6x7xf32>, tensor<7x5xf32>, none) -> tensor<6x5xf32>
  %9 = top.Add(%r, %8) : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  return %7, %9 : tensor<1x8x6x6xf32>, tensor<6x5xf32>
}
