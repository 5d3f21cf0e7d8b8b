// A MaxPool on int8 or uint8 values (the input's quantization kept) runs
// the maxpool2d_nchw_i8 / maxpool2d_nchw_u8 kernel: params N, C, H, W, OH,
// OW, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW, then clamp 0 and limit 0;
// bindings in, out.
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT-DAG: kernel 'maxpool2d_nchw_i8': 1 dispatch(es)
// REPORT-DAG: kernel 'maxpool2d_nchw_u8': 1 dispatch(es)

// CHECK-DAG: cpu kernel 'maxpool2d_nchw_i8', {{.*}} params [1, 3, 9, 11, 5, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0]
// CHECK-DAG: cpu kernel 'maxpool2d_nchw_u8', {{.*}} params [1, 3, 9, 11, 4, 5, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0]

!q = !quant.uniform<i8:f32, 0.05:-7>
!qu = !quant.uniform<u8:f32, 0.05:120>

func.func @main(%arg0: tensor<1x3x9x11xf32> {top.name = "x"}) -> (tensor<1x3x5x6xf32> {top.name = "y"}, tensor<1x3x4x5xf32> {top.name = "z"}) {
  %x = top.Input(%arg0) : (tensor<1x3x9x11xf32>) -> tensor<1x3x9x11xf32>
  %q = top.Quant(%x) : (tensor<1x3x9x11xf32>) -> tensor<1x3x9x11x!q>
  %p = top.MaxPool(%q) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x9x11x!q>) -> tensor<1x3x5x6x!q>
  %y = top.Dequant(%p) : (tensor<1x3x5x6x!q>) -> tensor<1x3x5x6xf32>
  %u = top.Quant(%x) : (tensor<1x3x9x11xf32>) -> tensor<1x3x9x11x!qu>
  %p2 = top.MaxPool(%u) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x9x11x!qu>) -> tensor<1x3x4x5x!qu>
  %z = top.Dequant(%p2) : (tensor<1x3x4x5x!qu>) -> tensor<1x3x4x5xf32>
  return %y, %z : tensor<1x3x5x6xf32>, tensor<1x3x4x5xf32>
}
