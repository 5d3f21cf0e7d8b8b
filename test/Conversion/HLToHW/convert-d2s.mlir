// RUN: strata-opt %s --convert-hl-to-hw --split-input-file | FileCheck %s
// hl.convert (int8 <-> bf16: the `convert` task over chunks of the flat
// tensor, split over the slices) and hl.depth_to_space (DMA only: each of
// the b^2 channel groups loaded, then stored interleaved by DRAM strides
// b*OW, b). Exactness: test/npulower/test_npulower_convert_d2s.py.

// CHECK-LABEL: npuhw.program @npu_0_dq
// CHECK-SAME: #npuhw.binding<name = "input", size = 10, writable = false>
// CHECK-SAME: #npuhw.binding<name = "output", size = 20, writable = true>
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 10>
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.slice_task {input = #npuhw.operand<address = 0, dims = [5], strides = [1]>, input_zp = -3 : i64, kernel = "convert", name = "chunk0.s0", output = #npuhw.operand<address = [[O:[0-9]+]], dims = [5], strides = [2]>, output_format = "bf16", scale = 2.500000e-01 : f64}
// CHECK-NEXT: npuhw.slice_task {{.*}}kernel = "convert"{{.*}}slice = 1 : i32}
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 10>, dram_strides = array<i64: 2>, element_bytes = 2 : i64, lram_address = [[O]] : i64
func.func @convert(%x: tensor<2x5xi8>) -> tensor<2x5xbf16> {
  %y = hl.convert(%x) {scale = 0.25 : f64, zp = -3 : i64} : (tensor<2x5xi8>) -> tensor<2x5xbf16> loc("dq")
  return %y : tensor<2x5xbf16>
}

// -----

// bf16 -> int8: the zero point is the output's.
// CHECK-LABEL: npuhw.program @npu_0_q
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 6>, dram_strides = array<i64: 2>, element_bytes = 2 : i64
// CHECK: kernel = "convert"{{.*}}output_zp = 7 : i64{{.*}}scale = 5.000000e-01 : f64
// CHECK-NOT: output_format
func.func @quant(%x: tensor<6xbf16>) -> tensor<6xi8> {
  %y = hl.convert(%x) {scale = 0.5 : f64, zp = 7 : i64} : (tensor<6xbf16>) -> tensor<6xi8> loc("q")
  return %y : tensor<6xi8>
}

// -----

// CRD, block 2, 8 -> 2 channels on 2x3: group g = i*2 + j holds input
// channels c*4 + g (DRAM channel stride 4 planes of 6), stored at row
// offset i, column offset j (element offset i*6 + j), strides 2*6, 2.
// CHECK-LABEL: npuhw.program @npu_0_d2s
// CHECK-NOT: slice_task
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 2, 6>, dram_strides = array<i64: 48, 24, 1>
// CHECK-NEXT: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 2, 2, 3>, dram_strides = array<i64: 48, 24, 12, 2>
// CHECK-NEXT: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 2, 6>, dram_offset = 6 : i64
// CHECK-NEXT: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 2, 2, 3>, dram_offset = 1 : i64
// CHECK-NEXT: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 2, 6>, dram_offset = 12 : i64
// CHECK-NEXT: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 2, 2, 3>, dram_offset = 6 : i64
// CHECK-NEXT: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 2, 6>, dram_offset = 18 : i64
// CHECK-NEXT: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 2, 2, 3>, dram_offset = 7 : i64
func.func @d2s(%x: tensor<1x8x2x3xi8>) -> tensor<1x2x4x6xi8> {
  %y = hl.depth_to_space(%x) {block = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xi8>) -> tensor<1x2x4x6xi8> loc("d2s")
  return %y : tensor<1x2x4x6xi8>
}
