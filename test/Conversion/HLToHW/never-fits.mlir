// RUN: not strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json" -split-input-file 2>&1 | FileCheck %s
// RUN: not strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json double-buffer=true" -split-input-file 2>&1 | FileCheck %s --check-prefix=DB

// One weight block of a 1200-input fully connected layer is 4800 bytes: no
// tiling of rows or output channels fits a 4 KiB LRAM. The error names the
// layer and every buffer's size.
func.func @fc(%x: tensor<1x1200xi8>) -> tensor<1x4xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<1x1200x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
  // CHECK: error: {{.*}}layer hl.fully_connected 'fc1' (1x1200 -> 1x4) does not fit LRAM (4096 bytes, alignment 64): even the smallest tile (1 output row(s), 4 output channel(s)) needs input 1200, weights 4800, scale_bias 48, output 4; tiling the reduction is not built yet
  %y = hl.fully_connected(%x, %w, %sb) : (tensor<1x1200xi8>, tensor<1x1200x4xi8>, tensor<4x3xi32>) -> tensor<1x4xi8> loc("fc1")
  return %y : tensor<1x4xi8>
}
// DB: does not fit LRAM (4096 bytes, alignment 64, double-buffered)

// -----

// Segmented inputs (hl-segment-strided) are not lowered: the NPU kernel
// takes the stride directly, so the npu-sim pipeline does not segment.
func.func @seg(%x: tensor<1x4x4x5x5xi8>) -> tensor<1x4x4x4xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<1x4x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
  // CHECK: error: hl.conv2d (1x4x4x5x5 -> 1x4x4x4): segmented inputs/outputs (hl-segment-strided) are not lowered yet
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>, segments = 2} : (tensor<1x4x4x5x5xi8>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x4x4xi8>
  return %y : tensor<1x4x4x4xi8>
}
