// RUN: strata-opt %s --convert-hl-to-hw="lram-reuse=true" | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw | FileCheck %s --check-prefix=NOREUSE
// Exactness of reused inputs on whole models: test/npulower/test_npulower_models.py.

// conv1 feeds conv2 (the next NPU kernel): conv1 keeps its whole output in
// LRAM (one tile, pieces split by output channels, so the pieces follow
// each other as the NCHW tensor) and still stores it; conv2 loads its
// weights and scale_bias around that range but not its input, and reads
// the input at conv1's output address. conv3 reads conv1's output too but
// is not fed by the previous kernel (conv2): it loads its input.
// CHECK-LABEL: func.func @chain
// CHECK: hl.conv2d{{.*}}npu.program = @npu_0
// CHECK-NOT: npu.resident_input
// CHECK: hl.conv2d{{.*}}npu.program = @npu_1{{.*}}npu.resident_input
// CHECK: hl.conv2d{{.*}}npu.program = @npu_2
// CHECK-NOT: npu.resident_input
// CHECK: npuhw.program @npu_0
// CHECK: name = "tile0.s0", output = #npuhw.operand<address = [[OUT:[0-9]+]], dims = [1, 4, 8, 8]
// CHECK: name = "tile0.s1", output = #npuhw.operand<address = {{[0-9]+}}, dims = [1, 4, 8, 8]
// CHECK: npuhw.program @npu_1
// CHECK-NOT: npuhw.dma_load {binding = 0
// CHECK: npuhw.slice_task {{.*}}input = #npuhw.operand<address = [[OUT]], dims = [1, 8, 8, 8], strides = [512, 64, 8, 1]>
// CHECK: npuhw.program @npu_2
// CHECK: npuhw.dma_load {binding = 0
// NOREUSE-NOT: npu.resident_input
// NOREUSE: npuhw.program @npu_1
// NOREUSE: npuhw.dma_load {binding = 0
func.func @chain(%x: tensor<1x3x8x8xi8>) -> (tensor<1x8x8x8xi8>, tensor<1x8x8x8xi8>) {
  %w1 = top.Weight() {name = "w1"} : () -> tensor<2x3x3x3x4xi8>
  %sb1 = top.Weight() {name = "sb1"} : () -> tensor<8x3xi32>
  %y1 = hl.conv2d(%x, %w1, %sb1) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xi8>, tensor<2x3x3x3x4xi8>, tensor<8x3xi32>) -> tensor<1x8x8x8xi8>
  %w2 = top.Weight() {name = "w2"} : () -> tensor<2x8x1x1x4xi8>
  %sb2 = top.Weight() {name = "sb2"} : () -> tensor<8x3xi32>
  %y2 = hl.conv2d(%y1, %w2, %sb2) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x8x8xi8>
  %y3 = hl.conv2d(%y1, %w2, %sb2) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x8x8xi8>
  return %y2, %y3 : tensor<1x8x8x8xi8>, tensor<1x8x8x8xi8>
}
