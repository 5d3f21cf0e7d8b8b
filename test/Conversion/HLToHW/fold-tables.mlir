// RUN: strata-opt %s --convert-hl-to-hw --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: strata-opt %s --convert-hl-to-hw="fold-tables=true" --split-input-file | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json fold-tables=true double-buffer=true" --split-input-file | FileCheck %s --check-prefix=SMALL
// (SMALL checks only @tiled.)
// Per-channel tables and the table folded into its convolution's dispatch
// (docs/npu.md, "Multi-op dispatches"); the values are checked bit-exactly
// in test/npulower/test_npulower_channel_table.py.

// A conv with per-channel output zero points (scale_bias 5x4) then a
// per-channel table (5x256).
// Apart: the conv's tasks read 4-column scale_bias rows; the table's
// program loads the whole table once and each `table` task reads its
// channels' rows.
// OFF-LABEL: func @conv_channel_table
// OFF: hl.conv2d{{.*}}npu.program = @npu_0
// OFF: hl.table{{.*}}npu.program = @npu_1
// OFF: npuhw.program @npu_0
// OFF: scale_bias = #npuhw.operand<address = {{[0-9]+}}, dims = [5, 4], strides = [16, 4]>
// OFF: npuhw.program @npu_1 attributes {bindings = [#npuhw.binding<name = "input", size = 80, writable = false>, #npuhw.binding<name = "t", size = 1280, writable = false>, #npuhw.binding<name = "output", size = 80, writable = true>]
// OFF: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 1280>, {{.*}} name = "table"}
// OFF: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 5, 16>
// OFF: kernel = "table", lut = #npuhw.operand<address = 0, dims = [2, 256], strides = [256, 1]>
// OFF: kernel = "table", lut = #npuhw.operand<address = 512, dims = [3, 256], strides = [256, 1]>
// Folded: one program on the table (the conv in its dispatch group), bound
// input, weights, scale_bias, table, output; each conv task looks its
// result up in its channels' rows.
// CHECK-LABEL: func @conv_channel_table
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK: hl.table{{.*}}npu.program = @npu_0
// CHECK-NOT: npuhw.program @npu_1
// CHECK: npuhw.program @npu_0 attributes {bindings = [#npuhw.binding<name = "input", size = 48, writable = false>, #npuhw.binding<name = "w", size = 24, writable = false>, #npuhw.binding<name = "sb", size = 80, writable = false>, #npuhw.binding<name = "t", size = 1280, writable = false>, #npuhw.binding<name = "output", size = 80, writable = true>]
// CHECK: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 1280>, dram_strides = array<i64: 1>, lram_address = [[LUT:[0-9]+]] : i64, {{.*}} name = "table"}
// CHECK: kernel = "conv2d", lut = #npuhw.operand<address = [[LUT]], dims = [4, 256], strides = [256, 1]>
// CHECK-SAME: scale_bias = #npuhw.operand<address = {{[0-9]+}}, dims = [4, 4], strides = [16, 4]>
// CHECK: kernel = "conv2d", lut = #npuhw.operand<address = {{[0-9]+}}, dims = [1, 256], strides = [256, 1]>
// CHECK-NOT: kernel = "table"
// CHECK: npuhw.dma_store {binding = 4 : i32
func.func @conv_channel_table(%x: tensor<1x3x4x4xi8>) -> tensor<1x5x4x4xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<5x4xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<5x256xi8>
  %y = hl.conv2d(%x, %w, %sb) {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x4x4xi8>, tensor<2x3x1x1x4xi8>, tensor<5x4xi32>) -> tensor<1x5x4x4xi8>
  %o = hl.table(%y, %t) {lut_entries = 256 : i64} : (tensor<1x5x4x4xi8>, tensor<5x256xi8>) -> tensor<1x5x4x4xi8>
  return %o : tensor<1x5x4x4xi8>
}

// -----

