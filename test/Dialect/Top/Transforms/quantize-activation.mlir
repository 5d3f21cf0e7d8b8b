// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-act.txt" | FileCheck %s

// A fused activation: the int32 accumulator carries its per-channel scales
// (s_x * s_w[o]) as an i32 per-axis type, is dequantized exactly and the
// activation runs in float. No table entry is needed for the accumulator.
// CHECK-LABEL: func @main
// CHECK: %[[ACC:.*]] = top.Conv({{.*}} -> tensor<1x2x4x4x!quant.uniform<i32:f32:1, {1.0807472644225671E-4,2.7018681610564178E-5}>>
// CHECK-NOT: activation
// CHECK: %[[D:.*]] = top.Dequant(%[[ACC]]) {{.*}} -> tensor<1x2x4x4xf32>
// CHECK: top.HardSigmoid(%[[D]]) {alpha = 2.500000e-01 : f64}
func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("x")
  %w = top.Weight() {name = "w", value = dense<[[[[0.5]], [[-1.0]]], [[[0.25]], [[0.125]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>, activation = #top.activation<hardsigmoid>, activation_params = array<f64: 0.25, 0.5>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("conv")
  return %1 : tensor<1x2x4x4xf32>
}
