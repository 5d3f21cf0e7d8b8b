// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table.txt" --split-input-file | FileCheck %s
// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table.txt symmetric=true" --split-input-file | FileCheck %s --check-prefix=SYM
// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table.txt keep-float=fc" --split-input-file | FileCheck %s --check-prefix=KEEP
// RUN: strata-opt %s --top-quantize="mode=bf16" --split-input-file | FileCheck %s --check-prefix=BF16
// The integer results are checked bit-exactly against numpy in
// test/quant/test_quantize.py.

// x: [-2, 1.5] -> scale 3.5/255, zp round(-128 + 2 / (3.5/255)) = 18.
// conv (relu): [0, 1.5] -> scale 1.5/255, zp -128. Filter scales are
// max|w[o]| / 127; the requant multiplier m / 2^s approximates
// s_x * s_w[o] / s_y (0.018367... = 1262562546 / 2^36 for channel 0).
// CHECK-LABEL: func @main
// CHECK: %[[Q:.*]] = top.Quant(%{{.*}}) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.013725490309298038:18>>
// CHECK: %[[W:.*]] = top.Weight() {name = "conv_filter_int8", value = dense_resource<{{.*}}> : tensor<2x2x1x1x!quant.uniform<i8:f32:0, {0.0078740157186985015,0.0019685039296746254}>>}
// CHECK: %[[B:.*]] = top.Weight() {name = "conv_bias_int32", value = dense_resource<{{.*}}> : tensor<2xi32>}
// CHECK: %[[ACC:.*]] = top.Conv(%[[Q]], %[[W]], %[[B]]) {do_relu = true, input_zp = array<i64: 18>, kernel_shape = array<i64: 1, 1>} {{.*}} -> tensor<1x2x4x4xi32>
// CHECK: %[[R:.*]] = top.Requant(%[[ACC]]) {multiplier = array<i64: 1262562546, 1262562546>, rshift = array<i64: 36, 38>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.0058823530562222004:-128>>
// The Reshape's row equals the conv's: it moves the int8 tensor itself.
// CHECK-NOT: top.Dequant
// CHECK: %[[Q2:.*]] = top.Reshape(%[[R]]) {{.*}} -> tensor<1x32x!quant.uniform<i8:f32, 0.0058823530562222004:-128>>
// The MatMul has no input zero point: -zp * colsum(W) is in the int32 bias.
// CHECK: top.Weight() {name = "fc_weight_int8", {{.*}} : tensor<32x3x!quant.uniform<i8:f32:1, {2.36220468650572E-4,2.36220468650572E-4,2.36220468650572E-4}>>}
// CHECK: %[[ACC2:.*]] = top.MatMul(%[[Q2]], {{.*}} -> tensor<1x3xi32>
// CHECK: top.Requant(%[[ACC2]]) {{.*}} -> tensor<1x3x!quant.uniform<i8:f32, 0.0058823530562222004:-43>>
// CHECK: top.Dequant
// CHECK-NOT: f32>} : () -> tensor<2x2x1x1xf32>

// SYM-LABEL: func @main
// SYM: top.Quant(%{{.*}}) {{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.015748031437397003>>
// SYM: top.Conv({{.*}}input_zp = array<i64: 0>

// KEEP-LABEL: func @main
// KEEP: top.Requant
// KEEP: top.MatMul(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x32xf32>, tensor<32x3xf32>, none) -> tensor<1x3xf32>

// BF16-LABEL: func @main
// BF16: %[[X:.*]] = top.Cast(%{{.*}}) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xbf16>
// BF16: %[[W:.*]] = top.Weight() {name = "conv_bf16", {{.*}} : tensor<2x2x1x1xbf16>
// BF16: %[[C:.*]] = top.Conv(%[[X]], %[[W]], %{{.*}}) {{.*}} : (tensor<1x2x4x4xbf16>, tensor<2x2x1x1xbf16>, tensor<2xf32>) -> tensor<1x2x4x4xbf16>
// BF16: top.Cast(%[[C]]) : (tensor<1x2x4x4xbf16>) -> tensor<1x2x4x4xf32>
// BF16: top.MatMul({{.*}} : (tensor<1x32xbf16>, tensor<32x3xbf16>, none) -> tensor<1x3xbf16>
func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x3xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("x")
  %w = top.Weight() {name = "w", value = dense<[[[[0.5]], [[-1.0]]], [[[0.25]], [[0.125]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %b = top.Weight() {name = "b", value = dense<[0.1, -0.2]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = top.Conv(%0, %w, %b) {kernel_shape = array<i64: 1, 1>, do_relu = true} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %2 = top.Reshape(%1) {shape = array<i64: 1, 32>} : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32> loc("flat")
  %m = top.Weight() {name = "m", value = dense<0.03> : tensor<32x3xf32>} : () -> tensor<32x3xf32>
  %n = top.None() : () -> none
  %3 = top.MatMul(%2, %m, %n) : (tensor<1x32xf32>, tensor<32x3xf32>, none) -> tensor<1x3xf32> loc("fc")
  return %3 : tensor<1x3xf32>
}

