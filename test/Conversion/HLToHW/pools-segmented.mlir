// RUN: strata-opt %s --convert-hl-to-hw --split-input-file | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json" --split-input-file | FileCheck %s --check-prefix=TILED
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json double-buffer=true" --split-input-file | FileCheck %s --check-prefix=DB
// Pools, hl.segmentation, segmented inputs and segment_output
// (LowerPools.cpp, LowerSegmented.cpp). Exactness (npu-sim against run-ref)
// is checked in test/npulower/test_npulower_pools_segmented.py.

// A plain 3x3/2 max pool: one max_pool task per slice (split by channels),
// HL's window as is; max pool has no zero points (0) and the int8 clip.
// CHECK-LABEL: func.func @maxpool
// CHECK: hl.maxpool{{.*}}npu.program = @npu_0_pool1
// CHECK: npuhw.program @npu_0_pool1
// CHECK-SAME: #npuhw.binding<name = "input", size = 324, writable = false>, #npuhw.binding<name = "output", size = 100, writable = true>
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 4, 81>
// CHECK: npuhw.slice_task {input = #npuhw.operand<address = 0, dims = [1, 2, 9, 9], strides = [324, 81, 9, 1]>, kernel = "max_pool", kernel_size = array<i64: 3, 3>, name = "tile0.s0", output = #npuhw.operand<address = 384, dims = [1, 2, 5, 5], strides = [50, 25, 5, 1]>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>}
// CHECK: npuhw.slice_task {input = #npuhw.operand<address = 162, {{.*}}name = "tile0.s1"{{.*}}slice = 1 : i32
// CHECK: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 2, 5, 5>, dram_strides = array<i64: 100, 25, 5, 1>, lram_address = 384
// CHECK: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 2, 5, 5>, dram_offset = 50
// TILED-LABEL: func.func @maxpool
// DB-LABEL: func.func @maxpool
func.func @maxpool(%x: tensor<1x4x9x9xi8>) -> tensor<1x4x5x5xi8> {
  %y = hl.maxpool(%x) {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x4x9x9xi8>) -> tensor<1x4x5x5xi8> loc("pool1")
  return %y : tensor<1x4x5x5xi8>
}

// -----

// A global average pool (the form convert-top-to-hl writes for
// top-quantize's GlobalAvgPool): avg_pool with HL's zero points and
// requantization.
// CHECK-LABEL: func.func @gap
// CHECK: npuhw.slice_task {input = #npuhw.operand<address = 0, dims = [1, 4, 7, 7], strides = [392, 49, 7, 1]>, input_zp = -3 : i64, kernel = "avg_pool", kernel_size = array<i64: 7, 7>, multiplier = 1356637857 : i64, name = "tile0.s0", output = #npuhw.operand<address = 448, dims = [1, 4, 1, 1], strides = [4, 1, 1, 1]>, output_zp = -128 : i64, shift = 30 : i64}
func.func @gap(%x: tensor<1x8x7x7xi8>) -> tensor<1x8x1x1xi8> {
  %y = hl.avgpool(%x) {kernel = array<i64: 7, 7>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = -3 : i64, multiplier = 1356637857 : i64, shift = 30 : i64, output_zp = -128 : i64} : (tensor<1x8x7x7xi8>) -> tensor<1x8x1x1xi8> loc("gap")
  return %y : tensor<1x8x1x1xi8>
}

// -----

// hl.segmentation is DMA only: the input is loaded, each phase stored with
// one strided descriptor (LRAM strides x2 for stride 2), then a rescale
// task writes the pad value (multiplier 0: the output zero point) into one
// LRAM byte that stores of LRAM stride 0 copy into every padding position.
// CHECK-LABEL: func.func @segmentation
// CHECK: npuhw.program @npu_0_seg
// CHECK-SAME: #npuhw.binding<name = "output", size = 128, writable = true>
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 50>
// CHECK: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 2, 2, 2>, dram_offset = 5 : i64, dram_strides = array<i64: 128, 64, 4, 1>, lram_address = 6 : i64, lram_strides = array<i64: 50, 25, 10, 2>, name = "output.phase0"}
// CHECK: name = "output.phase1"
// CHECK: name = "output.phase2"
// CHECK: name = "output.phase3"
// CHECK: npuhw.wait
// CHECK: npuhw.slice_task {input = #npuhw.operand<address = 0, dims = [1], strides = [1]>, kernel = "rescale", name = "pad_value", output = #npuhw.operand<address = 0, dims = [1], strides = [1]>, output_zp = -3 : i64}
// CHECK: npuhw.wait
// CHECK: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 2, 1, 4>, dram_strides = array<i64: 64, 4, 1>, lram_address = 0 : i64, lram_strides = array<i64: 0, 0, 0>, name = "padding"}
func.func @segmentation(%x: tensor<1x2x5x5xi8>) -> tensor<1x2x4x4x4xi8> {
  %y = hl.segmentation(%x) {stride = 2 : i64, pad = array<i64: 1, 1, 1, 2>, pad_value = -3 : i64} : (tensor<1x2x5x5xi8>) -> tensor<1x2x4x4x4xi8> loc("seg")
  return %y : tensor<1x2x4x4x4xi8>
}

// -----

