// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s

// An int8 3x3 convolution (1x3x5x5 -> 1x4x5x5, pad 1) as the NPU runs it:
// load input, packed weights and the scale+bias rows into LRAM, compute on
// slice 0, store the output.

// CHECK-LABEL: npuhw.program @conv3x3
// CHECK-SAME: bindings = [#npuhw.binding<name = "input", size = 75, writable = false>
// CHECK: npuhw.segment {
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 75>, dram_strides = array<i64: 1>, lram_address = 0 : i64, lram_strides = array<i64: 1>}
// CHECK: npuhw.wait
// CHECK: npuhw.slice_task {clip_min = 5 : i64, input = #npuhw.operand<address = 0, dims = [1, 3, 5, 5], strides = [75, 25, 5, 1]>, input_zp = -3 : i64, kernel = "conv2d", name = "conv"
// CHECK-SAME: pad = array<i64: 1, 1, 1, 1>
// CHECK: npuhw.dma_store
npuhw.program @conv3x3 attributes {
  config = {lram_bytes = 524288 : i64, slices = 2 : i64},
  bindings = [#npuhw.binding<name = "input", size = 75, writable = false>,
              #npuhw.binding<name = "weights", size = 108, writable = false>,
              #npuhw.binding<name = "scale_bias", size = 48, writable = false>,
              #npuhw.binding<name = "output", size = 100, writable = true>]} {
  npuhw.segment {
    npuhw.dma_load {binding = 0 : i32, lram_address = 0 : i64, counts = array<i64: 75>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
    npuhw.dma_load {binding = 1 : i32, lram_address = 128 : i64, counts = array<i64: 108>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
    npuhw.dma_load {binding = 2 : i32, lram_address = 256 : i64, counts = array<i64: 48>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
    npuhw.wait
    npuhw.slice_task {kernel = "conv2d", name = "conv",
      input = #npuhw.operand<address = 0, dims = [1, 3, 5, 5], strides = [75, 25, 5, 1]>,
      weights = #npuhw.operand<address = 128, dims = [1, 3, 3, 3, 4], strides = [108, 36, 12, 4, 1]>,
      scale_bias = #npuhw.operand<address = 256, dims = [4, 3], strides = [12, 4]>,
      output = #npuhw.operand<address = 320, dims = [1, 4, 5, 5], strides = [100, 25, 5, 1]>,
      pad = array<i64: 1, 1, 1, 1>, input_zp = -3, output_zp = 5, clip_min = 5, clip_max = 127}
    npuhw.wait
    npuhw.dma_store {binding = 3 : i32, lram_address = 320 : i64, counts = array<i64: 100>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
  }
}
