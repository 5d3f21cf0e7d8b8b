// RUN: strata-opt %s --convert-hl-to-hw --split-input-file | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json" --split-input-file | FileCheck %s --check-prefix=TILED
// hl.resize_nearest and hl.concat are DMA only (LowerMovement.cpp).
// Exactness (npu-sim against run-ref) is checked in
// test/npulower/test_npulower_detector.py.

// A 2x3 upscale: the load takes the source planes, one store per repeated
// row (dram_offset r * OW), each repeating columns through an LRAM stride
// of 0.
// CHECK-LABEL: func.func @up
// CHECK: hl.resize_nearest(%arg0) {npu.program = @npu_0_up}
// CHECK: npuhw.program @npu_0_up attributes {bindings = [#npuhw.binding<name = "input", size = 18, writable = false>, #npuhw.binding<name = "output", size = 108, writable = true>]
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 3, 2, 3>, dram_strides = array<i64: 6, 3, 1>, lram_address = 0 : i64, lram_strides = array<i64: 6, 3, 1>
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 3, 2, 3, 3>, dram_strides = array<i64: 36, 18, 3, 1>, lram_address = 0 : i64, lram_strides = array<i64: 6, 3, 1, 0>
// CHECK-NEXT: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 3, 2, 3, 3>, dram_offset = 9 : i64, dram_strides = array<i64: 36, 18, 3, 1>
// CHECK-NOT: npuhw.slice_task
func.func @up(%x: tensor<1x3x2x3xi8>) -> tensor<1x3x4x9xi8> {
  %y = hl.resize_nearest(%x) : (tensor<1x3x2x3xi8>) -> tensor<1x3x4x9xi8> loc("up")
  return %y : tensor<1x3x4x9xi8>
}

// -----

// A 2x downscale: every second row and column, picked by the load's DRAM
// strides.
// CHECK-LABEL: func.func @down
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 2, 3, 2>, dram_strides = array<i64: 24, 8, 2>, lram_address = 0 : i64, lram_strides = array<i64: 6, 2, 1>
// CHECK: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 2, 3, 2, 1>, dram_strides = array<i64: 6, 2, 1, 1>
func.func @down(%x: tensor<1x2x6x4xi8>) -> tensor<1x2x3x2xi8> {
  %y = hl.resize_nearest(%x) : (tensor<1x2x6x4xi8>) -> tensor<1x2x3x2xi8> loc("down")
  return %y : tensor<1x2x3x2xi8>
}

// -----

// A channel concat: each input stored at its column offset of the
// [outer, sum inner] view (input 1 after input 0's 18 bytes per image).
// CHECK-LABEL: func.func @cat
// CHECK: npuhw.program @npu_0_cat attributes {bindings = [#npuhw.binding<name = "input0", size = 36, writable = false>, #npuhw.binding<name = "input1", size = 90, writable = false>, #npuhw.binding<name = "output", size = 126, writable = true>]
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 2, 18>
// CHECK: npuhw.dma_store {binding = 2 : i32, counts = array<i64: 2, 18>, dram_strides = array<i64: 63, 1>
// CHECK: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 2, 45>
// CHECK: npuhw.dma_store {binding = 2 : i32, counts = array<i64: 2, 45>, dram_offset = 18 : i64, dram_strides = array<i64: 63, 1>
// TILED-LABEL: func.func @cat
func.func @cat(%a: tensor<2x2x3x3xi8>, %b: tensor<2x5x3x3xi8>) -> tensor<2x7x3x3xi8> {
  %y = hl.concat(%a, %b) {axis = 1 : i64} : (tensor<2x2x3x3xi8>, tensor<2x5x3x3xi8>) -> tensor<2x7x3x3xi8> loc("cat")
  return %y : tensor<2x7x3x3xi8>
}

// -----

// A 4 KiB LRAM: the 4500-byte row of input 1 goes in pieces of 4096.
// TILED-LABEL: func.func @cat_big
// TILED: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 1, 4096>
// TILED: npuhw.dma_store {binding = 2 : i32, counts = array<i64: 1, 4096>, dram_offset = 1800 : i64, dram_strides = array<i64: 6300, 1>
// TILED: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 1, 404>, dram_offset = 4096 : i64
func.func @cat_big(%a: tensor<1x2x30x30xi8>, %b: tensor<1x5x30x30xi8>) -> tensor<1x7x30x30xi8> {
  %y = hl.concat(%a, %b) {axis = 1 : i64} : (tensor<1x2x30x30xi8>, tensor<1x5x30x30xi8>) -> tensor<1x7x30x30xi8> loc("cat_big")
  return %y : tensor<1x7x30x30xi8>
}


// -----

// A 2 -> 3 upsample is no integer scale: the resize_nearest task over
// whole channel planes in LRAM, split over the slices by channels.
// CHECK-LABEL: func.func @odd
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 12>
// CHECK: npuhw.slice_task {input = #npuhw.operand<address = 0, dims = [1, 1, 2, 3], strides = [6, 6, 3, 1]>, kernel = "resize_nearest", name = "chunk0.s0", output = #npuhw.operand<address = 64, dims = [1, 1, 3, 3], strides = [9, 9, 3, 1]>}
// CHECK: npuhw.slice_task {input = #npuhw.operand<address = 6, {{.*}}slice = 1 : i32}
// CHECK: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 18>, {{.*}}lram_address = 64
func.func @odd(%x: tensor<1x2x2x3xi8>) -> tensor<1x2x3x3xi8> {
  %y = hl.resize_nearest(%x) : (tensor<1x2x2x3xi8>) -> tensor<1x2x3x3xi8> loc("odd")
  return %y : tensor<1x2x3x3xi8>
}

// -----

// A 60x60 plane upsampled 2x does not fit a 4 KiB LRAM repeated (7200
// bytes): chunks of 34 source rows (4096 / 120), each stored twice.
// TILED-LABEL: func.func @up_rows
// TILED: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 34, 60>
// TILED: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 34, 60, 2>, dram_strides = array<i64: 14400, 240, 2, 1>
// TILED: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 34, 60, 2>, dram_offset = 120 : i64
// TILED: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 26, 60>, dram_offset = 2040 : i64
// TILED: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 26, 60, 2>, dram_offset = 8160 : i64
func.func @up_rows(%x: tensor<1x1x60x60xi8>) -> tensor<1x1x120x120xi8> {
  %y = hl.resize_nearest(%x) : (tensor<1x1x60x60xi8>) -> tensor<1x1x120x120xi8> loc("up_rows")
  return %y : tensor<1x1x120x120xi8>
}
