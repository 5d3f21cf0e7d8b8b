// RUN: strata-opt %s --convert-hl-to-hw="fuse-dispatches=true" --split-input-file | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json fuse-dispatches=true double-buffer=true" --split-input-file | FileCheck %s --check-prefix=DB
// RUN: strata-opt %s --convert-hl-to-hw --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: strata-opt %s --convert-hl-to-hw="fuse-dispatches=true lram-reuse=true" --mlir-print-debuginfo --mlir-print-local-scope --split-input-file | FileCheck %s --check-prefix=REUSE
// Multi-op dispatches (docs/npu.md, "Multi-op dispatches"): an int8 conv
// whose only user is an hl.add runs the add in its own program, per output
// tile in LRAM. Exactness (npu-sim against run-ref, the whole dispatch
// outlined) is checked in test/npulower/test_npulower_fuse.py.

// A 1x1 conv 8 -> 8 on 6x6 and a residual add (the conv is the add's rhs):
// the conv is marked to be outlined with its user, the add holds the
// program. Bindings: the conv's operands, the residual, the add's result.
// The residual tile is loaded after the output tile in its buffer (with the
// tile's loads), each slice adds its piece after its conv task (same
// queue: no wait), the sum overwrites the residual and is stored.
// CHECK-LABEL: func.func @conv_add
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK-NOT: npu.program
// CHECK: hl.add{{.*}}npu.program = @npu_0_conv
// CHECK: npuhw.program @npu_0_conv
// CHECK-SAME: #npuhw.binding<name = "input", size = 288, writable = false>
// CHECK-SAME: #npuhw.binding<name = "w", size = 64, writable = false>
// CHECK-SAME: #npuhw.binding<name = "sb", size = 96, writable = false>
// CHECK-SAME: #npuhw.binding<name = "residual", size = 288, writable = false>
// CHECK-SAME: #npuhw.binding<name = "output", size = 288, writable = true>
// CHECK: npuhw.dma_load {binding = 0 : i32{{.*}}name = "input"
// CHECK-NEXT: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 1, 4, 36>{{.*}}lram_address = [[R0:[0-9]+]] : i64{{.*}}name = "residual"
// CHECK-NEXT: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 1, 4, 36>, dram_offset = 144 : i64{{.*}}lram_address = [[R1:[0-9]+]] : i64{{.*}}name = "residual"
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.slice_task {{.*}}kernel = "conv2d", name = "tile0.s0", output = #npuhw.operand<address = [[O0:[0-9]+]], dims = [1, 4, 6, 6]
// CHECK-NEXT: npuhw.slice_task {input = #npuhw.operand<address = [[R0]], dims = [144]{{.*}}input2 = #npuhw.operand<address = [[O0]], dims = [144]{{.*}}input2_zp = -5 : i64, input_multiplier = 1073741824 : i64{{.*}}kernel = "add", multiplier = 1700000000 : i64, name = "tile0.add.s0", output = #npuhw.operand<address = [[R0]], dims = [144]
// CHECK-NEXT: npuhw.slice_task {{.*}}kernel = "conv2d", name = "tile0.s1"
// CHECK-NEXT: npuhw.slice_task {{.*}}kernel = "add"{{.*}}name = "tile0.add.s1", output = #npuhw.operand<address = [[R1]], dims = [144]{{.*}}slice = 1 : i32
// CHECK-NEXT: npuhw.wait
// CHECK-NEXT: npuhw.dma_store {binding = 4 : i32, counts = array<i64: 1, 4, 36>{{.*}}lram_address = [[R0]]
// CHECK-NEXT: npuhw.dma_store {binding = 4 : i32, counts = array<i64: 1, 4, 36>, dram_offset = 144 : i64{{.*}}lram_address = [[R1]]
// OFF-LABEL: func.func @conv_add
// OFF-NOT: npu.dispatch_group
// OFF: hl.conv2d{{.*}}npu.program = @npu_0_conv
// OFF: hl.add{{.*}}npu.program = @npu_1_sum
func.func @conv_add(%x: tensor<1x8x6x6xi8>, %r: tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<2x8x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<8x3xi32>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = -3, output_zp = 5} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("conv")
  %s = hl.add(%r, %y) {lhs_multiplier = 1073741824 : i64, lhs_shift = 10 : i64, lhs_zp = 2 : i64, rhs_multiplier = 1500000000 : i64, rhs_shift = 11 : i64, rhs_zp = -5 : i64, output_multiplier = 1700000000 : i64, output_shift = 51 : i64, output_zp = 1 : i64} : (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> loc("sum")
  return %s : tensor<1x8x6x6xi8>
}

