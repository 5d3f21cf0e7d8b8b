// RUN: strata-opt %s --convert-hl-to-hw="prefetch-weights=true" --split-input-file | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw --split-input-file | FileCheck %s --check-prefix=OFF
// conv -> conv dispatches with next-layer weight prefetch (docs/npu.md,
// "Multi-op dispatches"): a 1x1 conv whose only user is a 3x3 conv shares
// its program. The first keeps its output in LRAM (no store), the second
// reads it there (no input load), and the second's weights and scale_bias
// are loaded in the first's segment after its slice tasks, into LRAM the
// first never touches, so they overlap its compute. Exactness:
// test/npulower/test_npulower_chain.py.

// CHECK-LABEL: func.func @chain
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK: hl.conv2d{{.*}}npu.program = @npu_0_a
// CHECK: npuhw.program @npu_0_a
// CHECK-SAME: #npuhw.binding<name = "input", size = 288, writable = false>
// CHECK-SAME: #npuhw.binding<name = "w1", size = 64, writable = false>
// CHECK-SAME: #npuhw.binding<name = "sb1", size = 96, writable = false>
// CHECK-SAME: #npuhw.binding<name = "w2", size = 576, writable = false>
// CHECK-SAME: #npuhw.binding<name = "sb2", size = 96, writable = false>
// CHECK-SAME: #npuhw.binding<name = "output", size = 288, writable = true>
// CHECK: npuhw.segment {
// CHECK-NEXT: npuhw.dma_load {binding = 1 : i32{{.*}}name = "weights"
// CHECK-NEXT: npuhw.dma_load {binding = 2 : i32{{.*}}name = "scale_bias"
// CHECK-NEXT: npuhw.dma_load {binding = 0 : i32{{.*}}name = "input"
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.slice_task {{.*}}kernel = "conv2d", name = "tile0.s0", output = #npuhw.operand<address = [[Y:[0-9]+]], dims = [1, 4, 6, 6]
// CHECK-NEXT: npuhw.slice_task {{.*}}kernel = "conv2d", name = "tile0.s1"
// CHECK-NEXT: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 576>{{.*}}lram_address = [[W2:[0-9]+]] : i64{{.*}}name = "weights"
// CHECK-NEXT: npuhw.dma_load {binding = 4 : i32{{.*}}name = "scale_bias"
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: {{^ *}$}}
// CHECK-NEXT: npuhw.segment {
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.slice_task {input = #npuhw.operand<address = [[Y]], dims = [1, 8, 6, 6]{{.*}}kernel = "conv2d", name = "tile0.s0"{{.*}}weights = #npuhw.operand<address = [[W2]]
// CHECK-NEXT: npuhw.slice_task
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.dma_store {binding = 5 : i32
// CHECK-NEXT: npuhw.dma_store {binding = 5 : i32
// CHECK-NEXT: {{^ *}$}}
// OFF-LABEL: func.func @chain
// OFF-NOT: npu.dispatch_group
// OFF: hl.conv2d{{.*}}npu.program = @npu_0_a
// OFF: hl.conv2d{{.*}}npu.program = @npu_1_b
func.func @chain(%x: tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> {
  %w = top.Weight() {name = "w1"} : () -> tensor<2x8x1x1x4xi8>
  %sb = top.Weight() {name = "sb1"} : () -> tensor<8x3xi32>
  %w2 = top.Weight() {name = "w2"} : () -> tensor<2x8x3x3x4xi8>
  %sb2 = top.Weight() {name = "sb2"} : () -> tensor<8x3xi32>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = -3, output_zp = 5} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("a")
  %z = hl.conv2d(%y, %w2, %sb2) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = 5, output_zp = -2} : (tensor<1x8x6x6xi8>, tensor<2x8x3x3x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("b")
  return %z : tensor<1x8x6x6xi8>
}

// -----

// A conv read by two ops is not chained.
// CHECK-LABEL: func.func @two_users
// CHECK-NOT: npu.dispatch_group
func.func @two_users(%x: tensor<1x8x6x6xi8>) -> (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) {
  %w = top.Weight() {name = "w1"} : () -> tensor<2x8x1x1x4xi8>
  %sb = top.Weight() {name = "sb1"} : () -> tensor<8x3xi32>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = -3, output_zp = 5} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("a")
  %z = hl.conv2d(%y, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = 5, output_zp = -2} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("b")
  return %y, %z : tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>
}
