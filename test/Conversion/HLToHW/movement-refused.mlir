// RUN: not strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json" --split-input-file 2>&1 | FileCheck %s
// A resize that is no integer scale needs a channel's input and output
// planes in LRAM: on a 4 KiB LRAM a 40x40 -> 60x60 one is refused by name
// (convert-top-to-hl asks the same question first, npuLoweringRefusal, and
// leaves such a top.Resize on the CPU).
// CHECK: error: {{.*}}hl.resize_nearest 'big' (1x1x40x40 -> 1x1x60x60): one channel's input and output planes (1600 + 3600 bytes) do not fit LRAM (4096 bytes)
func.func @big(%x: tensor<1x1x40x40xi8>) -> tensor<1x1x60x60xi8> {
  %y = hl.resize_nearest(%x) : (tensor<1x1x40x40xi8>) -> tensor<1x1x60x60xi8> loc("big")
  return %y : tensor<1x1x60x60xi8>
}

// -----

// The NPU has no f32: an f32 hl.convert is refused by name (it stays at
// the host side of the dispatch boundary).
// CHECK: hl.convert 'dq32': only signed int8 <-> bf16 with static shapes is lowered (the NPU has no f32)
func.func @f32(%x: tensor<4xi8>) -> tensor<4xf32> {
  %y = hl.convert(%x) {scale = 0.5 : f64, zp = 0 : i64} : (tensor<4xi8>) -> tensor<4xf32> loc("dq32")
  return %y : tensor<4xf32>
}
