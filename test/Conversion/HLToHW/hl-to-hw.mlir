// RUN: strata-opt %s --convert-hl-to-hw --split-input-file | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json" --split-input-file | FileCheck %s --check-prefix=TILED
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json double-buffer=true" --split-input-file | FileCheck %s --check-prefix=DB
// Exactness (npu-sim against run-ref) is checked in
// test/npulower/test_npulower_kernels.py.

// A 3x3 conv, 3 -> 5 channels (two weight blocks of B = 4): it fits LRAM,
// so one tile: weights, scale_bias and input are loaded at aligned
// addresses (lram_alignment 64), each slice computes one weight block (a
// split by output channels) into its own LRAM piece, stored separately.
// CHECK-LABEL: func.func @conv
// CHECK: hl.conv2d{{.*}}npu.program = @npu_0_conv1
// CHECK: npuhw.program @npu_0_conv1
// CHECK-SAME: #npuhw.binding<name = "input", size = 75, writable = false>
// CHECK-SAME: #npuhw.binding<name = "w", size = 216, writable = false>
// CHECK-SAME: #npuhw.binding<name = "sb", size = 60, writable = false>
// CHECK-SAME: #npuhw.binding<name = "output", size = 125, writable = true>
// CHECK: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 216>{{.*}}lram_address = 0 : i64
// CHECK: npuhw.dma_load {binding = 2 : i32, counts = array<i64: 60>{{.*}}lram_address = 256 : i64
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 3, 25>{{.*}}lram_address = 320 : i64
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.slice_task {{.*}}input = #npuhw.operand<address = 320, dims = [1, 3, 5, 5]{{.*}}kernel = "conv2d", name = "tile0.s0", output = #npuhw.operand<address = 448, dims = [1, 4, 5, 5]{{.*}}pad = array<i64: 1, 1, 1, 1>, scale_bias = #npuhw.operand<address = 256, dims = [4, 3]{{.*}}weights = #npuhw.operand<address = 0, dims = [1, 3, 3, 3, 4]
// CHECK-NEXT: npuhw.slice_task {{.*}}name = "tile0.s1", output = #npuhw.operand<address = 548, dims = [1, 1, 5, 5]{{.*}}scale_bias = #npuhw.operand<address = 304, dims = [1, 3]{{.*}}slice = 1 : i32, weights = #npuhw.operand<address = 108
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.dma_store {binding = 3 : i32, counts = array<i64: 1, 4, 25>{{.*}}lram_address = 448
// CHECK-NEXT: npuhw.dma_store {binding = 3 : i32, counts = array<i64: 1, 1, 25>, dram_offset = 100 : i64{{.*}}lram_address = 548
func.func @conv(%x: tensor<1x3x5x5xi8>) -> tensor<1x5x5x5xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<5x3xi32>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = -3, output_zp = 5, clip_min = 5} : (tensor<1x3x5x5xi8>, tensor<2x3x3x3x4xi8>, tensor<5x3xi32>) -> tensor<1x5x5x5xi8> loc("conv1")
  return %y : tensor<1x5x5x5xi8>
}

// -----

// A depthwise 3x3 on 8 channels of 40x40 (12.8 KiB in, 12.8 KiB out): in a
// 4 KiB LRAM it is tiled by output rows (input rows with their halo, the
// tile's own pad: top only on the first tile, bottom only on the last).
// The default LRAM takes it whole.
// CHECK-LABEL: func.func @dw
// CHECK: npuhw.program @npu_0
// CHECK-NOT: tile1.
// TILED-LABEL: func.func @dw
// TILED: npuhw.program @npu_0
// TILED: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 4, [[ROWS0:[0-9]+]]>, dram_strides = array<i64: 12800, 1600, 1>
// TILED: npuhw.slice_task {{.*}}kernel = "depthwise_conv2d", name = "tile0.s0"{{.*}}pad = array<i64: 1, 1, 0, 1>
// TILED: name = "tile1.s0"{{.*}}pad = array<i64: 0, 1, 0, 1>
// TILED: pad = array<i64: 0, 1, 1, 1>
// TILED-NOT: npuhw.slice_task
// TILED: npuhw.dma_store
// TILED-NOT: npuhw.slice_task
// TILED: }
// Double-buffered: tile k+1's loads sit between tile k's slice tasks and
// the next wait, and tile k-1's store too.
// DB-LABEL: func.func @dw
// DB: name = "tile0.s1"
// DB-NEXT: npuhw.dma_load {binding = 1
// DB-NEXT: npuhw.dma_load {binding = 2
// DB-NEXT: npuhw.dma_load {binding = 0
// DB-NEXT: npuhw.wait
// DB: name = "tile1.s1"
// DB-NEXT: npuhw.dma_load {binding = 0
// DB-NEXT: npuhw.dma_store
func.func @dw(%x: tensor<1x8x40x40xi8>) -> tensor<1x8x40x40xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<2x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<8x3xi32>
  %y = hl.depthwise_conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x40x40xi8>, tensor<2x3x3x4xi8>, tensor<8x3xi32>) -> tensor<1x8x40x40xi8>
  return %y : tensor<1x8x40x40xi8>
}


// -----

// A fully connected layer whose one weight block (1200 inputs x 4 = 4800
// bytes) exceeds a 4 KiB LRAM: the reduction is tiled. The first tile
// writes int32 partials (bias included), the last reads them and writes
// int8; the weights of each tile are a strided gather of input channels
// from every block.
// CHECK-LABEL: func.func @fc
// CHECK-NOT: partial
// CHECK: kernel = "fully_connected"
// TILED-LABEL: func.func @fc
// TILED: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 1, 2400>, dram_strides = array<i64: 4800, 1>
// TILED: npuhw.slice_task {{.*}}name = "tile0.k0.s0", output = #npuhw.operand<address = [[ACC:[0-9]+]], dims = [1, 4], strides = [16, 4]>, output_format = "int32"
// TILED: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 1, 2400>, dram_offset = 2400 : i64
// TILED: npuhw.slice_task {{.*}}name = "tile1.k600.s0", output = #npuhw.operand<address = {{[0-9]+}}, dims = [1, 4], strides = [4, 1]>, partial = #npuhw.operand<address = [[ACC]], dims = [1, 4], strides = [16, 4]>
// TILED-NOT: output_format
// TILED: npuhw.dma_store
func.func @fc(%x: tensor<1x1200xi8>) -> tensor<1x4xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<1x1200x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
  %y = hl.fully_connected(%x, %w, %sb) : (tensor<1x1200xi8>, tensor<1x1200x4xi8>, tensor<4x3xi32>) -> tensor<1x4xi8>
  return %y : tensor<1x4xi8>
}
