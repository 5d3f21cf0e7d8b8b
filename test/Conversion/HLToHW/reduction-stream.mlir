// RUN: strata-opt %s --convert-hl-to-hw="double-buffer=true npu-config=%S/Inputs/lram-48k.json" | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/lram-48k.json" | FileCheck %s --check-prefix=SINGLE
// RUN: strata-opt %s --convert-hl-to-hw="double-buffer=true lram-reuse=true npu-config=%S/Inputs/lram-48k.json" | FileCheck %s --check-prefix=REUSE
// Exactness of these schedules: test/npulower/test_npulower_kernels.py
// (test_reduction_streamed).

// A 1x1 convolution 512 -> 64 on 8x8 (input 32 KiB, weights 32 KiB) on a
// 48 KiB LRAM. Its whole reduction fits (row tiles with the weights
// resident), but double-buffered the planner streams the reduction: each
// tile loads 64 input channels and their weights (a strided gather of every
// block), the first load is 1/8 of the layer and tile k+1's loads sit
// between tile k's slice tasks and the next wait (they overlap its
// compute). The tiles accumulate in int32 partials; the last one writes
// int8 into the one output buffer, stored after the last wait.
// CHECK-LABEL: npuhw.program @npu_0
// CHECK: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 16, 256>, dram_strides = array<i64: 2048, 1>, lram_address = [[W0:[0-9]+]] : i64
// CHECK: npuhw.dma_load {binding = 2
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 64, 64>, {{.*}}lram_address = [[I0:[0-9]+]] : i64
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.slice_task {input = #npuhw.operand<address = [[I0]], {{.*}}name = "tile0.k0.s0", output = #npuhw.operand<address = [[ACC:[0-9]+]], {{.*}}output_format = "int32"{{.*}}weights = #npuhw.operand<address = [[W0]],
// CHECK-NEXT: npuhw.slice_task {{.*}}name = "tile0.k0.s1"
// CHECK-NEXT: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 16, 256>, dram_offset = 256 : i64, {{.*}}lram_address = [[W1:[0-9]+]] : i64
// CHECK-NEXT: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 64, 64>, dram_offset = 4096 : i64, {{.*}}lram_address = [[I1:[0-9]+]] : i64
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.slice_task {input = #npuhw.operand<address = [[I1]], {{.*}}name = "tile1.k64.s0", output = #npuhw.operand<address = [[ACC]], {{.*}}output_format = "int32", partial = #npuhw.operand<address = [[ACC]], {{.*}}weights = #npuhw.operand<address = [[W1]],
// CHECK: name = "tile7.k448.s0", output = #npuhw.operand<address = [[OUT:[0-9]+]], dims = [1, 32, 8, 8], strides = [2048, 64, 8, 1]>, partial = #npuhw.operand<address = [[ACC]],
// CHECK-NEXT: npuhw.slice_task {{.*}}name = "tile7.k448.s1"
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.dma_store {binding = 3 : i32, counts = array<i64: 1, 32, 64>, dram_strides = array<i64: 4096, 64, 1>, lram_address = [[OUT]] : i64
// CHECK-NEXT: npuhw.dma_store {binding = 3
// CHECK-NOT: npuhw.slice_task
// CHECK-LABEL: npuhw.program @npu_1

// Single-buffered the whole reduction is kept (no partials).
// SINGLE-LABEL: npuhw.program @npu_0
// SINGLE-NOT: partial =
// SINGLE-LABEL: npuhw.program @npu_1

// With LRAM reuse the streamed layer's one output buffer is its whole
// output: it stays resident and the next kernel (a 1x1 64 -> 16) reads it
// there instead of loading it.
// REUSE: hl.conv2d{{.*}}npu.program = @npu_1{{.*}}npu.resident_input
// REUSE-LABEL: npuhw.program @npu_0
// REUSE: name = "tile7.k448.s0", output = #npuhw.operand<address = [[OUT:[0-9]+]], dims = [1, 32, 8, 8]
// REUSE-LABEL: npuhw.program @npu_1
// REUSE-NOT: npuhw.dma_load {binding = 0
// REUSE: npuhw.slice_task {input = #npuhw.operand<address = [[OUT]], dims = [1, {{[0-9]+}}, 8, 8], strides = [4096, 64, 8, 1]>
func.func @stream(%x: tensor<1x512x8x8xi8>) -> tensor<1x16x8x8xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<16x512x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<64x3xi32>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x512x8x8xi8>, tensor<16x512x1x1x4xi8>, tensor<64x3xi32>) -> tensor<1x64x8x8xi8>
  %w2 = top.Weight() {name = "w2"} : () -> tensor<4x64x1x1x4xi8>
  %sb2 = top.Weight() {name = "sb2"} : () -> tensor<16x3xi32>
  %z = hl.conv2d(%y, %w2, %sb2) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x64x8x8xi8>, tensor<4x64x1x1x4xi8>, tensor<16x3xi32>) -> tensor<1x16x8x8xi8>
  return %z : tensor<1x16x8x8xi8>
}