// -----

// Tiled and double-buffered (a 4 KiB LRAM, a 16 -> 16 conv on 16x16): the
// residual of tile k+1 loads only after tile k-1's store from the same
// buffer set (one DMA queue, in order), and every program verifies (no
// race between the add and the DMA).
// DB-LABEL: func.func @tiled
// DB: hl.add{{.*}}npu.program = @npu_0_conv
// The add of two convolutions goes with the first one; the second is a
// dispatch of its own.
// DB-LABEL: func.func @two_convs
// DB: hl.conv2d{{.*}}npu.dispatch_group
// DB: hl.conv2d{{.*}}npu.program = @npu_2_c2
// DB: hl.add{{.*}}npu.program = @npu_1_c1
// DB: npuhw.program @npu_0_conv
// DB: name = "tile1.add.s0"
// DB: npuhw.dma_store {binding = 4 : i32{{.*}}name = "output"
// DB-NEXT: npuhw.dma_store {binding = 4 : i32{{.*}}name = "output"
// DB-NEXT: npuhw.dma_load {binding = 0 : i32{{.*}}name = "input"
// DB-NEXT: npuhw.dma_load {binding = 3 : i32{{.*}}name = "residual"
func.func @tiled(%x: tensor<1x16x16x16xi8>, %r: tensor<1x16x16x16xi8>) -> tensor<1x16x16x16xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<4x16x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<16x3xi32>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = -3, output_zp = 5} : (tensor<1x16x16x16xi8>, tensor<4x16x1x1x4xi8>, tensor<16x3xi32>) -> tensor<1x16x16x16xi8> loc("conv")
  %s = hl.add(%y, %r) {lhs_multiplier = 1073741824 : i64, lhs_shift = 10 : i64, rhs_multiplier = 1500000000 : i64, rhs_shift = 11 : i64, output_multiplier = 1700000000 : i64, output_shift = 51 : i64} : (tensor<1x16x16x16xi8>, tensor<1x16x16x16xi8>) -> tensor<1x16x16x16xi8> loc("sum")
  return %s : tensor<1x16x16x16xi8>
}

func.func @two_convs(%x: tensor<1x8x6x6xi8>, %x2: tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<2x8x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<8x3xi32>
  %a = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("c1")
  %b = hl.conv2d(%x2, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("c2")
  %s = hl.add(%a, %b) {lhs_multiplier = 1073741824 : i64, lhs_shift = 10 : i64, rhs_multiplier = 1073741824 : i64, rhs_shift = 10 : i64, output_multiplier = 1073741824 : i64, output_shift = 50 : i64} : (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> loc("sum")
  return %s : tensor<1x8x6x6xi8>
}

// -----

// With LRAM reuse: c2 reads c1's output where c1 left it (c2 is the next
// dispatch). c3 + add run at the add's place, after the shortcut conv
// between them, which overwrites LRAM: c3 loads its input.
// REUSE-LABEL: func.func @shortcut_between
// REUSE: hl.conv2d{{.*}}loc("c1")
// REUSE: hl.conv2d{{.*}}npu.resident_input{{.*}}loc("c2")
// REUSE: hl.conv2d{{.*}} {dilation = array<i64: 1, 1>, npu.dispatch_group, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}{{.*}}loc("c3")
// REUSE: hl.conv2d{{.*}}loc("shortcut")
// REUSE: hl.add{{.*}}npu.program = @npu_2_c3
func.func @shortcut_between(%x: tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<2x8x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<8x3xi32>
  %a = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("c1")
  %b = hl.conv2d(%a, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("c2")
  %c = hl.conv2d(%b, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("c3")
  %d = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("shortcut")
  %s = hl.add(%c, %d) {lhs_multiplier = 1073741824 : i64, lhs_shift = 10 : i64, rhs_multiplier = 1073741824 : i64, rhs_shift = 10 : i64, output_multiplier = 1073741824 : i64, output_shift = 50 : i64} : (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> loc("sum")
  return %s : tensor<1x8x6x6xi8>
}
