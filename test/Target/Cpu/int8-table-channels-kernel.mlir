// An outlined int8 table chain whose input is quantized per channel (dim 1,
// an activation table's per-channel pre-activation as top-quantize writes it
// from @range rows) runs the table_channels_i8 kernel: params count,
// channels, inner (the elements of one channel plane), then channel c's 256
// entries, 8 bytes a param in memory order; the result written in place of
// the input. Here relu to a per-tensor scale 0.5: channel 0 (scale 0.5) has
// entry k = max(k - 128, 0), the first 16 words 0 and then the bytes 0, 1,
// 2, ... (0x0706050403020100 = 506097522914230528); channel 1 (scale 0.25)
// has entry k = round_half_even(max(k - 128, 0) / 2): bytes 0, 0, 1, 2, 2,
// 2, 3, 4 (0x0403020202010000 = 289077008728653824), its word 16.
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT: kernel 'table_channels_i8': 1 dispatch(es)

// CHECK: cpu kernel 'table_channels_i8', {{.*}} params [70, 2, 35, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 506097522914230528, 1084818905618843912, {{([0-9]+, )+}}0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 289077008728653824, {{([0-9]+, )+}}{{[0-9]+}}]
// CHECK-NEXT: binding 0: buffer [[A:[0-9]+]] (arena
// CHECK-NEXT: binding 1: buffer [[A]] (arena

!q = !quant.uniform<i8:f32, 0.5>
!qc = !quant.uniform<i8:f32:1, {0.5, 0.25}>

func.func @main(%arg0: tensor<1x2x5x7xf32> {top.name = "x"}) -> (tensor<1x2x5x7xf32> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x2x5x7xf32>) -> tensor<1x2x5x7xf32>
  %a = top.Quant(%x) : (tensor<1x2x5x7xf32>) -> tensor<1x2x5x7x!qc>
  %d = top.Dequant(%a) : (tensor<1x2x5x7x!qc>) -> tensor<1x2x5x7xf32>
  %r = top.Relu(%d) : (tensor<1x2x5x7xf32>) -> tensor<1x2x5x7xf32>
  %yq = top.Quant(%r) : (tensor<1x2x5x7xf32>) -> tensor<1x2x5x7x!q>
  %y = top.Dequant(%yq) : (tensor<1x2x5x7x!q>) -> tensor<1x2x5x7xf32>
  return %y : tensor<1x2x5x7xf32>
}
