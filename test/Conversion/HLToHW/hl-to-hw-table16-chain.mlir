// RUN: strata-opt %s --convert-hl-to-hw="prefetch-weights=true" | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw | FileCheck %s --check-prefix=NOCHAIN
// conv + table16 -> conv + table16 in one dispatch (a conv -> conv chain,
// docs/npu.md "Multi-op dispatches"): each conv's int16 result looked up in
// its interpolated table (bindings 3 and 6, 1026 bytes each) in the
// activation unit; the first output stays in LRAM, only the result
// (binding 7) is stored. Values: test/quant/test_table16.py
// (test_npu_sim_runs_int16_tables_on_the_npu[conv_silu], a chain).
// CHECK-LABEL: func.func @main
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK-NEXT: hl.table16{{.*}}npu.dispatch_group
// CHECK-NEXT: hl.conv2d{{.*}}npu.dispatch_group
// CHECK-NEXT: hl.table16{{.*}}npu.program = @npu_0
// CHECK-NOT: npuhw.program @npu_1
// CHECK: npuhw.program @npu_0 attributes {bindings = [#npuhw.binding<name = "input", size = 1600, writable = false>, #npuhw.binding<name = "w", size = 144, writable = false>, #npuhw.binding<name = "sb", size = 48, writable = false>, #npuhw.binding<name = "t", size = 1026, writable = false>, #npuhw.binding<name = "w2", size = 144, writable = false>, #npuhw.binding<name = "sb2", size = 48, writable = false>, #npuhw.binding<name = "t2", size = 1026, writable = false>, #npuhw.binding<name = "output", size = 1600, writable = true>]
// CHECK: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 1026>, {{.*}}lram_address = [[T1:[0-9]+]] : i64{{.*}}name = "table"
// CHECK: kernel = "conv2d", lut = #npuhw.operand<address = [[T1]], dims = [513], strides = [2]>
// CHECK: npuhw.dma_load {binding = 6 : i32, counts = array<i64: 1026>, {{.*}}lram_address = [[T2:[0-9]+]] : i64{{.*}}name = "table"
// CHECK-NOT: dma_store {binding = 3
// CHECK: kernel = "conv2d", lut = #npuhw.operand<address = [[T2]], dims = [513], strides = [2]>
// CHECK-NOT: kernel = "table"
// CHECK: npuhw.dma_store {binding = 7 : i32
// Without the chains: two conv + table16 dispatches (the table16 folded
// into each whether or not fold-tables is set).
// NOCHAIN: hl.conv2d{{.*}}npu.dispatch_group
// NOCHAIN-NEXT: hl.table16{{.*}}npu.program = @npu_0
// NOCHAIN-NEXT: hl.conv2d{{.*}}npu.dispatch_group
// NOCHAIN-NEXT: hl.table16{{.*}}npu.program = @npu_1

!q16 = !quant.uniform<i16:f32, 0.002:-300>
!q8 = !quant.uniform<i8:f32, 0.05:-3>
func.func @main(%x: tensor<1x4x20x20xi8>) -> tensor<1x4x20x20x!q8> {
  %w = top.Weight() {name = "w"} : () -> tensor<1x4x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<513xi16>
  %w2 = top.Weight() {name = "w2"} : () -> tensor<1x4x3x3x4xi8>
  %sb2 = top.Weight() {name = "sb2"} : () -> tensor<4x3xi32>
  %t2 = top.Weight() {name = "t2"} : () -> tensor<513xi16>
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_zp = -300 : i64, clip_min = -32768 : i64, clip_max = 32767 : i64} : (tensor<1x4x20x20xi8>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x20x20x!q16>
  %1 = hl.table16(%0, %t) : (tensor<1x4x20x20x!q16>, tensor<513xi16>) -> tensor<1x4x20x20x!q8>
  %2 = hl.conv2d(%1, %w2, %sb2) {input_zp = -3 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_zp = -300 : i64, clip_min = -32768 : i64, clip_max = 32767 : i64} : (tensor<1x4x20x20x!q8>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x20x20x!q16>
  %3 = hl.table16(%2, %t2) : (tensor<1x4x20x20x!q16>, tensor<513xi16>) -> tensor<1x4x20x20x!q8>
  return %3 : tensor<1x4x20x20x!q8>
}
