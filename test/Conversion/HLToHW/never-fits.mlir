// RUN: not strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json" -split-input-file 2>&1 | FileCheck %s
// RUN: not strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json double-buffer=true" -split-input-file 2>&1 | FileCheck %s --check-prefix=DB

// A depthwise 3x3 over rows 3000 wide: one output row of one weight block
// (4 channels) reads 3 input rows, 36000 bytes; depthwise has no reduction
// across channels to tile, so no tiling fits a 4 KiB LRAM. The error names
// the layer and every buffer's size.
func.func @dw(%x: tensor<1x4x3x3000xi8>) -> tensor<1x4x1x3000xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<1x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
  // CHECK: error: {{.*}}layer hl.depthwise_conv2d 'dw1' (1x4x3x3000 -> 1x4x1x3000) does not fit LRAM (4096 bytes, alignment 64): even the smallest tile (1 output row(s), 4 output channel(s), 4 input channel(s)) needs input 36000, weights 36, scale_bias 48, output 12000
  %y = hl.depthwise_conv2d(%x, %w, %sb) {pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x3x3000xi8>, tensor<1x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x1x3000xi8> loc("dw1")
  return %y : tensor<1x4x1x3000xi8>
}
// DB: does not fit LRAM (4096 bytes, alignment 64, double-buffered)

// -----

// A 3x3 max pool over rows 3000 wide: one output row of one channel reads
// 3 input rows (9000 bytes), more than a 4 KiB LRAM; a pool's channels and
// rows are its only tiles.
func.func @pool(%x: tensor<1x2x3x3000xi8>) -> tensor<1x2x1x3000xi8> {
  // CHECK: error: {{.*}}layer hl.maxpool 'pool1' (1x2x3x3000 -> 1x2x1x3000) does not fit LRAM (4096 bytes, alignment 64): even the smallest tile (1 output row, 1 output channel(s)) needs input 9000, output 3000
  %y = hl.maxpool(%x) {kernel = array<i64: 3, 3>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x3x3000xi8>) -> tensor<1x2x1x3000xi8> loc("pool1")
  return %y : tensor<1x2x1x3000xi8>
}
// DB: error: {{.*}}layer hl.maxpool 'pool1' (1x2x3x3000 -> 1x2x1x3000) does not fit LRAM (4096 bytes, alignment 64, double-buffered)

// -----

// A segmented average pool is not lowered: its one rounding of the whole
// window's sum cannot be chained over phases.
func.func @segavg(%x: tensor<1x4x4x5x5xi8>) -> tensor<1x4x4x4xi8> {
  // CHECK: error: hl.avgpool (1x4x4x5x5 -> 1x4x4x4): a segmented avgpool cannot be lowered exactly
  %y = hl.avgpool(%x) {kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>, segments = 2} : (tensor<1x4x4x5x5xi8>) -> tensor<1x4x4x4xi8>
  return %y : tensor<1x4x4x4xi8>
}

// -----

// A segmented bf16 max pool is refused: hl-segment-strided never writes one
// (no finite pad value is safe for a bf16 max).
func.func @segmax_bf16(%x: tensor<1x3x4x5x5xbf16>) -> tensor<1x3x4x4xbf16> {
  // CHECK: error: hl.maxpool (1x3x4x5x5 -> 1x3x4x4): a segmented bf16 max pool is not lowered
  %y = hl.maxpool(%x) {kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>, segments = 2} : (tensor<1x3x4x5x5xbf16>) -> tensor<1x3x4x4xbf16>
  return %y : tensor<1x3x4x4xbf16>
}
