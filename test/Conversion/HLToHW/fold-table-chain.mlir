// RUN: strata-opt %s --convert-hl-to-hw="fold-tables=true prefetch-weights=true" | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw="fold-tables=true" | FileCheck %s --check-prefix=NOCHAIN
// conv + table -> conv + table in one dispatch (docs/npu.md, "Multi-op
// dispatches"): the first conv's tasks look their results up in its table
// (binding 3) and keep the output in LRAM (never stored), the second conv
// reads it there; its weights, scale_bias and table (bindings 4, 5, 6) are
// prefetched in the first segment, its tasks look up in its table, and only
// the result (binding 7) is stored. The outliner follows the marks: conv,
// table, conv, then the second table holds the program. Values:
// test/npulower/test_npulower_chain.py (test_conv_table_chain).
// CHECK-LABEL: func.func @main
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK-NEXT: hl.table{{.*}}npu.dispatch_group
// CHECK-NEXT: hl.conv2d{{.*}}npu.dispatch_group
// CHECK-NEXT: hl.table{{.*}}npu.program = @npu_0
// CHECK-NOT: npuhw.program @npu_1
// CHECK: npuhw.program @npu_0 attributes {bindings = [#npuhw.binding<name = "input", size = 4096, writable = false>, #npuhw.binding<name = "w", size = 2304, writable = false>, #npuhw.binding<name = "sb", size = 192, writable = false>, #npuhw.binding<name = "t", size = 256, writable = false>, #npuhw.binding<name = "w2", size = 2304, writable = false>, #npuhw.binding<name = "sb2", size = 192, writable = false>, #npuhw.binding<name = "t2", size = 256, writable = false>, #npuhw.binding<name = "output", size = 4096, writable = true>]
// CHECK: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 256>, {{.*}}lram_address = [[T1:[0-9]+]] : i64{{.*}}name = "table"
// CHECK: kernel = "conv2d", lut = #npuhw.operand<address = [[T1]], dims = [256]
// CHECK: npuhw.dma_load {binding = 6 : i32, counts = array<i64: 256>, {{.*}}lram_address = [[T2:[0-9]+]] : i64{{.*}}name = "table"
// CHECK: npuhw.segment
// CHECK-NOT: dma_store {binding = 3
// CHECK-NOT: dma_store {binding = 4
// CHECK: kernel = "conv2d", lut = #npuhw.operand<address = [[T2]], dims = [256]
// CHECK-NOT: kernel = "table"
// CHECK: npuhw.dma_store {binding = 7 : i32
// Without the chains: two conv + table dispatches.
// NOCHAIN: hl.conv2d{{.*}}npu.dispatch_group
// NOCHAIN-NEXT: hl.table{{.*}}npu.program = @npu_0
// NOCHAIN-NEXT: hl.conv2d{{.*}}npu.dispatch_group
// NOCHAIN-NEXT: hl.table{{.*}}npu.program = @npu_1
func.func @main(%x: tensor<1x16x16x16xi8>) -> tensor<1x16x16x16xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<4x16x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<16x3xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<256xi8>
  %w2 = top.Weight() {name = "w2"} : () -> tensor<4x16x3x3x4xi8>
  %sb2 = top.Weight() {name = "sb2"} : () -> tensor<16x3xi32>
  %t2 = top.Weight() {name = "t2"} : () -> tensor<256xi8>
  %y = hl.conv2d(%x, %w, %sb) {dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x16x16xi8>, tensor<4x16x3x3x4xi8>, tensor<16x3xi32>) -> tensor<1x16x16x16xi8>
  %a = hl.table(%y, %t) {lut_entries = 256 : i64} : (tensor<1x16x16x16xi8>, tensor<256xi8>) -> tensor<1x16x16x16xi8>
  %y2 = hl.conv2d(%a, %w2, %sb2) {dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x16x16xi8>, tensor<4x16x3x3x4xi8>, tensor<16x3xi32>) -> tensor<1x16x16x16xi8>
  %a2 = hl.table(%y2, %t2) {lut_entries = 256 : i64} : (tensor<1x16x16x16xi8>, tensor<256xi8>) -> tensor<1x16x16x16xi8>
  return %a2 : tensor<1x16x16x16xi8>
}