// One table (today's per-tensor form): folded, it is loaded once and every
// task reads all 256 entries.
// A table after a depthwise conv folds too; one whose conv result has
// another user does not.
// CHECK-LABEL: func @conv_one_table
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK: hl.depthwise_conv2d{{.*}}npu.dispatch_group
// CHECK: hl.conv2d{{.*}}npu.program = @npu_2
// CHECK: hl.table{{.*}}npu.program = @npu_3
// CHECK: npuhw.program @npu_0
// CHECK: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 256>, dram_strides = array<i64: 1>, lram_address = [[LUT:[0-9]+]] : i64, {{.*}} name = "table"}
// CHECK-NOT: name = "table"
// CHECK: lut = #npuhw.operand<address = [[LUT]], dims = [256], strides = [1]>
// CHECK: lut = #npuhw.operand<address = [[LUT]], dims = [256], strides = [1]>
// CHECK: npuhw.program @npu_1
func.func @conv_one_table(%x: tensor<1x3x4x4xi8>) -> (tensor<1x5x4x4xi8>, tensor<1x3x4x4xi8>, tensor<1x5x4x4xi8>, tensor<1x5x4x4xi8>) {
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<5x3xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<256xi8>
  %y = hl.conv2d(%x, %w, %sb) {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x4x4xi8>, tensor<2x3x1x1x4xi8>, tensor<5x3xi32>) -> tensor<1x5x4x4xi8>
  %o = hl.table(%y, %t) {lut_entries = 256 : i64} : (tensor<1x5x4x4xi8>, tensor<256xi8>) -> tensor<1x5x4x4xi8>
  %dw = top.Weight() {name = "dw"} : () -> tensor<1x3x3x4xi8>
  %dsb = top.Weight() {name = "dsb"} : () -> tensor<3x3xi32>
  %d = hl.depthwise_conv2d(%x, %dw, %dsb) {dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x3x4x4xi8>, tensor<1x3x3x4xi8>, tensor<3x3xi32>) -> tensor<1x3x4x4xi8>
  %do = hl.table(%d, %t) {lut_entries = 256 : i64} : (tensor<1x3x4x4xi8>, tensor<256xi8>) -> tensor<1x3x4x4xi8>
  %y2 = hl.conv2d(%x, %w, %sb) {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x4x4xi8>, tensor<2x3x1x1x4xi8>, tensor<5x3xi32>) -> tensor<1x5x4x4xi8>
  %o2 = hl.table(%y2, %t) {lut_entries = 256 : i64} : (tensor<1x5x4x4xi8>, tensor<256xi8>) -> tensor<1x5x4x4xi8>
  return %o, %do, %o2, %y2 : tensor<1x5x4x4xi8>, tensor<1x3x4x4xi8>, tensor<1x5x4x4xi8>, tensor<1x5x4x4xi8>
}

// -----

// 4 KiB, double-buffered: a layer tiled by output channels; each channel
// tile loads its table rows (DRAM offset c0 * 256) with its scale_bias rows.
// SMALL-LABEL: func @tiled
// SMALL: hl.table{{.*}}npu.program = @npu_0
// SMALL: npuhw.dma_load {binding = 2 : i32, counts = array<i64: [[SB:[0-9]+]]>, {{.*}} name = "scale_bias"}
// SMALL: npuhw.dma_load {binding = 3 : i32, counts = array<i64: [[ROWS:[0-9]+]]>, {{.*}} name = "table"}
// SMALL: npuhw.dma_load {binding = 3 : i32, counts = array<i64: {{[0-9]+}}>, dram_offset = [[ROWS]] : i64, {{.*}} name = "table"}
// SMALL-NOT: kernel = "table"
func.func @tiled(%x: tensor<1x16x16x16xi8>) -> tensor<1x9x16x16xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<3x16x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<9x4xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<9x256xi8>
  %y = hl.conv2d(%x, %w, %sb) {dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x16x16xi8>, tensor<3x16x3x3x4xi8>, tensor<9x4xi32>) -> tensor<1x9x16x16xi8>
  %o = hl.table(%y, %t) {lut_entries = 256 : i64} : (tensor<1x9x16x16xi8>, tensor<9x256xi8>) -> tensor<1x9x16x16xi8>
  return %o : tensor<1x9x16x16xi8>
}

// -----

// Over a segmented input (stride 2): the last phase task of each piece
// (p3) looks its result up; the earlier phases write int32 partials.
// CHECK-LABEL: func @segmented
// CHECK: hl.conv2d{{.*}}npu.dispatch_group{{.*}}segments = 2
// CHECK: hl.table{{.*}}npu.program = @npu_1
// CHECK: npuhw.program @npu_1 attributes {bindings = [#npuhw.binding<name = "input", size = 300, writable = false>, #npuhw.binding<name = "w", size = 216, writable = false>, #npuhw.binding<name = "sb", size = 80, writable = false>, #npuhw.binding<name = "t", size = 1280, writable = false>, #npuhw.binding<name = "output", size = 80, writable = true>]
// CHECK: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 1280>, {{.*}}lram_address = [[LUT:[0-9]+]] : i64, {{.*}} name = "table"}
// CHECK-NOT: lut =
// CHECK: kernel = "conv2d", lut = #npuhw.operand<address = [[LUT]], dims = [4, 256], strides = [256, 1]>, name = "tile0.s0.p3"
// CHECK: npuhw.dma_store {binding = 4 : i32
func.func @segmented(%x: tensor<1x3x8x8xi8>) -> tensor<1x5x4x4xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<5x4xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<5x256xi8>
  %s = hl.segmentation(%x) {pad = array<i64: 1, 1, 1, 1>, pad_value = 0 : i64, stride = 2 : i64} : (tensor<1x3x8x8xi8>) -> tensor<1x3x4x5x5xi8>
  %y = hl.conv2d(%s, %w, %sb) {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, segments = 2 : i64, stride = array<i64: 2, 2>} : (tensor<1x3x4x5x5xi8>, tensor<2x3x3x3x4xi8>, tensor<5x4xi32>) -> tensor<1x5x4x4xi8>
  %o = hl.table(%y, %t) {lut_entries = 256 : i64} : (tensor<1x5x4x4xi8>, tensor<5x256xi8>) -> tensor<1x5x4x4xi8>
  return %o : tensor<1x5x4x4xi8>
}
