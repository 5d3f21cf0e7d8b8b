// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-preact.txt" | FileCheck %s --check-prefix=LUT
// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-preact.txt float-activations=true" 2>&1 | FileCheck %s --check-prefixes=FLOAT,NOWARN
// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-preact.txt keep-float=conv_preact" 2>&1 | FileCheck %s --check-prefixes=FLOAT,NOWARN
// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-act.txt" 2>&1 | FileCheck %s --check-prefixes=WARN,FLOAT
// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-preact.txt table-input=int16" | FileCheck %s --check-prefix=LUT16
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-preact.txt table-input=int12" 2>&1 | FileCheck %s --check-prefix=BADTI
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-preact-nan.txt" 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-preact-nopost.txt" 2>&1 | FileCheck %s --check-prefix=NOPOST

// Bad tables: a non-finite `_preact` row; a `_preact` row without the
// layer's own row (its output's range is needed for the table).
// NAN: error: top-quantize: {{.*}}quantize-preact-nan.txt:3: tensor 'conv_preact': threshold 'nan' is not a finite number
// NOPOST: error: loc("conv"): 'top.Conv' op tensor 'conv' has no entry in the calibration table

// A fused activation with a `conv_preact` row in the table: the int32
// accumulator is requantized to int8 at the pre-activation range, then
// Dequant -> the float activation -> Quant at `conv`'s range (an int8 ->
// int8 table for the CPU and NPU lowerings). The table's range [-4, 3] is
// cut to where HardSigmoid(0.25 x + 0.5) is not flat within a quarter of
// an output step (1/255 / 4): about [-1.997, 1.997], so the scale is
// 3.994 / 255 = 0.01566 (not 7 / 255).
// LUT-LABEL: func @main
// LUT: %[[ACC:.*]] = top.Conv({{.*}} -> tensor<1x2x4x4xi32>
// LUT-NOT: activation
// LUT: %[[PRE:.*]] = top.Requant(%[[ACC]]) {{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.015662{{[0-9]*}}>>
// LUT: %[[D:.*]] = top.Dequant(%[[PRE]]) {{.*}} -> tensor<1x2x4x4xf32>
// LUT: %[[A:.*]] = top.HardSigmoid(%[[D]]) {alpha = 2.500000e-01 : f64}
// LUT: %[[Q:.*]] = top.Quant(%[[A]]) {{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.00392156{{[0-9]*}}:-128>>
// LUT: %[[OUT:.*]] = top.Dequant(%[[Q]])
// LUT: return %[[OUT]]

// table-input=int16: the accumulator requantized to int16 over the same
// cut range [-1.997, 1.997]: scale 3.994 / 65535 = 6.094e-5, zero point
// round(-32768 + 1.997 / s) = 2; the multipliers 2^30 / 2^32 scales apart
// as the weights' scales. Then top.Table16: 513 entries, entry i the
// HardSigmoid at (i * 128 - 32768 - 2) * s in the output's steps (1/255,
// zero point -128) times 128: entry 0 at x = -1.99705: 0.000737 * 255 =
// 0.188 -> 128 * (0.188 - 128) = -16360; entry 256 at x = -1.2e-4: 128 *
// (127.492 - 128) = -65; entry 512 at x = 1.99687: 128 * 126.80 = 16230.
// The Dequant, the HardSigmoid and the Quant are gone.
// LUT16-LABEL: func @main
// LUT16: %[[ACC:.*]] = top.Conv({{.*}} -> tensor<1x2x4x4xi32>
// LUT16: %[[PRE:.*]] = top.Requant(%[[ACC]]) {multiplier = array<i64: [[M:[0-9]+]], [[M]]>, rshift = array<i64: 30, 32>} {{.*}} -> tensor<1x2x4x4x!quant.uniform<i16:f32, 6.0942{{[0-9]*}}E-5:2>>
// LUT16-NOT: top.Dequant
// LUT16-NOT: top.HardSigmoid
// LUT16: %[[T:.*]] = top.Table16(%[[PRE]]) {table = array<i16: -16360, -16297, [[REST:.*]], 16230>} : (tensor<1x2x4x4x!quant.uniform<i16:f32, 6.0942{{[0-9]*}}E-5:2>>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.00392156{{[0-9]*}}:-128>>
// LUT16-NOT: top.Quant
// LUT16: %[[OUT:.*]] = top.Dequant(%[[T]])
// LUT16: return %[[OUT]]
// BADTI: error: top-quantize: table-input 'int12' is not one of int8, int16

// float-activations=true, keep-float=conv_preact, or a table without the
// `_preact` row (a warning): the int32 accumulator carries its per-channel
// scales (s_x * s_w[o]) as an i32 per-axis type, is dequantized exactly
// and the activation runs in float.
// NOWARN-NOT: warning
// WARN: warning: top-quantize: 1 fused activation(s) stay float after their int8 layer: the calibration table '{{.*}}quantize-table-act.txt' has no '<tensor>_preact' entry for them
// FLOAT-LABEL: func @main
// FLOAT: %[[ACC:.*]] = top.Conv({{.*}} -> tensor<1x2x4x4x!quant.uniform<i32:f32:1, {1.0807472644225671E-4,2.7018681610564178E-5}>>
// FLOAT-NOT: activation
// FLOAT: %[[D:.*]] = top.Dequant(%[[ACC]]) {{.*}} -> tensor<1x2x4x4xf32>
// FLOAT: %[[A:.*]] = top.HardSigmoid(%[[D]]) {alpha = 2.500000e-01 : f64}
// FLOAT-NOT: top.Quant
// FLOAT: return %[[A]]
func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("x")
  %w = top.Weight() {name = "w", value = dense<[[[[0.5]], [[-1.0]]], [[[0.25]], [[0.125]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>, activation = #top.activation<hardsigmoid>, activation_params = array<f64: 0.25, 0.5>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("conv")
  return %1 : tensor<1x2x4x4xf32>
}
