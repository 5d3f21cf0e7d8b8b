// RUN: not strata-opt %s --convert-hl-to-hw 2>&1 | FileCheck %s
// A resize by 3/2 is no integer scale: refused by name (convert-top-to-hl
// asks the same question first, npuLoweringRefusal, and leaves such a
// top.Resize on the CPU: test/Conversion/TopToHL/refused.mlir).
// CHECK: error: {{.*}}hl.resize_nearest 'odd' (1x2x2x3 -> 1x2x3x3): height 2 -> 3 is not an integer scale
func.func @odd(%x: tensor<1x2x2x3xi8>) -> tensor<1x2x3x3xi8> {
  %y = hl.resize_nearest(%x) : (tensor<1x2x2x3xi8>) -> tensor<1x2x3x3xi8> loc("odd")
  return %y : tensor<1x2x3x3xi8>
}
