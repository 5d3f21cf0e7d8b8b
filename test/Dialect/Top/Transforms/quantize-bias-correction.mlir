// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-mean.txt" | FileCheck %s
// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-nomean.txt" | FileCheck %s --check-prefix=PLAIN
// Bias correction (docs/quantization.md): the table's `@mean x 3 1` row
// gives E[x]; the int32 bias is round((b - (W_q s_w - W) E[x]) / (s_x s_w)).
// s_x = 4/255; channel 0: W = [1, 0.3], s_w = 1/127, W_q = [127, 38]
// (38/127 - 0.3 = -7.874e-4), b = 0.5 -> (0.5 + 7.874e-4) / 1.2351e-4 =
// 4054.6 -> 4055 (0xFD7), uncorrected 4048.2 -> 4048 (0xFD0). Channel 1:
// W = [-0.7, 0.25], s_w = 0.7/127, W_q = [-127, 45] (45 s_w - 0.25 =
// -1.9685e-3), b = -0.25 -> (-0.25 + 1.9685e-3) / 8.6460e-5 = -2868.7 ->
// -2869 (0xFFFFF4CB), uncorrected -2891.5 -> -2892 (0xFFFFF4B4).
// test/quant/test_bias_correction.py checks the formula against numpy.
// CHECK: top.Weight() {name = "conv_bias_int32", value = dense_resource<[[B:.*]]> : tensor<2xi32>}
// CHECK: [[B]]: "0x40000000D70F0000CBF4FFFF"
// PLAIN: top.Weight() {name = "conv_bias_int32", value = dense_resource<[[B:.*]]> : tensor<2xi32>}
// PLAIN: [[B]]: "0x40000000D00F0000B4F4FFFF"
func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("x")
  %w = top.Weight() {name = "w", value = dense<[[[[1.0]], [[0.3]]], [[[-0.7]], [[0.25]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %b = top.Weight() {name = "b", value = dense<[0.5, -0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = top.Conv(%0, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  return %1 : tensor<1x2x4x4xf32>
}