// A segmented 3x3/2 conv: one conv2d task per phase with taps (4 here),
// stride 1, the phase's taps as a strided view of the packed weights,
// chained through int32 partials: the first writes int32, the middle ones
// read and rewrite them, the last reads them and writes int8.
// CHECK-LABEL: func.func @segconv
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 1, 16, 25>
// CHECK: kernel = "conv2d", name = "tile0.s0.p0", output = #npuhw.operand<address = 768, dims = [1, 4, 2, 4], strides = [128, 32, 16, 4]>, output_format = "int32"{{.*}}weights = #npuhw.operand<address = 0, dims = [1, 4, 2, 2, 4], strides = [144, 36, 24, 8, 1]>
// CHECK: input = #npuhw.operand<address = 281, {{.*}}name = "tile0.s0.p1"{{.*}}output_format = "int32", partial = #npuhw.operand<address = 768{{.*}}weights = #npuhw.operand<address = 4, dims = [1, 4, 2, 1, 4]
// CHECK: name = "tile0.s0.p2"{{.*}}weights = #npuhw.operand<address = 12, dims = [1, 4, 1, 2, 4]
// CHECK: name = "tile0.s0.p3", output = #npuhw.operand<address = 704, dims = [1, 4, 2, 4], strides = [32, 8, 4, 1]>, partial = #npuhw.operand<address = 768{{.*}}weights = #npuhw.operand<address = 16, dims = [1, 4, 1, 1, 4]
// TILED-LABEL: func.func @segconv
// TILED: name = "tile0.s0.p0"
// DB-LABEL: func.func @segconv
func.func @segconv(%x: tensor<1x4x4x5x5xi8>) -> tensor<1x4x4x4xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<1x4x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>, segments = 2} : (tensor<1x4x4x5x5xi8>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x4x4xi8> loc("conv")
  return %y : tensor<1x4x4x4xi8>
}

// -----

// A segmented 3x3/2 max pool: one max_pool per phase (its taps as the
// window) into int8 temporaries, combined by elementwise max tasks with the
// identity rescale; the running max ends in the output.
// CHECK-LABEL: func.func @segpool
// CHECK: kernel = "max_pool", kernel_size = array<i64: 2, 2>, name = "tile0.s0.p0", output = #npuhw.operand<address = 400
// CHECK: kernel = "max_pool", kernel_size = array<i64: 2, 1>, name = "tile0.s0.p1", output = #npuhw.operand<address = 384
// CHECK: input = #npuhw.operand<address = 400, {{.*}}input2 = #npuhw.operand<address = 384, {{.*}}input2_multiplier = 1 : i64, input_multiplier = 1 : i64, kernel = "max", multiplier = 1 : i64, name = "tile0.s0.max1", output = #npuhw.operand<address = 320
// CHECK: name = "tile0.s0.max3", output = #npuhw.operand<address = 320
// CHECK: npuhw.dma_store {binding = 1 : i32, counts = array<i64: 1, 1, 4, 4>, dram_strides = array<i64: 48, 16, 4, 1>, lram_address = 320
func.func @segpool(%x: tensor<1x3x4x5x5xi8>) -> tensor<1x3x4x4xi8> {
  %y = hl.maxpool(%x) {kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>, segments = 2} : (tensor<1x3x4x5x5xi8>) -> tensor<1x3x4x4xi8> loc("pool")
  return %y : tensor<1x3x4x4xi8>
}

// -----

// segment_output (the segmentation fused into its producer): the conv is
// lowered plain, then each store of its result becomes one store per phase
// (padded position (y + 1, x + 1)), and the padding holds output_zp.
// CHECK-LABEL: func.func @segout
// CHECK: npuhw.program @npu_0_conv
// CHECK-SAME: #npuhw.binding<name = "output", size = 256, writable = true>
// CHECK: npuhw.dma_store {binding = 3 : i32, counts = array<i64: 1, 4, 1, 3>, dram_offset = 5 : i64, dram_strides = array<i64: 256, 64, 4, 1>, lram_address = 263 : i64, lram_strides = array<i64: 0, 18, 12, 2>, name = "output.phase0"}
// CHECK: name = "pad_value", {{.*}}output_zp = 7 : i64}
// CHECK: name = "padding"
func.func @segout(%x: tensor<1x3x6x6xi8>) -> tensor<1x4x4x4x4xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<1x3x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_zp = 7 : i64, segment_output = array<i64: 2, 1, 1, 1, 1>} : (tensor<1x3x6x6xi8>, tensor<1x3x1x1x4xi8>, tensor<4x3xi32>) -> tensor<1x4x4x4x4xi8> loc("conv")
  return %y : tensor<1x4x4x4x4xi8>
}

// -----

// hl.reduce_mean: the whole tensor in LRAM (not tiled), split over the
// slices along the first kept dim (channels); bit i of reduce_axes reduces
// dim i (H and W: 12).
// CHECK-LABEL: func.func @mean
// CHECK: npuhw.slice_task {input = #npuhw.operand<address = 0, dims = [1, 3, 5, 5], strides = [150, 25, 5, 1]>, input_zp = -2 : i64, kernel = "reduce_mean", multiplier = 1073741824 : i64, name = "s0", output = #npuhw.operand<address = 192, dims = [1, 3, 1, 1], strides = [6, 1, 1, 1]>, reduce_axes = 12 : i32, shift = 30 : i64}
// CHECK: npuhw.slice_task {input = #npuhw.operand<address = 75, {{.*}}name = "s1", output = #npuhw.operand<address = 195, {{.*}}slice = 1 : i32}
func.func @mean(%x: tensor<1x6x5x5xi8>) -> tensor<1x6x1x1xi8> {
  %y = hl.reduce_mean(%x) {axes = array<i64: 2, 3>, input_zp = -2 : i64, multiplier = 1073741824 : i64, shift = 30 : i64} : (tensor<1x6x5x5xi8>) -> tensor<1x6x1x1xi8> loc("mean")
  return %y : tensor<1x6x1x1xi8>
}
