// An outlined int8 table chain (Dequant, one-operand float ops, Quant on
// per-tensor int8; a fused activation as top-quantize writes it) runs the
// table_i8 kernel: params count, then the 256 entries tabulated through the
// interpreter, 8 bytes a param in memory order; the result written in
// place of the input. Here relu at the same scale and zero point: entry k
// is max(k - 128, 0), so the first 16 words are 0 and the next ones hold
// the bytes 0, 1, 2, ... (0x0706050403020100 = 506097522914230528).
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT: kernel 'table_i8': 1 dispatch(es)

// CHECK: cpu kernel 'table_i8', {{.*}} params [35, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 506097522914230528, 1084818905618843912, {{.*}}]
// CHECK-NEXT: binding 0: buffer [[A:[0-9]+]] (arena
// CHECK-NEXT: binding 1: buffer [[A]] (arena

!q = !quant.uniform<i8:f32, 0.5>

func.func @main(%arg0: tensor<1x5x7x1xf32> {top.name = "x"}) -> (tensor<1x5x7x1xf32> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x5x7x1xf32>) -> tensor<1x5x7x1xf32>
  %a = top.Quant(%x) : (tensor<1x5x7x1xf32>) -> tensor<1x5x7x1x!q>
  %d = top.Dequant(%a) : (tensor<1x5x7x1x!q>) -> tensor<1x5x7x1xf32>
  %r = top.Relu(%d) : (tensor<1x5x7x1xf32>) -> tensor<1x5x7x1xf32>
  %yq = top.Quant(%r) : (tensor<1x5x7x1xf32>) -> tensor<1x5x7x1x!q>
  %y = top.Dequant(%yq) : (tensor<1x5x7x1x!q>) -> tensor<1x5x7x1xf32>
  return %y : tensor<1x5x7x1xf32>
}
