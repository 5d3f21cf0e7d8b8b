// RUN: not strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json" 2>&1 | FileCheck %s
// A resize that is no integer scale needs a channel's input and output
// planes in LRAM: on a 4 KiB LRAM a 40x40 -> 60x60 one is refused by name
// (convert-top-to-hl asks the same question first, npuLoweringRefusal, and
// leaves such a top.Resize on the CPU).
// CHECK: error: {{.*}}hl.resize_nearest 'big' (1x1x40x40 -> 1x1x60x60): one channel's input and output planes (1600 + 3600 bytes) do not fit LRAM (4096 bytes)
func.func @big(%x: tensor<1x1x40x40xi8>) -> tensor<1x1x60x60xi8> {
  %y = hl.resize_nearest(%x) : (tensor<1x1x40x40xi8>) -> tensor<1x1x60x60xi8> loc("big")
  return %y : tensor<1x1x60x60xi8>
}
