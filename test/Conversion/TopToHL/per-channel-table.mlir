// RUN: strata-opt %s --convert-top-to-hl --split-input-file | FileCheck %s
// The values are checked bit-exactly against the Top model in
// test/npulower/test_npulower_channel_table.py; here: what the conversion
// writes.

// A conv whose Requant writes a per-axis (dim 1) int8 pre-activation, then
// Dequant -> HardSwish -> Quant: hl.conv2d with a 3x4 scale_bias (the
// fourth column each channel's zero point, output_zp 0) and an hl.table
// with one 256-entry table per channel.
// CHECK-LABEL: func @conv_channel_table
// CHECK-NOT: top.Requant
// CHECK-NOT: top.Dequant
// CHECK: %[[SB:.*]] = top.Weight() {name = "hl_scale_bias", {{.*}} : tensor<3x4xi32>
// CHECK: %[[Y:.*]] = hl.conv2d(%arg0, %{{.*}}, %[[SB]]) {dilation = array<i64: 1, 1>, input_zp = 3 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-01:3>>, tensor<1x2x3x3x4xi8>, tensor<3x4xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32:1, {1.000000e-01:-5,2.000000e-01,5.000000e-02:7}>>
// CHECK: %[[T:.*]] = top.Weight() {name = "hl_table", {{.*}} : tensor<3x256xi8>
// CHECK: %[[O:.*]] = hl.table(%[[Y]], %[[T]]) {lut_entries = 256 : i64} : (tensor<1x3x5x5x!quant.uniform<i8:f32:1, {1.000000e-01:-5,2.000000e-01,5.000000e-02:7}>>, tensor<3x256xi8>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 4.000000e-02:-100>>
// CHECK: return %[[O]]
func.func @conv_channel_table(%arg0: tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 0.04:-100>> {
  %w = top.Weight() {name = "w", value = dense<1> : tensor<3x2x3x3xi8>} : () -> tensor<3x2x3x3xi8>
  %b = top.Weight() {name = "b", value = dense<[1, 2, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %acc = top.Conv(%arg0, %w, %b) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, input_zp = array<i64: 3>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:3>>, tensor<3x2x3x3xi8>, tensor<3xi32>) -> tensor<1x3x5x5xi32>
  %p = top.Requant(%acc) {multiplier = array<i64: 1073741824>, rshift = array<i64: 33, 34, 35>, axis = 1 : i64} : (tensor<1x3x5x5xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32:1, {0.1:-5, 0.2:0, 0.05:7}>>
  %d = top.Dequant(%p) : (tensor<1x3x5x5x!quant.uniform<i8:f32:1, {0.1:-5, 0.2:0, 0.05:7}>>) -> tensor<1x3x5x5xf32>
  %h = top.HardSwish(%d) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %y = top.Quant(%h) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 0.04:-100>>
  return %y : tensor<1x3x5x5x!quant.uniform<i8:f32, 0.04:-100>>
}

// -----

// A ReLU on a per-axis Requant would clip each channel at its own zero
// point: the conv stays on the CPU (its Dequant -> Sigmoid -> Quant still
// becomes a per-channel table).
// CHECK-LABEL: func @relu_per_axis
// CHECK: top.Conv
// CHECK: top.Requant
// CHECK: hl.table({{.*}}) {lut_entries = 256 : i64} : (tensor<1x2x3x3x!quant.uniform<i8:f32:1, {{.*}}>>, tensor<2x256xi8>)
func.func @relu_per_axis(%arg0: tensor<1x2x3x3xi8>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.004:-128>> {
  %w = top.Weight() {name = "w", value = dense<1> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1xi8>
  %n = top.None() : () -> none
  %acc = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 1, 1>, do_relu = true} : (tensor<1x2x3x3xi8>, tensor<2x2x1x1xi8>, none) -> tensor<1x2x3x3xi32>
  %p = top.Requant(%acc) {multiplier = array<i64: 1073741824>, rshift = array<i64: 31>, axis = 1 : i64} : (tensor<1x2x3x3xi32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32:1, {0.5:-3, 0.25:4}>>
  %d = top.Dequant(%p) : (tensor<1x2x3x3x!quant.uniform<i8:f32:1, {0.5:-3, 0.25:4}>>) -> tensor<1x2x3x3xf32>
  %s = top.Sigmoid(%d) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %y = top.Quant(%s) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.004:-128>>
  return %y : tensor<1x2x3x3x!quant.uniform<i8:f32, 0.004:-128>>
}
