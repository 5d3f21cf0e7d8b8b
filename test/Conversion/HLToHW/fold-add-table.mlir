// RUN: strata-opt %s --convert-hl-to-hw="fuse-dispatches=true fold-tables=true" --split-input-file | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw="fuse-dispatches=true" --split-input-file | FileCheck %s --check-prefix=NOFOLD
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json fuse-dispatches=true fold-tables=true double-buffer=true" --split-input-file | FileCheck %s --check-prefix=SMALL
// A conv, its residual add and the table after the add in one dispatch
// (docs/npu.md, "Multi-op dispatches"); the values are checked bit-exactly
// in test/npulower/test_npulower_add_table.py.

// A 1x1 conv 8 -> 8 on 6x6, a residual add (the conv is the rhs), a
// per-channel table (8x256): the conv and the add are marked to be
// outlined with the table, which holds the program. Bindings: the conv's
// operands, the residual, the table, the table's result. Per slice: the
// conv task (no lookup in its activation unit), the add over the residual,
// then a table task on the sum in place (its channels' rows), then the
// store of the sum.
// CHECK-LABEL: func.func @conv_add_table
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK: hl.add{{.*}}npu.dispatch_group
// CHECK-NOT: npu.program
// CHECK: hl.table{{.*}}npu.program = @npu_0_conv
// CHECK-NOT: npuhw.program @npu_1
// CHECK: npuhw.program @npu_0_conv
// CHECK-SAME: #npuhw.binding<name = "input", size = 288, writable = false>
// CHECK-SAME: #npuhw.binding<name = "w", size = 64, writable = false>
// CHECK-SAME: #npuhw.binding<name = "sb", size = 96, writable = false>
// CHECK-SAME: #npuhw.binding<name = "residual", size = 288, writable = false>
// CHECK-SAME: #npuhw.binding<name = "t", size = 2048, writable = false>
// CHECK-SAME: #npuhw.binding<name = "output", size = 288, writable = true>
// CHECK: npuhw.dma_load {binding = 4 : i32, counts = array<i64: 2048>, {{.*}}lram_address = [[LUT:[0-9]+]] : i64{{.*}}name = "table"
// CHECK: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 1, 4, 36>{{.*}}lram_address = [[R0:[0-9]+]] : i64{{.*}}name = "residual"
// CHECK-NEXT: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 1, 4, 36>, dram_offset = 144 : i64{{.*}}lram_address = [[R1:[0-9]+]] : i64{{.*}}name = "residual"
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.slice_task
// CHECK-NOT: lut =
// CHECK-SAME: kernel = "conv2d", name = "tile0.s0", output = #npuhw.operand<address = [[O0:[0-9]+]], dims = [1, 4, 6, 6]
// CHECK-NEXT: npuhw.slice_task {input = #npuhw.operand<address = [[R0]], dims = [144]{{.*}}input2 = #npuhw.operand<address = [[O0]], dims = [144]{{.*}}kernel = "add", {{.*}}name = "tile0.add.s0", output = #npuhw.operand<address = [[R0]], dims = [144]
// CHECK-NEXT: npuhw.slice_task {input = #npuhw.operand<address = [[R0]], dims = [1, 4, 36], strides = [144, 36, 1]>, kernel = "table", lut = #npuhw.operand<address = [[LUT]], dims = [4, 256], strides = [256, 1]>, name = "tile0.table.s0", output = #npuhw.operand<address = [[R0]], dims = [1, 4, 36], strides = [144, 36, 1]>}
// CHECK-NEXT: npuhw.slice_task {{.*}}kernel = "conv2d", name = "tile0.s1"
// CHECK-NEXT: npuhw.slice_task {{.*}}kernel = "add"{{.*}}name = "tile0.add.s1", output = #npuhw.operand<address = [[R1]]
// CHECK-NEXT: npuhw.slice_task {input = #npuhw.operand<address = [[R1]], dims = [1, 4, 36], strides = [144, 36, 1]>, kernel = "table", lut = #npuhw.operand<address = {{[0-9]+}}, dims = [4, 256], strides = [256, 1]>, name = "tile0.table.s1", output = #npuhw.operand<address = [[R1]], {{.*}}slice = 1 : i32}
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.dma_store {binding = 5 : i32, counts = array<i64: 1, 4, 36>{{.*}}lram_address = [[R0]]
// CHECK-NEXT: npuhw.dma_store {binding = 5 : i32, counts = array<i64: 1, 4, 36>, dram_offset = 144 : i64{{.*}}lram_address = [[R1]]
// Without fold-tables: the conv and the add, then the table's dispatch.
// NOFOLD-LABEL: func.func @conv_add_table
// NOFOLD: hl.conv2d{{.*}}npu.dispatch_group
// NOFOLD: hl.add{{.*}}npu.program = @npu_0_conv
// NOFOLD: hl.table{{.*}}npu.program = @npu_1_act
func.func @conv_add_table(%x: tensor<1x8x6x6xi8>, %r: tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<2x8x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<8x3xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<8x256xi8>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = -3, output_zp = 5} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("conv")
  %s = hl.add(%r, %y) {lhs_multiplier = 1073741824 : i64, lhs_shift = 10 : i64, lhs_zp = 2 : i64, rhs_multiplier = 1500000000 : i64, rhs_shift = 11 : i64, rhs_zp = -5 : i64, output_multiplier = 1700000000 : i64, output_shift = 51 : i64, output_zp = 1 : i64} : (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> loc("sum")
  %o = hl.table(%s, %t) {lut_entries = 256 : i64} : (tensor<1x8x6x6xi8>, tensor<8x256xi8>) -> tensor<1x8x6x6xi8> loc("act")
  return %o : tensor<1x8x6x6xi8>
}

// -----

// One table (256 entries): loaded once, every table task reads it all.
// An add whose result has another user keeps its table apart.
// CHECK-LABEL: func.func @one_table
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK: hl.add{{.*}}npu.dispatch_group
// CHECK: hl.table{{.*}}npu.program = @npu_0
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK: hl.add{{.*}}npu.program = @npu_1
// CHECK: hl.table{{.*}}npu.program = @npu_2
// CHECK: npuhw.program @npu_0
// CHECK: npuhw.dma_load {binding = 4 : i32, counts = array<i64: 256>, {{.*}}lram_address = [[LUT:[0-9]+]] : i64{{.*}}name = "table"
// CHECK-NOT: name = "table"
// CHECK: kernel = "table", lut = #npuhw.operand<address = [[LUT]], dims = [256], strides = [1]>
// CHECK: kernel = "table", lut = #npuhw.operand<address = [[LUT]], dims = [256], strides = [1]>
// CHECK: npuhw.program @npu_1
func.func @one_table(%x: tensor<1x8x6x6xi8>, %r: tensor<1x8x6x6xi8>) -> (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) {
  %w = top.Weight() {name = "w"} : () -> tensor<2x8x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<8x3xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<256xi8>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8>
  %s = hl.add(%y, %r) {lhs_multiplier = 1073741824 : i64, lhs_shift = 10 : i64, lhs_zp = 2 : i64, rhs_multiplier = 1500000000 : i64, rhs_shift = 11 : i64, rhs_zp = -5 : i64, output_multiplier = 1700000000 : i64, output_shift = 51 : i64, output_zp = 1 : i64} : (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8>
  %o = hl.table(%s, %t) {lut_entries = 256 : i64} : (tensor<1x8x6x6xi8>, tensor<256xi8>) -> tensor<1x8x6x6xi8>
  %y2 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8>
  %s2 = hl.add(%y2, %r) {lhs_multiplier = 1073741824 : i64, lhs_shift = 10 : i64, lhs_zp = 2 : i64, rhs_multiplier = 1500000000 : i64, rhs_shift = 11 : i64, rhs_zp = -5 : i64, output_multiplier = 1700000000 : i64, output_shift = 51 : i64, output_zp = 1 : i64} : (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8>
  %o2 = hl.table(%s2, %t) {lut_entries = 256 : i64} : (tensor<1x8x6x6xi8>, tensor<256xi8>) -> tensor<1x8x6x6xi8>
  return %o, %o2, %s2 : tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>
}

// -----

// 4 KiB, double-buffered: a 16 -> 9 3x3 conv on 16x16, tiled (channels,
// rows, reduction); each buffer set loads its channel tile's table rows
// (binding 4, DRAM offset c0 * 256) with its scale_bias rows, and the table
// task after the last reduction tile's add reads its set's rows.
// SMALL-LABEL: func.func @tiled
// SMALL: hl.table{{.*}}npu.program = @npu_0
// SMALL: npuhw.dma_load {binding = 4 : i32, counts = array<i64: 1024>, {{.*}}name = "table"}
// SMALL: npuhw.dma_load {binding = 4 : i32, counts = array<i64: 1024>, {{.*}}lram_address = [[LUT1:[0-9]+]] : i64, {{.*}}name = "table"}
// SMALL-NOT: kernel = "table"
// SMALL: kernel = "add"{{.*}}name = "tile3.add.s0"
// SMALL-NEXT: kernel = "table", lut = #npuhw.operand<address = [[LUT1]], dims = [4, 256], strides = [256, 1]>, name = "tile3.table.s0"
// SMALL: npuhw.dma_store {binding = 5 : i32
// SMALL: npuhw.dma_load {binding = 4 : i32, counts = array<i64: 1024>, dram_offset = 1024 : i64, {{.*}}name = "table"}
func.func @tiled(%x: tensor<1x16x16x16xi8>, %r: tensor<1x9x16x16xi8>) -> tensor<1x9x16x16xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<3x16x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<9x3xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<9x256xi8>
  %y = hl.conv2d(%x, %w, %sb) {dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x16x16xi8>, tensor<3x16x3x3x4xi8>, tensor<9x3xi32>) -> tensor<1x9x16x16xi8>
  %s = hl.add(%y, %r) {lhs_multiplier = 1073741824 : i64, lhs_shift = 10 : i64, lhs_zp = 2 : i64, rhs_multiplier = 1500000000 : i64, rhs_shift = 11 : i64, rhs_zp = -5 : i64, output_multiplier = 1700000000 : i64, output_shift = 51 : i64, output_zp = 1 : i64} : (tensor<1x9x16x16xi8>, tensor<1x9x16x16xi8>) -> tensor<1x9x16x16xi8>
  %o = hl.table(%s, %t) {lut_entries = 256 : i64} : (tensor<1x9x16x16xi8>, tensor<9x256xi8>) -> tensor<1x9x16x16xi8>
  return %o : tensor<1x9x16x16xi8>
}
