// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-preact-range.txt per-channel-tables=true" 2>&1 | FileCheck %s --check-prefixes=PC,NOWARN
// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-preact.txt per-channel-tables=true" 2>&1 | FileCheck %s --check-prefix=PT
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-range-odd.txt per-channel-tables=true" 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-range-nan.txt per-channel-tables=true" 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-range-order.txt per-channel-tables=true" 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-range-count.txt per-channel-tables=true" 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-range-unknown.txt per-channel-tables=true" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-range-twice.txt per-channel-tables=true" 2>&1 | FileCheck %s --check-prefix=TWICE

// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-preact-range.txt" 2>&1 | FileCheck %s --check-prefixes=DEFAULT,NOWARN
// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-range-even.txt per-channel-tables=true" 2>&1 | FileCheck %s --check-prefixes=DEFAULT,NOWARN

// Per-channel pre-activation ranges (`@range conv_preact -4 1 -0.5 0.25`)
// with per-channel-tables=true (the channels' cut ranges differ 4-fold, at
// least the 3-fold spread per-channel inputs need):
// the Requant writes a per-axis type on dim 1, each channel's range cut
// as the tensor's is (where HardSigmoid(0.25 x + 0.5) is flat within a
// quarter of an output step) and symmetric: channel 0 [-4, 1] -> [-1.997,
// 1] -> 1.997 / 127 = 0.015723; channel 1 [-0.5, 0.25] -> 0.4962 / 127 =
// 0.0039067 (the cut also drops the first 0.004, over which the output
// moves less than the tolerance). Multipliers s_x s_w[c] / s_c.
// NOWARN-NOT: warning
// PC-LABEL: func @main
// PC: %[[ACC:.*]] = top.Conv({{.*}} -> tensor<1x2x4x4xi32>
// PC: %[[PRE:.*]] = top.Requant(%[[ACC]]) {multiplier = array<i64: 1889415404, 1901036821>, rshift = array<i64: 38, 38>} : {{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32:1, {0.0157230{{[0-9]*}},0.00390673{{[0-9]*}}}>>
// PC: %[[D:.*]] = top.Dequant(%[[PRE]]) : (tensor<1x2x4x4x!quant.uniform<i8:f32:1, {{.*}}>>) -> tensor<1x2x4x4xf32>
// PC: %[[A:.*]] = top.HardSigmoid(%[[D]]) {alpha = 2.500000e-01 : f64}
// PC: %[[Q:.*]] = top.Quant(%[[A]]) {{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.00392156{{[0-9]*}}:-128>>
// PC: return

// Without per-channel-tables (the default) the @range rows are read and
// checked but unused: the per-tensor form, no warning. The same with it
// when the channels' cut ranges differ less than 3-fold (quantize-range-even:
// [-4, 1] and [-1, 0.8] -> thresholds 1.997 and about 1).
// DEFAULT: top.Requant({{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.015662{{[0-9]*}}>>

// per-channel-tables=true with a table without @range rows (written
// before they existed): the per-tensor form, one warning naming the table.
// PT: warning: top-quantize: 1 int8 activation table(s) read a per-tensor input: the calibration table '{{.*}}quantize-table-preact.txt' has no '@range' rows
// PT: top.Requant({{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.015662{{[0-9]*}}>>

// Bad rows: errors naming the file, line, tensor and channel.
// ODD: error: top-quantize: {{.*}}quantize-range-odd.txt:4: expected '@range name min0 max0 min1 max1 ...' (a min and a max per channel), got 3 number(s) for tensor 'conv_preact'
// NAN: error: top-quantize: {{.*}}quantize-range-nan.txt:4: tensor 'conv_preact': channel 1 min 'nan' is not a finite number
// ORDER: error: top-quantize: {{.*}}quantize-range-order.txt:4: tensor 'conv_preact': channel 1 min 0.5 is greater than max 0.25
// COUNT: error: top-quantize: the calibration table '{{.*}}quantize-range-count.txt' has 3 channel range(s) for tensor 'conv_preact', which has 2 channels (dim 1)
// UNKNOWN: error: top-quantize: the calibration table '{{.*}}quantize-range-unknown.txt' names tensor 'conv' in an @range row, which is not the pre-activation tensor of a layer with a fused activation
// TWICE: error: top-quantize: {{.*}}quantize-range-twice.txt:5: tensor 'conv_preact' has two @range rows
func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("x")
  %w = top.Weight() {name = "w", value = dense<[[[[0.5]], [[-1.0]]], [[[0.25]], [[0.125]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>, activation = #top.activation<hardsigmoid>, activation_params = array<f64: 0.25, 0.5>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("conv")
  return %1 : tensor<1x2x4x4xf32>
}
